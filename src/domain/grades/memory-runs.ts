// Grading runs in this process, for the memory store: one Map in the order they were started, which
// is the order they expire in (every run lives as long), so expiry looks at the oldest end only.
import { newRunId, type GradeBase, type GradeRun, type GradeRuns, type ReportOutcome, type RunLimits, type RunRefusal } from './runs.js'

interface RunState {
  run: GradeRun
  results: Record<string, number>
}

export class MemoryGradeRuns implements GradeRuns {
  readonly #runs = new Map<string, RunState>()
  readonly #now: () => number

  /** `now`: the wall clock, in milliseconds since 1970. */
  constructor (now: () => number) {
    this.#now = now
  }

  #expire (): void {
    const now = this.#now()
    for (const [id, state] of this.#runs) {
      if (state.run.expiresAt > now) return
      this.#runs.delete(id)
    }
  }

  #live (id: string): RunState | undefined {
    this.#expire()
    return this.#runs.get(id)
  }

  #view (state: RunState): GradeRun {
    return { ...state.run, results: { ...state.results } }
  }

  async start (owner: string, bases: readonly GradeBase[], limits: RunLimits): Promise<GradeRun | RunRefusal> {
    this.#expire()
    const now = this.#now()
    const wait = (run: GradeRun | undefined): number => Math.max(1, Math.ceil(((run?.expiresAt ?? now) - now) / 1000))
    const first = this.#runs.values().next().value?.run
    if (this.#runs.size >= limits.total) return { refused: 'total', retryAfterSeconds: wait(first) }
    const own = [...this.#runs.values()].filter(state => state.run.owner === owner)
    if (own.length >= limits.perSession) return { refused: 'session', retryAfterSeconds: wait(own[0]?.run) }
    const run: GradeRun = { id: newRunId(), owner, createdAt: now, expiresAt: now + limits.runMs, bases: bases.map(base => ({ ...base })), results: {} }
    this.#runs.set(run.id, { run, results: {} })
    return this.#view({ run, results: {} })
  }

  async get (id: string): Promise<GradeRun | undefined> {
    const state = this.#live(id)
    return state === undefined ? undefined : this.#view(state)
  }

  async report (id: string, base: string, exitCode: number): Promise<ReportOutcome> {
    const state = this.#live(id)
    if (state === undefined) return 'gone'
    if (!state.run.bases.some(b => b.id === base)) return 'no-base'
    if (Object.hasOwn(state.results, base)) return 'already'
    state.results[base] = exitCode
    return 'recorded'
  }

  async latest (owners: readonly string[]): Promise<Map<string, GradeRun>> {
    this.#expire()
    const wanted = new Set(owners)
    const found = new Map<string, GradeRun>()
    // From the oldest: a later run of the same owner takes its place.
    for (const state of this.#runs.values()) if (wanted.has(state.run.owner)) found.set(state.run.owner, this.#view(state))
    return found
  }

  async live (): Promise<number> {
    this.#expire()
    return this.#runs.size
  }
}
