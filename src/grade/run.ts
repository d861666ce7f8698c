// One run of the learner's test command: spawned in a process group of its own, so that a time-out
// or an interrupt stops it with everything it started, and so that nothing it leaves behind
// outlives the run. Its output is kept (the end of it), and shown only when asked.
import { spawn } from 'node:child_process'
import type { GradeOptions } from './options.js'

export interface RunOptions {
  readonly env: Record<string, string | undefined>
  readonly cwd: string
  readonly timeoutMs: number
  /** Stops the run at once, as a time-out does. */
  readonly signal: AbortSignal
  /** Each piece of the command's output as it comes (--verbose). */
  readonly echo?: ((chunk: string) => void) | undefined
}

export interface RunOutcome {
  /** The exit code; null when a signal ended it, or it never started. */
  readonly exitCode: number | null
  readonly signal: NodeJS.Signals | null
  readonly timedOut: boolean
  /** Why the command could not be started (spawn's error: ENOENT, EACCES…). */
  readonly startError: NodeJS.ErrnoException | undefined
  /** Whether the command ran through sh -c. */
  readonly shell: boolean
  readonly seconds: number
  /** The end of its output, stdout and stderr as they came. */
  readonly tail: string
}

const KEPT_BYTES = 16_384
const TAIL_LINES = 25
/** How long the output may stay open once the command has exited (a descendant of another group may hold it). */
const CLOSE_GRACE_MS = 2_000

/** The program and arguments for `command`: one word with spaces in it is a line for the shell. */
export function invocation (command: readonly string[]): { file: string, args: string[], shell: boolean } {
  const [first = '', ...rest] = command
  if (rest.length === 0 && /\s/.test(first)) return { file: 'sh', args: ['-c', first], shell: true }
  return { file: first, args: rest, shell: false }
}

/** Kills the process group `pid` leads, if it is still there. */
function killGroup (pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}

/** Runs `command` once; resolves when it has ended (or could not start), never rejects. */
export function runCommand (command: readonly string[], options: RunOptions): Promise<RunOutcome> {
  const { file, args, shell } = invocation(command)
  const started = performance.now()
  let kept = ''
  let timedOut = false
  let startError: NodeJS.ErrnoException | undefined
  const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const take = (chunk: string): void => {
    kept = (kept + chunk).slice(-KEPT_BYTES)
    options.echo?.(chunk)
  }
  child.stdout.setEncoding('utf8').on('data', take)
  child.stderr.setEncoding('utf8').on('data', take)
  // A command that could not start has no pid, and ends at once (its 'close' clears the timer).
  const stop = (): void => { killGroup(child.pid as number) }
  const timer = setTimeout(() => {
    timedOut = true
    stop()
  }, options.timeoutMs)
  options.signal.addEventListener('abort', stop)
  return new Promise(resolve => {
    let graceTimer: NodeJS.Timeout | undefined
    const settle = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
      clearTimeout(timer)
      clearTimeout(graceTimer)
      options.signal.removeEventListener('abort', stop)
      const lines = kept.split('\n')
      if (lines.at(-1) === '') lines.pop()
      resolve({ exitCode, signal, timedOut, startError, shell, seconds: (performance.now() - started) / 1000, tail: lines.slice(-TAIL_LINES).join('\n') })
    }
    child.on('error', error => {
      startError = error
    })
    // What the command left running in its group goes with it; then its output is read to the end.
    child.on('exit', () => {
      stop()
      graceTimer = setTimeout(() => {
        child.stdout.destroy()
        child.stderr.destroy()
      }, CLOSE_GRACE_MS)
    })
    child.on('close', (code, signal) => { settle(startError === undefined ? code : null, signal) })
  })
}

/** The learner's suite once against the service at `url` (API_BASE_URL and BASE_URL), as grade's options say. */
export function runSuite (options: GradeOptions, io: { env: Record<string, string | undefined>, cwd: string, stderr: { write: (text: string) => unknown } }, url: string, signal: AbortSignal): Promise<RunOutcome> {
  return runCommand(options.command, {
    env: { ...io.env, API_BASE_URL: url, BASE_URL: url },
    cwd: io.cwd,
    timeoutMs: options.timeoutSeconds * 1000,
    signal,
    echo: options.verbose ? chunk => { io.stderr.write(chunk) } : undefined
  })
}
