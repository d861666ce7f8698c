// The servers of the bench scripts: each in its own process on 127.0.0.1 (pinned to core 0 when
// BENCH_PIN allows), the sessions they are measured with, and the static requests that rotate over them.
import autocannon from 'autocannon'
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { NOTE } from './note.js'
import { setting } from './settings.js'

export const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url))

function hasTaskset (): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** CPU time (user + system) a process has used, in microseconds; undefined where /proc is absent. */
export function cpuMicros (pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')
    // After the command: state is field 3, utime 14 and stime 15 (proc(5)), in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10_000
  } catch {
    return undefined
  }
}

export interface Server {
  name: string
  url: string
  child: ChildProcess
}

export const running: Server[] = []

async function freePort (): Promise<number> {
  const probe = createServer()
  await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise(resolve => probe.close(resolve))
  return port
}

/**
 * Node flags for every server a bench script starts, service and baselines alike (BENCH_NODE_FLAGS,
 * space-separated; default none): `--max-semi-space-size=64` measures them all with a larger young
 * generation. The load generator is not given them.
 */
export const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(flag => flag !== '')

/**
 * Starts the server script `script` with node on a free port (PORT, HOST) and resolves once it
 * answers HTTP (at LOG_LEVEL=silent the service says nothing, so its output cannot tell).
 */
export async function start (name: string, script: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<Server> {
  const port = await freePort()
  const args = [...nodeFlags, ...nodeArgs, script]
  const [command, argv] = pin ? ['taskset', ['-c', '0', process.execPath, ...args]] : [process.execPath, args]
  const child = spawn(command, argv, { env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'inherit'] })
  const server = { name, url: `http://127.0.0.1:${port}`, child }
  running.push(server)
  let output = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => { output = (output + chunk).slice(-4000) })
  let exited: number | null | undefined
  child.on('exit', code => { exited = code })
  const deadline = Date.now() + 30_000
  for (;;) {
    if (exited !== undefined) throw new Error(`${name} exited with ${exited} before listening:\n${output}`)
    try {
      await (await fetch(`${server.url}/`)).arrayBuffer()
      return server
    } catch {
      if (Date.now() > deadline) throw new Error(`${name} did not answer within 30 s:\n${output}`)
      await new Promise(resolve => setTimeout(resolve, 50))
    }
  }
}

/** The service at `logLevel` (a build's dist/src/server.js): the creation limit off, since all load comes from one address. */
export async function startService (name: string, logLevel: string, env: Record<string, string> = {}, script = here('../src/server.js'), nodeArgs: string[] = []): Promise<Server> {
  return await start(name, script, { LOG_LEVEL: logLevel, CREATION_RATE_LIMIT: '0', ...env }, nodeArgs)
}

export async function stop (server: Server): Promise<void> {
  const at = running.findIndex(known => known.child === server.child)
  if (at !== -1) running.splice(at, 1)
  if (server.child.exitCode !== null || server.child.signalCode !== null) return
  const exited = new Promise(resolve => server.child.once('exit', resolve))
  server.child.kill('SIGTERM')
  await exited
}
export interface Session {
  guid: string
  token: string
}

/** `count` sessions with a token each and the benchmark's note stored, so that a note GET answers NOTE. */
export async function createSessions (url: string, count: number): Promise<Session[]> {
  const sessions: Session[] = []
  for (let i = 0; i < count; i++) {
    const created = await fetch(`${url}/challenger`, { method: 'POST' })
    await created.arrayBuffer()
    const guid = created.headers.get('x-challenger') as string
    const issued = await fetch(`${url}/secret/token`, {
      method: 'POST',
      headers: { 'x-challenger': guid, authorization: 'Basic ' + Buffer.from('admin:password').toString('base64') }
    })
    await issued.arrayBuffer()
    const token = issued.headers.get('x-auth-token')
    if (created.status !== 201 || issued.status !== 201 || token === null) {
      throw new Error(`session set-up failed: ${created.status} ${issued.status}`)
    }
    const noted = await fetch(`${url}/secret/note`, {
      method: 'POST',
      headers: { 'x-challenger': guid, 'x-auth-token': token, 'content-type': 'application/json' },
      body: JSON.stringify({ note: NOTE })
    })
    await noted.arrayBuffer()
    if (noted.status !== 200) throw new Error(`session set-up failed: the note write answered ${noted.status}`)
    sessions.push({ guid, token })
  }
  return sessions
}

