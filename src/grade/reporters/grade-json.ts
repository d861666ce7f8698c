// --json: grade's own JSON on standard output, the shape of earlier versions kept (scripts read
// caught, total, score and each mutant's outcome) and each mutant's state and what caught it added; what is
// wrong and the exact check of a mutant missed only with --explain, as in every report.
// The mutation-testing-report-schema JSON, for other tools, is the json reporter's (schema.ts).
import { caughtText } from '../caught.js'
import { isDetected, type GradeResult, type Grading, type Status } from '../report.js'

/** A state as earlier versions said it: timed-out counts as caught now, as Stryker counts a Timeout. */
const OUTCOMES: Record<Status, GradeResult['mutants'][number]['outcome']> = { Killed: 'killed', Timeout: 'timed-out', Survived: 'survived', NoCoverage: 'survived', RuntimeError: 'error' }

export function gradeJson (result: Grading): string {
  const json: GradeResult = {
    command: result.command,
    baseline: { seconds: result.baseline.seconds, requests: result.baseline.requests.length },
    timeoutSeconds: result.timeoutSeconds,
    caught: result.detected,
    total: result.total,
    score: result.score,
    minScore: result.thresholds.break ?? 0,
    thresholds: result.thresholds,
    passed: result.passed,
    mutants: result.mutants.map(m => ({
      id: m.id,
      name: m.name,
      outcome: OUTCOMES[m.status],
      status: m.status,
      family: m.family,
      endpoint: m.endpoint,
      exitCode: m.exitCode,
      signal: m.signal,
      seconds: m.seconds,
      requests: m.requests,
      caughtBy: m.caughtBy === undefined ? null : caughtText(m.caughtBy),
      reason: m.reason,
      // A hint names the family and the endpoint; what is wrong and the check, only once caught or asked for.
      ...(result.explain || isDetected(m.status) ? { breaks: m.breaks, check: m.check } : {})
    }))
  }
  return JSON.stringify(json, null, 2) + '\n'
}
