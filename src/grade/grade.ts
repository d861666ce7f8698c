// The grade command (`api-challenges-fastify grade -- <command>`): runs a learner's test suite
// against the correct service, then once per deliberate defect (src/domain/defects/catalogue.ts),
// each on a fresh service in this process, and scores the suite by the defects it catches.
// The process is the caller's: src/server.ts hands over its createServer, its streams and its
// environment, and sets the exit code this returns.
import type { FastifyInstance } from 'fastify'
import { statSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import type { ServerConfig } from '../domain/config/config.js'
import { defectById, type Defect } from '../domain/defects/catalogue.js'
import { described, inMs, mutantResult, type MutantRun } from './caught.js'
import { contractOf, type Operation } from './coverage.js'
import { readEarlier, type Earlier } from './incremental.js'
import { parseGradeArgs, USAGE, type GradeOptions, type Reporter } from './options.js'
import { defectHash, gradeResult, type Grading, type MutantResult } from './report.js'
import { clearTextReport, nameOf, progressText } from './reporters/clear-text.js'
import { gradeJson } from './reporters/grade-json.js'
import { htmlReport } from './reporters/html.js'
import { junitReport } from './reporters/junit.js'
import { jsonReport } from './reporters/schema.js'
import { recordRequests } from './requests.js'
import { runSuite } from './run.js'
import { gradeOnServer } from './server-run.js'

export interface GradeIo {
  /** src/server.ts's: the service as `npm start` builds it. */
  readonly createServer: (config: ServerConfig) => FastifyInstance
  readonly stdout: { write: (text: string) => unknown }
  readonly stderr: { write: (text: string) => unknown }
  /** The command's environment, API_BASE_URL and BASE_URL added. */
  readonly env: Record<string, string | undefined>
  readonly cwd: string
}

/** Exit codes (see USAGE). */
const GRADED = 0
const BELOW_MIN_SCORE = 1
const NOT_GRADED = 2
const SIGNALS = { SIGINT: 130, SIGTERM: 143 } as const

/** The files of the file reporters, by reporter. */
type Files = Partial<Record<Exclude<Reporter, 'clear-text'>, string>>

const FILE_NAMES = { json: 'mutation.json', html: 'mutation.html', junit: 'junit.xml' } as const
const REPORT_NAMES = { json: 'JSON report (mutation-testing-report-schema)', html: 'HTML report', junit: 'JUnit report' } as const

/** Grades the command `argv` names (the words after `grade`); resolves with the exit code. */
export async function grade (argv: readonly string[], io: GradeIo): Promise<number> {
  const parsed = parseGradeArgs(argv)
  if ('help' in parsed) {
    io.stdout.write(USAGE)
    return GRADED
  }
  const fail = (message: string): number => {
    io.stderr.write(`grade: ${message}\n`)
    return NOT_GRADED
  }
  if ('error' in parsed) return fail(`${parsed.error}\n(grade --help for the options)`)
  const options = parsed.options
  const files: Files = {}
  const reportDir = resolve(io.cwd, options.reportDir)
  for (const reporter of options.reporters) if (reporter !== 'clear-text') files[reporter] = join(reportDir, FILE_NAMES[reporter])
  if (options.junit !== undefined) {
    const junit = resolve(io.cwd, options.junit)
    // Said now rather than after every run.
    if (statSync(dirname(junit), { throwIfNoEntry: false })?.isDirectory() !== true) {
      return fail(`--junit ${options.junit}: there is no folder ${dirname(junit)} to write it in`)
    }
    files.junit = junit
  }
  if (files.html !== undefined || files.json !== undefined || (files.junit !== undefined && options.junit === undefined)) {
    try {
      await mkdir(reportDir, { recursive: true })
    } catch (error) {
      return fail(`--report-dir ${options.reportDir}: cannot make the folder (${(error as NodeJS.ErrnoException).code})`)
    }
  }
  let earlier: Map<string, Earlier> | undefined
  if (options.incremental !== undefined) {
    const read = await readEarlier(resolve(io.cwd, options.incremental))
    if (typeof read === 'string') return fail(`--incremental ${options.incremental} ${read}`)
    earlier = read
  }
  const interrupt = new AbortController()
  const onSignal = (signal: keyof typeof SIGNALS): void => { interrupt.abort(signal) }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  try {
    if (options.server !== undefined) return await gradeOnServer(options.server, options, io, interrupt.signal)
    return await gradeWith(options, files, earlier, io, interrupt.signal, fail)
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

/** The mutant `defect` as the earlier report had it. */
function reused (defect: Defect, was: Earlier, from: string): MutantResult {
  return {
    ...described(defect),
    hash: was.hash,
    status: was.status,
    exitCode: null,
    signal: null,
    seconds: 0,
    requests: 0,
    caughtBy: undefined,
    metAt: [],
    reason: `${was.reason.replace(/ \(taken from an earlier report\)$/, '')} (taken from an earlier report)`,
    reusedFrom: from
  }
}

async function gradeWith (options: GradeOptions, files: Files, earlier: Map<string, Earlier> | undefined, io: GradeIo, interrupt: AbortSignal, fail: (message: string) => number): Promise<number> {
  const say = (line: string): void => { io.stderr.write(`grade: ${line}\n`) }
  const stopped = (): number => {
    const signal = interrupt.reason as keyof typeof SIGNALS
    say(`stopped by ${signal}: the runs under way were ended, nothing is graded`)
    return SIGNALS[signal]
  }
  const shown = options.command.join(' ')
  say(`running ${shown} against the correct service`)
  const baseline = await runOnce(options, io, interrupt, undefined)
  if (interrupt.aborted) return stopped()
  const problem = baselineProblem(baseline, options)
  if (problem !== undefined) {
    const tail = baseline.tail === '' ? '' : `\nThe end of its output:\n${baseline.tail.replace(/^/gm, '  | ')}`
    return fail(`${problem}${tail}`)
  }
  const results = new Map<string, MutantResult>()
  const all = options.mutants.map(id => defectById(id) as Defect)
  const queue: Defect[] = []
  for (const defect of all) {
    const was = earlier?.get(defect.id)
    if (was !== undefined && was.hash === defectHash(defect)) results.set(defect.id, reused(defect, was, options.incremental as string))
    else queue.push(defect)
  }
  const count = queue.length
  const sent = baseline.sent.length
  say(`passed against the correct service (${baseline.seconds.toFixed(1)} s, ${sent} request${sent === 1 ? '' : 's'}); now ${count} mutant${count === 1 ? '' : 's'}, ` +
    `${options.jobs} at a time, each run at most ${options.timeoutSeconds} s`)
  if (earlier !== undefined) {
    const kept = [...results.values()]
    const killed = kept.filter(m => m.status === 'Killed').length
    const timedOut = kept.length - killed
    say(`reused ${killed} killed${timedOut === 0 ? '' : ` and ${timedOut} timed out`} from ${options.incremental}; ran ${count}`)
  }
  const width = String(count).length
  const place = new Map(all.map((defect, i) => [defect.id, i]))
  let done = 0
  const worker = async (): Promise<void> => {
    for (let defect = queue.shift(); defect !== undefined && !interrupt.aborted; defect = queue.shift()) {
      const run = await runOnce(options, io, interrupt, defect.id)
      if (interrupt.aborted) return
      const result = mutantResult(defect, run, baseline.sent)
      results.set(defect.id, result)
      say(`[${String(++done).padStart(width)}/${count}] ${nameOf(result, place.get(defect.id) as number, options.explain).padEnd(20)} ${progressText(result, options.timeoutSeconds)}`)
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.jobs, count) }, worker))
  if (interrupt.aborted) return stopped()
  const result = gradeResult({
    command: options.command,
    baseline: { seconds: inMs(baseline.seconds), requests: baseline.sent, contract: baseline.contract },
    timeoutSeconds: options.timeoutSeconds,
    thresholds: options.thresholds,
    mutants: all.map(defect => results.get(defect.id) as MutantResult),
    explain: options.explain
  })
  if (options.jsonToStdout) io.stdout.write(gradeJson(result))
  else if (options.reporters.includes('clear-text')) io.stdout.write(clearTextReport(result))
  for (const [reporter, file] of Object.entries(files) as Array<[keyof Files, string]>) {
    try {
      await writeFile(file, REPORTERS[reporter](result))
    } catch (error) {
      return fail(`could not write the ${REPORT_NAMES[reporter]} to ${file}: ${(error as Error).message}`)
    }
    say(`wrote the ${REPORT_NAMES[reporter]} to ${file}`)
  }
  return result.passed ? GRADED : BELOW_MIN_SCORE
}

const REPORTERS: Record<keyof Files, (result: Grading) => string> = { json: jsonReport, html: htmlReport, junit: junitReport }

/** Why the run against the correct service grades nothing, or undefined when it passed. */
function baselineProblem (run: MutantRun, options: GradeOptions): string | undefined {
  const shown = options.command.join(' ')
  if (run.startError !== undefined) {
    const why = run.startError.code === 'ENOENT' ? 'not found (is it installed, and on PATH?)' : `could not be started (${run.startError.code as string})`
    return `command ${JSON.stringify(options.command[0])} ${why}`
  }
  if (run.shell && run.exitCode === 127) return `the shell found no such command in ${JSON.stringify(shown)} (sh exit code 127)`
  if (run.timedOut) {
    return `your suite took longer than --timeout ${options.timeoutSeconds} s against the correct service, and was stopped: ` +
      'raise --timeout, or see what it waits for (--verbose shows its output)'
  }
  if (run.exitCode !== 0) {
    const how = run.signal === null ? `exit code ${run.exitCode}` : `ended by ${run.signal}`
    return `your suite fails against the correct service (${how}), so it grades nothing: a suite must pass on a correct service ` +
      'before its failures can point at a bug. Fix the suite (or what it assumes), then grade it again.'
  }
  if (run.sent.length === 0) {
    return 'your suite passed without sending a single request to the service, so it grades nothing: ' +
      'does it read the service\'s address from API_BASE_URL (or BASE_URL)?'
  }
  return undefined
}

/** The command once, against a fresh service of its own: correct (with its documented operations), or with the defect `id`; every request it sent kept. */
async function runOnce (options: GradeOptions, io: GradeIo, interrupt: AbortSignal, id: string | undefined): Promise<MutantRun & { contract: Operation[] }> {
  // The service is the suite's alone: no limit on the sessions it makes, nor on the wrong credentials it sends.
  const app = io.createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { creationRateLimit: 0, basicGuessLimit: 0, ...(id === undefined ? {} : { defects: [id] }) } })
  const sent = recordRequests(app)
  try {
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    if (options.verbose) io.stderr.write(`grade: ── ${id ?? 'the correct service'} at ${url} ──\n`)
    const run = await runSuite(options, io, url, interrupt)
    return { ...run, sent, contract: id === undefined ? await contractOf(app) : [] }
  } finally {
    // Whatever the run left open (it is over) does not hold the close.
    const closed = app.close()
    app.server.closeAllConnections()
    await closed
  }
}
