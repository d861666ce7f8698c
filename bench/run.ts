// npm run bench: the service beside bare Fastify, each in its own process on 127.0.0.1, measured in
// alternating rounds (A B A B ...) with the same load, and heap per idle session. It prints figures
// and asserts nothing on timings; it exits non-zero only when a server fails to start or a request
// errors. Settings: BENCH_SECONDS (per round, default 5), BENCH_PAIRS (default 3),
// BENCH_CONNECTIONS (default 50), BENCH_PIPELINING (default 1), BENCH_PIN (default 1: with two or
// more cores and taskset, the servers run on core 0 and the load generator on core 1).
import autocannon from 'autocannon'
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setting } from './settings.js'
import type { MemoryFigure } from './memory.js'

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url))

const seconds = setting('BENCH_SECONDS', 5)
const pairs = setting('BENCH_PAIRS', 3)
const connections = setting('BENCH_CONNECTIONS', 50)
const pipelining = setting('BENCH_PIPELINING', 1)
const pin = process.env.BENCH_PIN !== '0' && availableParallelism() >= 2 && hasTaskset()

function hasTaskset (): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** CPU time (user + system) a process has used, in microseconds; undefined where /proc is absent. */
function cpuMicros (pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')
    // After the command: state is field 3, utime 14 and stime 15 (proc(5)), in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10_000
  } catch {
    return undefined
  }
}

interface Server {
  name: string
  url: string
  child: ChildProcess
}

/** Starts `args` with node and resolves with the URL it reports once it listens. */
async function start (name: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<Server> {
  const [command, argv] = pin ? ['taskset', ['-c', '0', process.execPath, ...args]] : [process.execPath, args]
  const child = spawn(command, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
      const found = ready.exec(output)
      if (found !== null) resolve(found[1] as string)
    })
    child.on('exit', code => reject(new Error(`${name} exited with ${code} before listening:\n${output}`)))
  })
  child.stdout?.resume()
  return { name, url, child }
}

interface Target {
  server: Server
  requests: autocannon.Request[]
}

interface Round {
  rps: number
  p50: number
  p99: number
  /** Server CPU time per request, in microseconds. */
  cpu: number
}

async function round (target: Target, duration: number): Promise<Round> {
  const cpuBefore = cpuMicros(target.server.child.pid)
  const result = await autocannon({
    url: target.server.url,
    connections,
    pipelining,
    duration,
    requests: target.requests
  })
  const bad = result.errors + result.timeouts + result.non2xx
  if (bad > 0) {
    throw new Error(`${target.server.name} ${target.requests[0]?.method} ${target.requests[0]?.path}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`)
  }
  const cpuAfter = cpuMicros(target.server.child.pid)
  const cpu = cpuBefore === undefined || cpuAfter === undefined ? NaN : (cpuAfter - cpuBefore) / result.requests.total
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpu }
}

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] as number : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}

interface Row {
  scenario: string
  target: string
  rps: number
  p50: number
  p99: number
  cpu: number
  ratio?: number
  cpuRatio?: number
}

/** Warm both up, then A B A B ... for `pairs` pairs; the medians of each side. */
async function compare (scenario: string, service: Target, baseline: Target): Promise<Row[]> {
  await round(service, 1)
  await round(baseline, 1)
  const rounds: [Round[], Round[]] = [[], []]
  for (let i = 0; i < pairs; i++) {
    rounds[0].push(await round(service, seconds))
    rounds[1].push(await round(baseline, seconds))
  }
  const [a, b] = rounds.map(list => ({
    rps: median(list.map(r => r.rps)),
    p50: median(list.map(r => r.p50)),
    p99: median(list.map(r => r.p99)),
    cpu: median(list.map(r => r.cpu))
  })) as [Omit<Row, 'scenario' | 'target'>, Omit<Row, 'scenario' | 'target'>]
  return [
    { scenario, target: service.server.name, ...a, ratio: a.rps / b.rps, cpuRatio: b.cpu / a.cpu },
    { scenario, target: baseline.server.name, ...b }
  ]
}

interface Session {
  guid: string
  token: string
}

