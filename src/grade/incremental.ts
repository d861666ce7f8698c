// --incremental <report.json>: an earlier schema report's detected mutants (Killed, Timeout) are
// taken as they were, while their defect is the same (its hash: id, name, what it breaks); every
// other mutant runs again (Survived, NoCoverage, RuntimeError, one the report lacks or whose defect
// changed). The run against the correct service always runs: its requests are the report's tests.
import { readFile, stat } from 'node:fs/promises'
import type { Status } from './report.js'

/** The largest report read (a report of every mutant is a few dozen kilobytes). */
export const MAX_REPORT_BYTES = 8 * 1024 * 1024

/** A detected mutant of the earlier report. */
export interface Earlier {
  readonly status: 'Killed' | 'Timeout'
  readonly reason: string
  readonly hash: string
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The detected mutants of the report `text`, by id, or what is wrong with it. */
export function earlierResults (text: string): Map<string, Earlier> | string {
  let report: unknown
  try {
    report = JSON.parse(text)
  } catch (error) {
    return `not JSON (${(error as Error).message})`
  }
  if (!isObject(report) || typeof report.schemaVersion !== 'string' || !isObject(report.files)) {
    return 'not a mutation-testing-report-schema report (no schemaVersion, or no files)'
  }
  const hashes = isObject(report.config) && isObject(report.config.mutantHashes) ? report.config.mutantHashes : {}
  const found = new Map<string, Earlier>()
  for (const file of Object.values(report.files)) {
    const mutants = isObject(file) ? file.mutants : undefined
    if (!Array.isArray(mutants)) return 'not a mutation-testing-report-schema report (a file without mutants)'
    for (const m of mutants as unknown[]) {
      if (!isObject(m) || typeof m.id !== 'string' || typeof m.status !== 'string') return 'not a mutation-testing-report-schema report (a mutant without id or status)'
      const hash = hashes[m.id]
      const status = m.status as Status
      if ((status === 'Killed' || status === 'Timeout') && typeof hash === 'string') {
        found.set(m.id, { status, reason: typeof m.statusReason === 'string' ? m.statusReason.replace(/\.$/, '') : 'detected', hash })
      }
    }
  }
  return found
}

/** The detected mutants of the report at `file`, or what is wrong (it cannot be read, is too large, or is no report). */
export async function readEarlier (file: string): Promise<Map<string, Earlier> | string> {
  try {
    const size = (await stat(file)).size
    if (size > MAX_REPORT_BYTES) return `is ${size} bytes, more than the ${MAX_REPORT_BYTES} read`
    return earlierResults(await readFile(file, 'utf8'))
  } catch (error) {
    return `cannot be read (${String((error as NodeJS.ErrnoException).code)})`
  }
}
