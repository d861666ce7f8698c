// `grade --server <url> -- <command>`: the class server grades instead of a service of this process
// (docs/bug-hunt.md, "Grade a class"). It makes a session there, starts a grading run (POST /grades),
// runs the command once per base with API_BASE_URL set to it, reports each exit code, and prints the
// server's score. The correct base goes first: a suite that fails there grades nothing, as in grade.
import type { GradeOptions } from './options.js'
import { runSuite, type RunOutcome } from './run.js'

export interface ServerRunIo {
  readonly stdout: { write: (text: string) => unknown }
  readonly stderr: { write: (text: string) => unknown }
  readonly env: Record<string, string | undefined>
  readonly cwd: string
}

interface RunJson {
  id: string
  results: string
  bases: Array<{ url: string, correct: boolean }>
  score: number | null
}

/** Exit codes, as grade's (options.ts's USAGE). */
const GRADED = 0
const BELOW_MIN_SCORE = 1
const NOT_GRADED = 2

/** What a run reports: its exit code; a run stopped at the time-out, or by a signal, counts as not caught (0), as grade counts it. */
export const reported = (run: Pick<RunOutcome, 'timedOut' | 'exitCode'>): number => run.timedOut || run.exitCode === null ? 0 : run.exitCode

/** Grades `options.command` through the server at `server`; resolves with the exit code. */
export async function gradeOnServer (server: string, options: GradeOptions, io: ServerRunIo, interrupt: AbortSignal): Promise<number> {
  const say = (line: string): void => { io.stderr.write(`grade: ${line}\n`) }
  const base = server.replace(/\/+$/, '')
  const ask = async (method: string, url: string, init: RequestInit = {}): Promise<Response> => {
    const answer = await fetch(url, { ...init, method, signal: interrupt })
    if (!answer.ok) throw new Error(`${method} ${url} answered ${answer.status}: ${await answer.text()}`)
    return answer
  }
  try {
    const me = (await ask('POST', `${base}/challenger`)).headers.get('x-challenger') as string
    const run = await (await ask('POST', `${base}/grades`, { headers: { 'x-challenger': me } })).json() as RunJson
    say(`session ${me}, grading run ${run.id}: ${run.bases.length - 1} defect bases and the correct one on ${base}`)
    for (const [index, { url, correct }] of run.bases.entries()) {
      const outcome = await runSuite(options, io, url, interrupt)
      if (interrupt.aborted) return NOT_GRADED
      const exitCode = correct ? outcome.exitCode ?? 1 : reported(outcome)
      await ask('POST', run.results, { headers: { 'x-challenger': me, 'content-type': 'application/json' }, body: JSON.stringify({ base: url, exitCode }) })
      say(`[${index + 1}/${run.bases.length}] ${correct ? 'the correct base' : 'a defect base'}: exit code ${exitCode}`)
      if (correct && exitCode !== 0) {
        say(`your suite fails against the correct base (exit code ${exitCode}), so it grades nothing`)
        return NOT_GRADED
      }
    }
    const score = await (await ask('GET', `${base}/grades/${run.id}`)).json() as RunJson
    io.stdout.write(options.jsonToStdout ? `${JSON.stringify(score)}\n` : await (await ask('GET', `${base}/grades/${run.id}`, { headers: { accept: 'text/plain' } })).text())
    // Every base is reported, the correct one passed: the score is a number.
    return (score.score as number) >= (options.thresholds.break ?? 0) ? GRADED : BELOW_MIN_SCORE
  } catch (error) {
    if (interrupt.aborted) return NOT_GRADED
    say(`the server could not grade: ${(error as Error).message}`)
    return NOT_GRADED
  }
}