/**
 * One request per session, in order: each connection walks the list, so the sessions rotate. The
 * requests are static, so autocannon builds them once and the load generator stays cheap (a
 * per-request callback would make it, not the server, the bottleneck).
 */
export function rotating (method: string, path: string, sessions: Session[], body?: string): autocannon.Request[] {
  return sessions.map(session => ({
    method: method as autocannon.Request['method'],
    path,
    body,
    headers: {
      'x-challenger': session.guid,
      'x-auth-token': session.token,
      ...(body === undefined ? {} : { 'content-type': 'application/json' })
    }
  }))
}

export const noteBody = JSON.stringify({ note: NOTE })

/** Issue 15's four scenarios: name and the requests, over `sessions`, that the service and its baseline both answer. */
export function scenarioRequests (sessions: Session[]): Array<[string, autocannon.Request[]]> {
  return [
    ['GET /heartbeat', rotating('GET', '/heartbeat', sessions)],
    ['POST /secret/note', rotating('POST', '/secret/note', sessions, noteBody)],
    ['GET /secret/note', rotating('GET', '/secret/note', sessions)],
    // Session creation: no X-CHALLENGER; the baseline's POST /challenger is a bare 204.
    ['POST /challenger', [{ method: 'POST', path: '/challenger' }]]
  ]
}

/** Servers on core 0 and the load generator on core 1 (with two or more cores and taskset, unless BENCH_PIN=0). */
export const pin = process.env.BENCH_PIN !== '0' && availableParallelism() >= 2 && hasTaskset()

/** The load generator's event loop never sleeps during a measured load (spinWhile), unless BENCH_SPIN=0. */
export const spinLoad = process.env.BENCH_SPIN !== '0'

/**
 * Runs `work` with the load generator's event loop kept from sleeping: a pending setImmediate makes
 * libuv poll without waiting, so its core never idles. An idle core must be woken by the server's
 * core for each answer, and on a virtual machine that wake-up is an interrupt between virtual CPUs
 * that can cost more than the answer itself: on a PVM guest (2026-11-25; the BENCHMARKS.md of git
 * history, see docs/benchmarks.md) a server a little slower than the load generator woke it for
 * 0.85 to 0.94 of its answers and one a little faster for 0.17 to 0.25, so a small difference in
 * cost became a large one in req/s. Spinning, neither
 * does (no wake-up of the client core counted in /proc/interrupts), and the rounds measure the
 * servers. No callback per request: the load generator's work per answer is unchanged.
 */
export async function spinWhile<T> (spin: boolean, work: () => Promise<T>): Promise<T> {
  if (!spin) return await work()
  let spinning = true
  const turn = (): void => { if (spinning) setImmediate(turn) }
  turn()
  try {
    return await work()
  } finally {
    spinning = false
  }
}

/** The load generator's connections and pipelining, for every measured load (BENCH_CONNECTIONS, BENCH_PIPELINING). */
export const connections = setting('BENCH_CONNECTIONS', 50)
export const pipelining = setting('BENCH_PIPELINING', 1)

export interface Target {
  server: Server
  requests: autocannon.Request[]
  /** false: the load generator does not spin for this target (the Redis row: redis-server needs the CPU). */
  spin?: boolean
}

export interface Round {
  rps: number
  p50: number
  p99: number
  /** Server CPU time per request, in microseconds. */
  cpu: number
}

/** One measured load of `duration` seconds on `target`: its req/s, latency and server CPU time per request. Throws on any failed request. */
export async function round (target: Target, duration: number): Promise<Round> {
  const cpuBefore = cpuMicros(target.server.child.pid)
  const result = await spinWhile(spinLoad && target.spin !== false, async () => await autocannon({
    url: target.server.url,
    connections,
    pipelining,
    duration,
    requests: target.requests
  }))
  const bad = result.errors + result.timeouts + result.non2xx
  if (bad > 0) {
    throw new Error(`${target.server.name} ${target.requests[0]?.method} ${target.requests[0]?.path}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`)
  }
  const cpuAfter = cpuMicros(target.server.child.pid)
  const cpu = cpuBefore === undefined || cpuAfter === undefined ? NaN : (cpuAfter - cpuBefore) / result.requests.total
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpu }
}