async function createSessions (url: string, count: number): Promise<Session[]> {
  const sessions: Session[] = []
  for (let i = 0; i < count; i++) {
    const created = await fetch(`${url}/challenger`, { method: 'POST' })
    const guid = created.headers.get('x-challenger') as string
    const issued = await fetch(`${url}/secret/token`, {
      method: 'POST',
      headers: { 'x-challenger': guid, authorization: 'Basic ' + Buffer.from('admin:password').toString('base64') }
    })
    const token = issued.headers.get('x-auth-token')
    if (created.status !== 201 || issued.status !== 201 || token === null) {
      throw new Error(`session set-up failed: ${created.status} ${issued.status}`)
    }
    sessions.push({ guid, token })
  }
  return sessions
}

/**
 * One request per session, in order: each connection walks the list, so the sessions rotate. The
 * requests are static, so autocannon builds them once and the load generator stays cheap (a
 * per-request callback would make it, not the server, the bottleneck).
 */
function rotating (method: string, path: string, sessions: Session[], body?: string): autocannon.Request[] {
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

async function memory (): Promise<string> {
  const child = spawn(process.execPath, ['--expose-gc', here('./memory.js')], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  const code = await new Promise(resolve => child.on('exit', resolve))
  if (code !== 0) throw new Error(`memory measurement exited with ${code}`)
  return output.trim()
}

function format (rows: Row[]): string {
  const head = ['scenario', 'target', 'req/s (median)', 'p50 ms', 'p99 ms', 'ratio req/s', 'server CPU µs/req', 'ratio CPU']
  const body = rows.map(r => [
    r.scenario, r.target, r.rps.toFixed(0), r.p50.toFixed(0), r.p99.toFixed(0), r.ratio?.toFixed(3) ?? '',
    r.cpu.toFixed(1), r.cpuRatio?.toFixed(3) ?? ''
  ])
  const widths = head.map((h, i) => Math.max(h.length, ...body.map(cells => (cells[i] as string).length)))
  const line = (cells: string[]): string => '| ' + cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ') + ' |'
  return [line(head), '|' + widths.map(w => '-'.repeat(w + 2)).join('|') + '|', ...body.map(line)].join('\n')
}

const servers: Server[] = []
try {
  if (pin) execFileSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
  process.stdout.write(`node ${process.version}, ${seconds} s rounds, ${pairs} pairs, ${connections} connections, pipelining ${pipelining}, ` +
    (pin ? 'servers on core 0, load on core 1\n' : 'not pinned\n'))
  // The service exactly as `npm start` runs it (its build), at LOG_LEVEL=info: no line per request.
  // All load comes from one address, so the per-address creation limit is off; the session cap
  // (MAX_SESSIONS, 100,000) stays, so scenario 4 also pays for evicting the least recently used.
  const service = await start('service', [here('../src/server.js')], { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', CREATION_RATE_LIMIT: '0' }, /ready: curl -i -X POST (http:\/\/[^/]+)\/challenger/)
  servers.push(service)
  const fastify = await start('bare fastify', [here('./baseline-fastify.js')], {}, /bench-ready (\S+)/)
  servers.push(fastify)
  const floor = await start('bare node:http', [here('./baseline-http.js')], {}, /bench-ready (\S+)/)
  servers.push(floor)

  const sessions = await createSessions(service.url, 200)
  // The same service with its sessions in Redis, when Debian's redis-server is installed.
  let redisService: Server | undefined
  let redisSessions: Session[] | undefined
  if (spawnSync('redis-server', ['--version']).status === 0) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'))
    const redisPort = 20000 + Math.floor(Math.random() * 20000)
    const redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes'], { stdio: ['ignore', 'pipe', 'inherit'] })
    servers.push({ name: 'redis', url: '', child: redis })
    await new Promise<void>((resolve, reject) => {
      let out = ''
      redis.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; if (out.includes('Ready to accept')) resolve() })
      redis.on('exit', code => reject(new Error(`redis-server exited with ${code}`)))
    })
    redis.stdout.resume()
    redisService = await start('service + Redis', [here('../src/server.js')],
      { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', CREATION_RATE_LIMIT: '0', REDIS_URL: `redis://127.0.0.1:${redisPort}` },
      /ready: curl -i -X POST (http:\/\/[^/]+)\/challenger/)
    servers.push(redisService)
    redisSessions = await createSessions(redisService.url, 200)
  } else {
    process.stdout.write('redis-server is not installed: the Redis scenario is left out\n')
  }
  const note = JSON.stringify({ note: 'a note written by the benchmark, short of the 100 character limit' })
  const rows: Row[] = []
  // BENCH_AGAINST=<another build's dist/src/server.js>: this build against that one, scenario by
  // scenario, in the same run (a change's before and after), and nothing else.
  const against = process.env.BENCH_AGAINST
  if (against !== undefined && against !== '') {
    const earlier = await start('earlier build', [against], { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', CREATION_RATE_LIMIT: '0' }, /ready: curl -i -X POST (http:\/\/[^/]+)\/challenger/)
    servers.push(earlier)
    const earlierSessions = await createSessions(earlier.url, 200)
    for (const [scenario, method, path, body] of [['GET /heartbeat', 'GET', '/heartbeat'], ['POST /secret/note', 'POST', '/secret/note', note], ['GET /secret/note', 'GET', '/secret/note'], ['POST /challenger', 'POST', '/challenger']] as const) {
      rows.push(...await compare(scenario,
        { server: service, requests: rotating(method, path, sessions, body) },
        { server: earlier, requests: rotating(method, path, earlierSessions, body) }))
    }
    process.stdout.write('\n' + format(rows) + '\n')
  } else {
    rows.push(...await compare('1. GET /heartbeat',
      { server: service, requests: rotating('GET', '/heartbeat', sessions) },
      { server: fastify, requests: rotating('GET', '/204', sessions) }))
    rows.push(...await compare('1b. GET /heartbeat',
      { server: service, requests: rotating('GET', '/heartbeat', sessions) },
      { server: { ...fastify, name: 'fastify + headers' }, requests: rotating('GET', '/headers/204', sessions) }))
    rows.push(...await compare('2. POST /secret/note',
      { server: service, requests: rotating('POST', '/secret/note', sessions, note) },
      { server: fastify, requests: rotating('POST', '/note', sessions, note) }))
    if (redisSessions !== undefined && redisService !== undefined) {
      rows.push(...await compare('2r. POST /secret/note, Redis',
        { server: redisService, requests: rotating('POST', '/secret/note', redisSessions, note) },
        { server: service, requests: rotating('POST', '/secret/note', sessions, note) }))
    }
    rows.push(...await compare('3. GET /secret/note',
      { server: service, requests: rotating('GET', '/secret/note', sessions) },
      { server: fastify, requests: rotating('GET', '/204', sessions) }))
    rows.push(...await compare('4. POST /challenger',
      { server: service, requests: [{ method: 'POST', path: '/challenger' }] },
      { server: fastify, requests: [{ method: 'GET', path: '/204' }] }))
    rows.push(...await compare('floor: GET 204',
      { server: fastify, requests: rotating('GET', '/204', sessions) },
      { server: floor, requests: rotating('GET', '/', sessions) }))
    process.stdout.write('\n' + format(rows) + '\n')
    process.stdout.write('ratio req/s: service req/s over baseline req/s. ratio CPU: baseline server CPU per request over\n' +
      'the service\'s (1.0 = costs the same). 1b compares with a bare route that sets only the headers every\n' +
      'answer of the service must carry (@fastify/cors, Access-Control-Allow-Headers, the X-Challenger echo).\n' +
      'The floor row compares bare Fastify with bare node:http.\n\n')

    const figures = JSON.parse(await memory()) as MemoryFigure[]
    process.stdout.write('| sessions | heap bytes per idle session | with a 100-character note | expiry µs per session | bytes per session after expiry |\n|---|---|---|---|---|\n')
    for (const f of figures) {
      process.stdout.write(`| ${f.sessions} | ${f.bytesPerSession} | ${f.bytesPerSessionWithNote} | ${f.expiryMicrosPerSession} | ${f.bytesPerSessionAfterExpiry} |\n`)
    }
  }
} catch (error) {
  process.stderr.write(`bench: ${(error as Error).message}\n`)
  process.exitCode = 1
} finally {
  for (const server of servers) server.child.kill('SIGTERM')
}
