// A mutant's state from its run: what caught it (the first request answered otherwise than the
// correct service answered the request at the same place in its run), or, for a survivor, whether
// any request ever met the changed decision (request.defectHit): never is NoCoverage.
import type { Defect } from '../domain/defects/catalogue.js'
import { defectHash, type Caught, type MutantResult, type Status } from './report.js'
import { ordinal, requestText, type SentRequest } from './requests.js'
import type { RunOutcome } from './run.js'

/** Seconds to the millisecond. */
export const inMs = (seconds: number): number => Math.round(seconds * 1000) / 1000

/** The first request of `run` answered otherwise than the request at its place in `baseline`, or that the defect changed. */
export function firstDifference (baseline: readonly SentRequest[], run: readonly SentRequest[]): Caught | undefined {
  const at = run.findIndex((r, i) => r.defect !== null || r.status !== baseline[i]?.status)
  if (at === -1) return undefined
  const request = run[at] as SentRequest
  return { position: at + 1, request: requestText(request), status: request.status, correctStatus: baseline[at]?.status ?? null }
}

/** What a report says of the defect itself, whatever the run found. */
export function described (defect: Defect): Pick<MutantResult, 'id' | 'family' | 'severity' | 'endpoint' | 'untried' | 'name' | 'breaks' | 'check'> {
  const { id, family, severity, endpoint, untried, name, breaks, check } = defect
  return { id, family, severity, endpoint, untried, name, breaks, check }
}

/** "your 4th request, GET /secret/note with a wrong token (answered 401 where the correct service said 403)". */
export function caughtText (caught: Caught): string {
  const { position, request, status, correctStatus } = caught
  const answered = correctStatus === null
    ? `answered ${status}; the correct service's run sent no ${ordinal(position)} request`
    : correctStatus === status
      ? `answered ${status}, as the correct service did, but not the same answer`
      : `answered ${status} where the correct service said ${correctStatus}`
  return `your ${ordinal(position)} request, ${request} (${answered})`
}

export interface MutantRun extends RunOutcome {
  readonly sent: readonly SentRequest[]
}

export function mutantResult (defect: Defect, run: MutantRun, baseline: readonly SentRequest[]): MutantResult {
  const metAt = run.sent.flatMap((r, i) => r.defect === null ? [] : [i + 1])
  let status: Status
  if (run.startError !== undefined) status = 'RuntimeError'
  else if (run.timedOut) status = 'Timeout'
  else if (run.exitCode !== 0) status = 'Killed'
  else status = metAt.length === 0 ? 'NoCoverage' : 'Survived'
  const caughtBy = status === 'Killed' || status === 'Timeout' ? firstDifference(baseline, run.sent) : undefined
  return {
    ...described(defect),
    hash: defectHash(defect),
    status,
    exitCode: run.exitCode,
    signal: run.signal,
    seconds: inMs(run.seconds),
    requests: run.sent.length,
    caughtBy,
    metAt,
    reason: reasonOf(status, run, caughtBy, metAt, defect),
    reusedFrom: undefined
  }
}

function reasonOf (status: Status, run: MutantRun, caughtBy: Caught | undefined, metAt: readonly number[], defect: Defect): string {
  const how = run.signal === null ? `exit code ${run.exitCode}` : `ended by ${run.signal}`
  switch (status) {
    case 'RuntimeError':
      return `the command could not be started (${run.startError?.code ?? 'error'})`
    case 'NoCoverage':
      return `never sent: ${defect.untried}; no request of the suite met this mutant, so it could not be caught`
    case 'Survived':
      return `met by your ${ordinal(metAt[0] as number)} request${metAt.length === 1 ? '' : ` and ${metAt.length - 1} more`}, yet the suite passed`
    default: {
      const ending = status === 'Timeout' ? 'the suite ran past --timeout and was stopped' : `the suite failed (${how})`
      return caughtBy === undefined
        ? `${ending}, though no answer differed from the correct service's (a suite that fails by chance?)`
        : `caught by ${caughtText(caughtBy)}; ${ending}`
    }
  }
}
