// What a grading found, and its three forms: the summary for a person, JSON, and JUnit XML for CI.
// A mutant missed is said with what was wrong and the kind of check that catches it, never the
// request and answer to copy.
import { escapeXml } from '../domain/http/xml.js'

/** killed: the suite failed with the mutant in; survived: it passed; timed-out: stopped (not caught). */
export type Outcome = 'killed' | 'survived' | 'timed-out'

export interface MutantResult {
  readonly id: string
  readonly name: string
  readonly outcome: Outcome
  readonly exitCode: number | null
  readonly signal: string | null
  readonly seconds: number
  /** Requests the service got during the run. */
  readonly requests: number
  readonly breaks: string
  readonly check: string
}

export interface GradeResult {
  readonly command: readonly string[]
  /** The run against the correct service, which passed. */
  readonly baseline: { readonly seconds: number, readonly requests: number }
  readonly timeoutSeconds: number
  readonly caught: number
  readonly total: number
  /** The percentage caught, rounded down to hundredths. */
  readonly score: number
  readonly minScore: number
  /** Whether the score reached --min-score (exit code 0). */
  readonly passed: boolean
  readonly mutants: readonly MutantResult[]
}

export function gradeResult (command: readonly string[], baseline: GradeResult['baseline'], mutants: readonly MutantResult[], timeoutSeconds: number, minScore: number): GradeResult {
  const caught = mutants.filter(m => m.outcome === 'killed').length
  const total = mutants.length
  return {
    command,
    baseline,
    timeoutSeconds,
    caught,
    total,
    score: Math.floor(caught * 10_000 / total) / 100,
    minScore,
    // Compared in whole numbers, so that 2 of 3 is not taken for 66.67%.
    passed: caught * 100 >= minScore * total,
    mutants
  }
}

/** A mutant's outcome as a progress line says it. */
export function outcomeText (result: MutantResult, timeoutSeconds: number): string {
  if (result.outcome === 'timed-out') return `timed out after ${timeoutSeconds} s (not caught)`
  const how = result.signal === null ? `exit code ${result.exitCode}` : `ended by ${result.signal}`
  return `${result.outcome === 'killed' ? 'caught' : 'survived'} (${how}, ${result.seconds.toFixed(1)} s)`
}

/** The summary for a person: the score, then each mutant missed with what was wrong and what would catch it. */
export function summaryText (result: GradeResult): string {
  const lines = [`caught ${result.caught} of ${result.total} mutant${result.total === 1 ? '' : 's'} (${Math.floor(result.score)}%)`]
  const missed = result.mutants.filter(m => m.outcome !== 'killed')
  if (missed.length === 0) {
    lines.push('', 'Every mutant was caught: your suite would notice each of these bugs.')
  } else {
    lines.push('', `Not caught (${missed.length}): what was wrong, and the kind of check that would catch it.`)
    for (const m of missed) {
      const timedOut = m.outcome === 'timed-out' ? ` (timed out after ${result.timeoutSeconds} s)` : ''
      lines.push('', `  ${m.id}${timedOut}: ${m.name}`, `    wrong: ${m.breaks}`, `    check: ${m.check}`)
    }
  }
  if (!result.passed) lines.push('', `Below --min-score ${result.minScore}%: exit code 1.`)
  return lines.join('\n') + '\n'
}

export function jsonReport (result: GradeResult): string {
  return JSON.stringify(result, null, 2) + '\n'
}

/** JUnit XML: one test case per mutant, each one not caught a failure. */
export function junitReport (result: GradeResult): string {
  const failures = result.total - result.caught
  const time = result.mutants.reduce((sum, m) => sum + m.seconds, 0).toFixed(3)
  const cases = result.mutants.map(m => {
    const open = `    <testcase classname="mutants" name="${escapeXml(`${m.id}: ${m.name}`)}" time="${m.seconds.toFixed(3)}"`
    if (m.outcome === 'killed') return `${open}/>`
    const message = m.outcome === 'survived' ? `survived: ${m.breaks}` : `timed out after ${result.timeoutSeconds} s: ${m.breaks}`
    return `${open}>\n      <failure type="${m.outcome}" message="${escapeXml(message)}">${escapeXml(`wrong: ${m.breaks}\ncheck: ${m.check}`)}</failure>\n    </testcase>`
  })
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="grade" tests="${result.total}" failures="${failures}" time="${time}">`,
    `  <testsuite name="api-challenges-fastify grade: caught ${result.caught} of ${result.total}" tests="${result.total}" failures="${failures}" errors="0" skipped="0" time="${time}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    ''
  ].join('\n')
}
