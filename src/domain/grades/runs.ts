// A grading run on the class server (docs/bug-hunt.md, "Grade a class"): a learner's session starts
// one, and gets a base URL per defect of the catalogue and one for the correct service, each under an
// opaque id; the learner's suite runs against each and the learner reports each exit code. The
// exit codes are the learner's word: nothing here checks that a suite ran.
import { randomBytes } from 'node:crypto'
import { defectById, defects, type Family } from '../defects/catalogue.js'

/** One base of a run: its opaque id, and the defect every session made under it carries (null: the correct service). */
export interface GradeBase {
  readonly id: string
  readonly defect: string | null
}

export interface GradeRun {
  /** 16 hex digits. */
  readonly id: string
  /** The session that started it. */
  readonly owner: string
  /** Milliseconds since 1970. */
  readonly createdAt: number
  readonly expiresAt: number
  /** The correct base first, then one per defect in a random order. */
  readonly bases: readonly GradeBase[]
  /** Each reported exit code, by base id. */
  readonly results: Readonly<Record<string, number>>
}

/** What bounds the runs a stranger can start (docs/operations.md, "Limits"). */
export const GRADE_LIMITS = Object.freeze({
  /** A run lives this long from its start, reported or not. */
  runMs: 60 * 60 * 1000,
  /** Live runs one session may have. */
  perSession: 3,
  /** Runs one client address may start in a window of `addressWindowMs`. */
  perAddress: 20,
  addressWindowMs: 60 * 60 * 1000,
  /** Live runs in all. */
  total: 1000,
  /** Sessions one base may make (they are not counted against the address's creation limit). */
  sessionsPerBase: 100
})

export interface RunLimits {
  readonly runMs: number
  readonly perSession: number
  readonly total: number
}

/** Why a run could not start, and in how many seconds one may. */
export interface RunRefusal {
  readonly refused: 'session' | 'total'
  readonly retryAfterSeconds: number
}

/** A report's outcome: kept, already reported for that base (the first word stands), no such base, no such run. */
export type ReportOutcome = 'recorded' | 'already' | 'no-base' | 'gone'

/** Where grading runs live: beside the sessions, in memory or in Redis. */
export interface GradeRuns {
  /** A new run for `owner` with these bases, unless a limit refuses it. */
  start (owner: string, bases: readonly GradeBase[], limits: RunLimits): Promise<GradeRun | RunRefusal>
  /** The live run `id`, or undefined once it has expired (or never was). */
  get (id: string): Promise<GradeRun | undefined>
  /** Keeps `exitCode` as base `base`'s result. */
  report (id: string, base: string, exitCode: number): Promise<ReportOutcome>
  /** Each owner's latest live run, for the class board. */
  latest (owners: readonly string[]): Promise<Map<string, GradeRun>>
  /** Live runs in all. */
  live (): Promise<number>
}

const RUN_ID = /^[0-9a-f]{16}$/
const BASE_ID = /^[0-9a-f]{12}$/

/** Whether `id` could name a run (anything else is no run, without asking the store). */
export const isRunId = (id: string): boolean => RUN_ID.test(id)
export const isBaseId = (id: string): boolean => BASE_ID.test(id)

export function newRunId (): string {
  return randomBytes(8).toString('hex')
}

/** The bases of a new run: the correct one, then one per defect of the catalogue, in a random order under random ids. */
export function newBases (): GradeBase[] {
  const ids = new Set<string>()
  while (ids.size <= defects.length) ids.add(randomBytes(6).toString('hex'))
  const [correct, ...rest] = [...ids] as [string, ...string[]]
  // Random ids in sorted order: the order says nothing of the catalogue's.
  const defectBases = defects.map((defect, i) => ({ id: rest[i] as string, defect: defect.id })).sort((a, b) => a.id < b.id ? -1 : 1)
  return [{ id: correct, defect: null }, ...defectBases]
}

/** A survivor as the score shows it: where and what kind, never the exact check. */
export interface Survivor {
  readonly family: Family
  readonly endpoint: string
}

export interface Score {
  /** Defect bases whose suite failed (exit code not 0). */
  readonly caught: number
  readonly survived: number
  /** Defect bases with no report yet. */
  readonly pending: number
  readonly total: number
  /** The correct base's exit code, when reported: a suite must pass there (0) for its score to mean anything. */
  readonly correctExitCode: number | null
  /** Stryker's mutation score: caught / (caught + survived), in percent with two decimals; null while nothing is reported or the correct base failed. */
  readonly percent: number | null
  /** Every base reported, the correct one passed. */
  readonly complete: boolean
  readonly survivors: readonly Survivor[]
}

export function scoreOf (run: GradeRun): Score {
  let caught = 0
  let pending = 0
  const survivors: Survivor[] = []
  let correctExitCode: number | null = null
  for (const base of run.bases) {
    const code = run.results[base.id]
    if (base.defect === null) {
      correctExitCode = code ?? null
      continue
    }
    if (code === undefined) pending++
    else if (code !== 0) caught++
    else {
      const defect = defectById(base.defect)
      if (defect !== undefined) survivors.push({ family: defect.family, endpoint: defect.endpoint })
    }
  }
  const survived = survivors.length
  const total = run.bases.length - 1
  const counted = caught + survived
  const percent = correctExitCode !== 0 || counted === 0 ? null : Math.round(caught / counted * 10_000) / 100
  return { caught, survived, pending, total, correctExitCode, percent, complete: pending === 0 && correctExitCode === 0, survivors }
}

/** The score in a few lines of text, for a shell (GET /grades/{id} with Accept: text/plain). */
export function scoreText (score: Score): string {
  const lines: string[] = []
  if (score.correctExitCode === null) lines.push('the correct base has no result yet: a suite must pass there first')
  else if (score.correctExitCode !== 0) lines.push(`your suite failed against the correct base (exit code ${score.correctExitCode}): it grades nothing until it passes there`)
  lines.push(`caught ${score.caught} of ${score.total}${score.percent === null ? '' : ` (${score.percent}%)`}${score.pending > 0 ? `, ${score.pending} not reported yet` : ''}`)
  for (const survivor of score.survivors) lines.push(`survived: a defect of the ${survivor.family} family, on ${survivor.endpoint}`)
  return `${lines.join('\n')}\n`
}
