// What the attack scripts share (bench/attack-pipeline.ts, bench/attack-silent.ts): the server
// under attack (this build, or ATTACK_AGAINST: another build's dist/src/server.js), its RSS from
// /proc, and a heartbeat from an address of its own with a deadline.
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { performance } from 'node:perf_hooks'
import { here, startService, type Server } from './servers.js'

/** The build under attack: ATTACK_AGAINST (another build's dist/src/server.js), or this one. */
export const target = process.env.ATTACK_AGAINST ?? here('../src/server.js')

/** The service at LOG_LEVEL=warn (so that its warnings show), from `target`, with `nodeArgs` and `env`. */
export async function startTarget (nodeArgs: string[], env: Record<string, string> = {}): Promise<Server> {
  return await startService('target', 'warn', env, target, nodeArgs)
}

/** The resident memory of process `pid` in MB (VmRSS, /proc/<pid>/status), or undefined once it is gone. */
export function rssMegabytes (pid: number | undefined): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb === undefined ? undefined : Math.round(Number(kb) / 1024)
  } catch {
    return undefined
  }
}

/**
 * GET /heartbeat on a new connection from `from` (a loopback address): the milliseconds until its
 * status line, or the reason it failed (a reset, a close without an answer, no answer by `deadline`).
 */
export async function heartbeat (url: string, from: string, deadline: number): Promise<{ ms: number, status?: string, failure?: string }> {
  const { hostname, port } = new URL(url)
  const started = performance.now()
  return await new Promise(resolve => {
    const socket = connect({ host: hostname, port: Number(port), localAddress: from })
    let answer = ''
    const done = (result: { status?: string, failure?: string }): void => {
      clearTimeout(timer)
      socket.destroy()
      resolve({ ms: Math.round(performance.now() - started), ...result })
    }
    const timer = setTimeout(() => done({ failure: `no answer within ${deadline} ms` }), deadline)
    socket.setEncoding('latin1')
    socket.on('connect', () => socket.write('GET /heartbeat HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'))
    socket.on('data', (chunk: string) => {
      answer += chunk
      if (answer.includes('\r\n')) done({ status: answer.slice(9, 12) })
    })
    socket.on('error', error => done({ failure: (error as NodeJS.ErrnoException).code ?? error.message }))
    socket.on('close', () => done({ failure: 'closed without an answer' }))
  })
}
