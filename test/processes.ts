// The server as a process of its own, for what only a process shows: signals, start-up output, exit codes.
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const serverFile = fileURLToPath(new URL('../src/server.ts', import.meta.url))
export const root = fileURLToPath(new URL('..', import.meta.url))

/** Starts src/server.ts (TypeScript, as tap runs it) with `env` added to this process's environment. */
export function startProcess (env: Record<string, string>) {
  const child = spawn(process.execPath, [...process.execArgv, serverFile], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  return { child, output: () => ({ stdout, stderr }) }
}

/** Resolves with the port once the process has said it is ready (on stdout), or rejects if it exits first. */
export function waitForReady (child: ChildProcess): Promise<string> {
  let out = ''
  return new Promise<string>((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      const found = /ready: curl -i -X POST (http:\/\/127\.0\.0\.1:(\d+))\/challenger/.exec(out)
      if (found !== null) resolve(found[2] as string)
    })
    child.on('exit', code => reject(new Error(`exited with ${code} before it was ready: ${out}`)))
  })
}
