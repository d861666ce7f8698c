// The report in mutation-testing-report-schema's JSON (the schema Stryker, PIT's plugin and
// Stryker's dashboard read, and the mutation-testing-elements HTML renders). An HTTP API has no
// source file, so each family of defects is a file of its own: its source lists, a line each, the
// decisions of the contract its mutants change (where, and what a request must send to meet it),
// and a mutant's location is its line. The suite is the one test file, its requests against the
// correct service its tests: killedBy names the first request answered otherwise, coveredBy each
// request the defect changed.
import type { FileResult, MutantResult as SchemaMutant, MutationTestResult } from 'mutation-testing-report-schema/api'
import type { Family } from '../../domain/defects/catalogue.js'
import { FAMILY_HINTS, type Grading, type MutantResult } from '../report.js'
import { ordinal, requestText } from '../requests.js'

/** The schema version written: 2 (Stryker's html and dashboard read 1 and 2). */
export const SCHEMA_VERSION = '2'
/** The one test file: the suite's command. */
const SUITE_FILE = 'your suite'

/** The virtual file of a family: `status.http`. */
export const familyFile = (family: Family): string => `${family}.http`

const testId = (position: number): string => `request-${position}`

/** What a mutant's line of source says: where it is and what a request must send to meet it. */
const sourceLine = (m: MutantResult): string => `${m.endpoint}: ${m.untried}`

function schemaMutant (m: MutantResult, line: number, requests: number, explain: boolean): SchemaMutant {
  const known = (position: number): boolean => position <= requests
  const hint = m.status === 'Survived' ? ` Hint (${m.family}): ${FAMILY_HINTS[m.family]}.` : ''
  const mutant: SchemaMutant = {
    id: m.id,
    mutatorName: m.family,
    // Shown in the source view in place of the line: what is wrong only with --explain.
    description: explain ? `${m.name}: ${m.breaks} Check: ${m.check}` : `${m.family} at ${m.endpoint} (severity ${m.severity})`,
    location: { start: { line, column: 1 }, end: { line, column: sourceLine(m).length + 1 } },
    status: m.status,
    statusReason: `${m.reason}.${hint}`,
    duration: Math.round(m.seconds * 1000),
    testsCompleted: m.requests,
    coveredBy: m.metAt.filter(known).map(testId)
  }
  const caught = m.caughtBy?.position
  if (caught !== undefined && known(caught)) mutant.killedBy = [testId(caught)]
  return mutant
}

export function schemaReport (result: Grading): MutationTestResult {
  const files: Record<string, FileResult> = {}
  const lines = new Map<string, string[]>()
  const requests = result.baseline.requests.length
  for (const m of result.mutants) {
    const name = familyFile(m.family)
    const source = lines.get(name) ?? [`# ${m.family}: the decisions its mutants change (${FAMILY_HINTS[m.family]})`]
    lines.set(name, source)
    source.push(sourceLine(m))
    const file = files[name] ?? { language: 'http', source: '', mutants: [] }
    files[name] = file
    file.mutants.push(schemaMutant(m, source.length, requests, result.explain))
  }
  for (const [name, source] of lines) (files[name] as FileResult).source = source.join('\n') + '\n'
  return {
    schemaVersion: SCHEMA_VERSION,
    thresholds: { high: result.thresholds.high, low: result.thresholds.low },
    projectRoot: 'api-challenges-fastify',
    files,
    testFiles: {
      [SUITE_FILE]: {
        source: `${result.command.join(' ')}\n`,
        tests: result.baseline.requests.map((r, i) => ({ id: testId(i + 1), name: `${ordinal(i + 1)} request: ${requestText(r)} → ${r.status}`, location: { start: { line: 1, column: 1 } } }))
      }
    },
    framework: { name: 'api-challenges-fastify grade' },
    performance: { setup: 0, initialRun: Math.round(result.baseline.seconds * 1000), mutation: Math.round(result.mutants.reduce((sum, m) => sum + m.seconds, 0) * 1000) },
    // Free-form: what --incremental needs (each mutant's hash), and what the schema has no field for.
    config: {
      command: result.command,
      timeoutSeconds: result.timeoutSeconds,
      break: result.thresholds.break,
      score: result.score,
      mutantHashes: Object.fromEntries(result.mutants.map(m => [m.id, m.hash]))
    }
  }
}

export function jsonReport (result: Grading): string {
  return JSON.stringify(schemaReport(result), null, 2) + '\n'
}
