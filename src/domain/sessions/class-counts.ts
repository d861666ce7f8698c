// The class's session counts (live, active) for /metrics, made in the background and kept: a scrape
// reads the last count and never waits on the store, which in an incident may take seconds to answer.
import { performance } from 'node:perf_hooks'

export interface Counts {
  live: number
  active: number
}

export interface CountsReading extends Counts {
  /** Seconds since the last count that succeeded was asked for; NaN (and NaN counts) before the first. */
  ageSeconds: number
}

export interface ClassCountsOptions {
  /** A new count this often, unless the one before is still under way. */
  everyMs: number
  /** A monotonic clock in milliseconds (default performance.now); tests pass their own. */
  now?: () => number
  /** Runs `task` every `ms` until the returned function is called; tests pass their own. */
  every?: (ms: number, task: () => void) => () => void
}

/** setInterval that keeps no process alive. */
function every (ms: number, task: () => void): () => void {
  const timer = setInterval(task, ms).unref()
  return () => { clearInterval(timer) }
}

export class ClassCounts {
  readonly #count: () => Promise<Counts>
  readonly #everyMs: number
  readonly #now: () => number
  readonly #every: (ms: number, task: () => void) => () => void
  #last: Counts | undefined
  #at = NaN
  #counting = false
  #stop: (() => void) | undefined

  constructor (count: () => Promise<Counts>, options: ClassCountsOptions) {
    this.#count = count
    this.#everyMs = options.everyMs
    this.#now = options.now ?? (() => performance.now())
    this.#every = options.every ?? every
  }

  /** Counts now, then every `everyMs`; idempotent. */
  start (): void {
    if (this.#stop !== undefined) return
    this.refresh()
    this.#stop = this.#every(this.#everyMs, () => { this.refresh() })
  }

  /** Starts a count, unless one is under way (a store that hangs gets one count at a time, not a queue). */
  refresh (): void {
    if (this.#counting) return
    this.#counting = true
    const asked = this.#now()
    this.#count().then(counts => {
      this.#last = counts
      this.#at = asked
    }, () => {
      // A failed count keeps the last one, whose age keeps growing: the age says the store is behind.
    }).finally(() => { this.#counting = false })
  }

  /** The last count and its age; never waits. */
  read (): CountsReading {
    if (this.#last === undefined) return { live: NaN, active: NaN, ageSeconds: NaN }
    return { ...this.#last, ageSeconds: (this.#now() - this.#at) / 1000 }
  }

  stop (): void {
    this.#stop?.()
    this.#stop = undefined
  }
}
