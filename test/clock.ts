// A clock and a timer that tests move by hand: no real waiting.
export interface FakeTime {
  now: () => number
  every: (ms: number, task: () => void) => () => void
  /** Moves the clock forward. */
  advance: (ms: number) => void
  /** Runs the periodic tasks once, as their timer would. */
  tick: () => void
  /** How many periodic tasks are scheduled. */
  scheduled: () => number
}

export function fakeTime (start = 1_700_000_000_000): FakeTime {
  let now = start
  const tasks = new Set<() => void>()
  return {
    now: () => now,
    every: (_ms, task) => {
      tasks.add(task)
      return () => { tasks.delete(task) }
    },
    advance: (ms) => { now += ms },
    tick: () => { for (const task of tasks) task() },
    scheduled: () => tasks.size
  }
}
