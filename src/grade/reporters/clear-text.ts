// The report for a person, on standard output: the score against the thresholds, what caught each
// mutant, a hint for each one missed (its family, endpoint and the kind of check; the exact check
// only with --explain), and the API coverage of the suite.
import { caughtText } from '../caught.js'
import { coverageRows, coverageSummary, statusesText } from '../coverage.js'
import { counts, FAMILY_HINTS, isDetected, mutantLabel, type Grading, type MutantResult, type Status } from '../report.js'

/** A mutant's state as a progress line or a person says it. */
export const STATUS_WORDS: Readonly<Record<Status, string>> = {
  Killed: 'caught',
  Timeout: 'timed out (caught)',
  Survived: 'survived',
  NoCoverage: 'not covered',
  RuntimeError: 'could not run'
}

/** How the mutant at `index` is named: its id once detected or with --explain; else by family and endpoint alone. */
export function nameOf (m: MutantResult, index: number, explain: boolean): string {
  return explain || isDetected(m.status) ? m.id : mutantLabel(m, index + 1)
}

/** A mutant's progress line: its state, how the run ended, how long it took. */
export function progressText (result: MutantResult, timeoutSeconds: number): string {
  if (result.status === 'Timeout') return `timed out after ${timeoutSeconds} s (detected)`
  if (result.status === 'RuntimeError') return `could not run (${result.reason})`
  const how = result.signal === null ? `exit code ${result.exitCode}` : `ended by ${result.signal}`
  return `${STATUS_WORDS[result.status]} (${how}, ${result.seconds.toFixed(1)} s)`
}

/** Where the score stands against high and low, in Stryker's words. */
export function standing (result: Grading): string {
  const { high, low } = result.thresholds
  if (result.score >= high) return `at or above high (${high}): good`
  if (result.score >= low) return `between low (${low}) and high (${high}): a warning`
  return `below low (${low}): too low`
}

export function scoreLine (result: Grading): string {
  const c = counts(result.mutants)
  const errors = c.RuntimeError === 0 ? '' : `; ${c.RuntimeError} could not run and do not count`
  return `Mutation score ${result.score.toFixed(2)}%: ${result.detected} of ${result.valid} mutant${result.valid === 1 ? '' : 's'} detected ` +
    `(killed ${c.Killed}, timed out ${c.Timeout}; survived ${c.Survived}, not covered ${c.NoCoverage}${errors})`
}

/** The coverage table's lines: path, method, statuses answered, documented statuses never answered. */
export function coverageLines (result: Grading): string[] {
  const rows: Array<[string, string, string, string]> = [['path', 'method', 'answered', 'documented, never answered']]
  let last = ''
  for (const row of coverageRows(result.baseline.requests, result.baseline.contract)) {
    rows.push([row.path === last ? '' : row.path, row.method, statusesText(row.seen), row.documented ? row.unseen.join(', ') : '(not in the API\'s document)'])
    last = row.path
  }
  const width = (i: 0 | 1 | 2): number => Math.max(...rows.map(row => row[i].length))
  return rows.map(([path, method, seen, unseen]) => `  ${path.padEnd(width(0))}  ${method.padEnd(width(1))}  ${seen.padEnd(width(2))}  ${unseen}`.trimEnd())
}

export function clearTextReport (result: Grading): string {
  const lines = [scoreLine(result), `Thresholds high ${result.thresholds.high}, low ${result.thresholds.low}, break ${result.thresholds.break ?? 'none'}: the score is ${standing(result)}.`]
  const numbered = result.mutants.map((m, index) => ({ m, index }))
  const reused = result.mutants.filter(m => m.reusedFrom !== undefined)
  const caught = numbered.filter(({ m }) => isDetected(m.status))
  if (caught.length > 0) {
    lines.push('', `Caught (${caught.length}): the first answer each mutant gave otherwise than the correct service.`)
    for (const { m } of caught) {
      const by = m.reusedFrom === undefined && m.caughtBy !== undefined ? `by ${caughtText(m.caughtBy)}` : m.reason
      lines.push(`  ${m.id}${m.status === 'Timeout' ? ' (timed out)' : ''}: ${by}`)
    }
  }
  const explain = result.explain
  const missed = (status: Status, heading: (n: number) => string): void => {
    const these = numbered.filter(({ m }) => m.status === status)
    if (these.length === 0) return
    lines.push('', heading(these.length))
    for (const { m, index } of these) {
      lines.push(`  ${nameOf(m, index, explain)}${explain ? `: ${m.name}` : `, severity ${m.severity}`}`, `    ${m.reason}`)
      if (status === 'Survived') lines.push(`    hint (${m.family}): ${FAMILY_HINTS[m.family]}`)
      if (explain) lines.push(`    wrong: ${m.breaks}`, `    check: ${m.check}`)
    }
  }
  missed('Survived', n => `Survived (${n}): your suite met each of these, and passed.`)
  missed('NoCoverage', n => `Not covered (${n}): your suite never sent a request that could meet these.`)
  missed('RuntimeError', n => `Could not run (${n}):`)
  if (!explain && result.mutants.some(m => m.status === 'Survived' || m.status === 'NoCoverage')) {
    lines.push('', 'Each is named by its family and endpoint only: find the check yourself, or grade --explain says what is wrong and the exact check.')
  }
  if (result.detected === result.valid && result.valid > 0) lines.push('', 'Every mutant was detected: your suite would notice each of these bugs.')
  const sent = result.baseline.requests.length
  const summary = coverageSummary(coverageRows(result.baseline.requests, result.baseline.contract))
  lines.push('', `API coverage: your suite's ${sent} request${sent === 1 ? '' : 's'} against the correct service, by the API's document: ${summary}.`, ...coverageLines(result))
  if (reused.length > 0) lines.push('', `Detected mutants taken from ${reused[0]?.reusedFrom} (--incremental): ${reused.length}.`)
  if (!result.passed) lines.push('', `Below the break threshold ${result.thresholds.break}%: exit code 1.`)
  return lines.join('\n') + '\n'
}
