// The grade command (`api-challenges-fastify grade -- <command>`): runs a learner's test suite
// against the correct service, then once per deliberate defect (src/domain/defects/catalogue.ts),
// each on a fresh service in this process, and scores the suite by the defects it catches.
// The process is the caller's: src/server.ts hands over its createServer, its streams and its
// environment, and sets the exit code this returns.
import type { FastifyInstance } from 'fastify'
import { statSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import type { ServerConfig } from '../domain/config/config.js'
import { defectById, type Defect } from '../domain/defects/catalogue.js'
import { parseGradeArgs, USAGE, type GradeOptions } from './options.js'
import { gradeResult, jsonReport, junitReport, outcomeText, summaryText, type MutantResult } from './report.js'
import { runCommand, type RunOutcome } from './run.js'
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

interface Run extends RunOutcome {
  readonly requests: number
}

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
  const junit = options.junit === undefined ? undefined : resolve(io.cwd, options.junit)
  // Said now rather than after every run.
  if (junit !== undefined && statSync(dirname(junit), { throwIfNoEntry: false })?.isDirectory() !== true) {
    return fail(`--junit ${options.junit}: there is no folder ${dirname(junit)} to write it in`)
  }
  const interrupt = new AbortController()
  const onSignal = (signal: keyof typeof SIGNALS): void => { interrupt.abort(signal) }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  try {
    if (options.server !== undefined) return await gradeOnServer(options.server, options, io, interrupt.signal)
    return await gradeWith(options, junit, io, interrupt.signal, fail)
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

async function gradeWith (options: GradeOptions, junit: string | undefined, io: GradeIo, interrupt: AbortSignal, fail: (message: string) => number): Promise<number> {
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
  const count = options.mutants.length
  say(`passed against the correct service (${baseline.seconds.toFixed(1)} s, ${baseline.requests} request${baseline.requests === 1 ? '' : 's'}); now ${count} mutant${count === 1 ? '' : 's'}, ` +
    `${options.jobs} at a time, each run at most ${options.timeoutSeconds} s`)
  const results = new Map<string, MutantResult>()
  const width = String(count).length
  const queue = options.mutants.map(id => defectById(id) as Defect)
  const worker = async (): Promise<void> => {
    for (let defect = queue.shift(); defect !== undefined && !interrupt.aborted; defect = queue.shift()) {
      const run = await runOnce(options, io, interrupt, defect.id)
      if (interrupt.aborted) return
      const result = mutantResult(defect, run)
      results.set(defect.id, result)
      say(`[${String(results.size).padStart(width)}/${count}] ${defect.id.padEnd(20)} ${outcomeText(result, options.timeoutSeconds)}`)
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.jobs, count) }, worker))
  if (interrupt.aborted) return stopped()
  const result = gradeResult(options.command, { seconds: inMs(baseline.seconds), requests: baseline.requests },
    options.mutants.map(id => results.get(id) as MutantResult), options.timeoutSeconds, options.minScore)
  io.stdout.write(options.json ? jsonReport(result) : summaryText(result))
  if (junit !== undefined) {
    try {
      await writeFile(junit, junitReport(result))
    } catch (error) {
      return fail(`could not write --junit ${options.junit}: ${(error as Error).message}`)
    }
  }
  return result.passed ? GRADED : BELOW_MIN_SCORE
}

/** Why the run against the correct service grades nothing, or undefined when it passed. */
function baselineProblem (run: Run, options: GradeOptions): string | undefined {
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
  if (run.requests === 0) {
    return 'your suite passed without sending a single request to the service, so it grades nothing: ' +
      'does it read the service\'s address from API_BASE_URL (or BASE_URL)?'
  }
  return undefined
}

/** Seconds to the millisecond. */
const inMs = (seconds: number): number => Math.round(seconds * 1000) / 1000

function mutantResult (defect: Defect, run: Run): MutantResult {
  let outcome: MutantResult['outcome'] = run.exitCode === 0 ? 'survived' : 'killed'
  if (run.timedOut) outcome = 'timed-out'
  return {
    id: defect.id,
    name: defect.name,
    outcome,
    exitCode: run.exitCode,
    signal: run.signal,
    seconds: inMs(run.seconds),
    requests: run.requests,
    breaks: defect.breaks,
    check: defect.check
  }
}

/** The command once, against a fresh service of its own: correct, or with the defect `id`. */
async function runOnce (options: GradeOptions, io: GradeIo, interrupt: AbortSignal, id: string | undefined): Promise<Run> {
  // The service is the suite's alone: no limit on the sessions it makes, nor on the wrong credentials it sends.
  const app = io.createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { creationRateLimit: 0, basicGuessLimit: 0, ...(id === undefined ? {} : { defects: [id] }) } })
  let requests = 0
  app.server.on('request', () => { requests++ })
  try {
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    if (options.verbose) io.stderr.write(`grade: ── ${id ?? 'the correct service'} at ${url} ──\n`)
    const run = await runCommand(options.command, {
      env: { ...io.env, API_BASE_URL: url, BASE_URL: url },
      cwd: io.cwd,
      timeoutMs: options.timeoutSeconds * 1000,
      signal: interrupt,
      echo: options.verbose ? chunk => { io.stderr.write(chunk) } : undefined
    })
    return { ...run, requests }
  } finally {
    // Whatever the run left open (it is over) does not hold the close.
    const closed = app.close()
    app.server.closeAllConnections()
    await closed
  }
}
