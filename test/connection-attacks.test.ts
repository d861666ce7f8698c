// Attacks at the level of the connection, made with real sockets from real loopback addresses
// (issue 34): pipelined requests whose answers are never read, connections that never speak, and a
// malformed request that would overtake the answer before it. The full-size attacks: bench/attack-*.ts.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { once } from 'node:events'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ServerConfig } from '../src/domain/config/config.js'
import { createServer } from '../src/server.js'
import { newSession } from './helper.js'

const quiet = { port: 0, host: '127.0.0.1', logLevel: 'silent', app: {} } satisfies ServerConfig
// No test may depend on the machine's speed. A close "at once" is told from a close by a timeout
// with the timeout set FAR out of reach, and AT_ONCE, a bound no load reaches, far below it.
const FAR = 60_000
const AT_ONCE = 10_000
const HEARTBEAT = 'GET /heartbeat HTTP/1.1\r\nHost: x\r\n\r\n'

/** The server of `config`, listening on a free port, closed on teardown; `closes` resolves as its side of each connection closes. */
async function listening (t: Test, config: Partial<ServerConfig> = {}) {
  const app = createServer({ ...quiet, ...config })
  t.teardown(() => app.close())
  const closes: Array<Promise<number>> = []
  app.server.on('connection', (socket: Socket) => {
    closes.push(once(socket, 'close').then(() => performance.now()))
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, port: (app.server.address() as AddressInfo).port, closes }
}

/** A connection from `from`, once established: everything the server writes, and `closed` with all of it. */
async function connection (port: number, from: string) {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from })
  socket.setEncoding('latin1')
  let answer = ''
  socket.on('data', (chunk: string) => { answer += chunk })
  socket.on('error', () => {})
  const closed = once(socket, 'close').then(() => answer)
  await once(socket, 'connect')
  return { socket, closed, answer: () => answer }
}

/** GET /heartbeat from `from` on a new connection: its status line, or '' when closed unanswered. */
async function heartbeat (port: number, from: string): Promise<string> {
  const { socket, closed } = await connection(port, from)
  socket.end('GET /heartbeat HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
  return (await closed).split('\r\n')[0] as string
}

/** The answers in `raw`, in order: status line and body of each, then what follows the last. */
function answers (raw: string): { answers: Array<{ status: string, body: string }>, rest: string } {
  const found: Array<{ status: string, body: string }> = []
  let rest = raw
  for (;;) {
    const end = rest.indexOf('\r\n\r\n')
    if (!rest.startsWith('HTTP/1.1 ') || end === -1) return { answers: found, rest }
    const head = rest.slice(0, end)
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0)
    found.push({ status: head.slice(9, 12), body: rest.slice(end + 4, end + 4 + length) })
    rest = rest.slice(end + 4 + length)
  }
}

/** What `promise` resolves to, or undefined when it has not within `ms` (on the code before issue 34, these attacks hang). */
async function within<T> (promise: Promise<T>, ms: number): Promise<T | undefined> {
  const waiting = new AbortController()
  const late = sleep(ms, undefined, { signal: waiting.signal }).catch(() => undefined)
  try {
    return await Promise.race([promise, late])
  } finally {
    waiting.abort()
  }
}

/** Resolves once the server has accepted `count` connections. */
async function accepted (closes: unknown[], count: number): Promise<void> {
  while (closes.length < count) await new Promise(resolve => setImmediate(resolve))
}

t.test('pipelined GET /challenges never read, 64 KiB at a time on 8 connections: each is closed, memory stays put, others are served', async t => {
  // Long before drainTimeout: the pipelining bound closes them.
  const { port, closes } = await listening(t, { drainTimeout: FAR })
  const burst = Buffer.from('GET /challenges HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(1700))
  const before = process.memoryUsage.rss()
  let most = before
  let attacking = true
  const attackers: Socket[] = []
  for (let i = 0; i < 8; i++) {
    const socket = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.2' })
    socket.pause()
    socket.on('error', () => {})
    const send = (): void => {
      let more = true
      while (more) more = attacking && socket.write(burst)
    }
    socket.on('connect', send)
    socket.on('drain', send)
    attackers.push(socket)
  }
  t.teardown(() => { for (const socket of attackers) socket.destroy() })
  const started = performance.now()
  await accepted(closes, 8)
  const closedAt = await within(Promise.all(closes.slice(0, 8)), AT_ONCE)
  for (let i = 0; i < 10; i++) {
    most = Math.max(most, process.memoryUsage.rss())
    await sleep(50)
  }
  attacking = false
  t.ok(closedAt !== undefined, `every attacking connection closed by the server, the last after ${closedAt === undefined ? `more than ${AT_ONCE}` : Math.round(Math.max(...closedAt) - started)} ms`)
  t.ok(most - before < 64e6, `RSS grew by ${Math.round((most - before) / 1e6)} MB (bare Node: 8.6 MB of answers per 64 KiB read, per connection)`)
  t.match(await heartbeat(port, '127.0.0.3'), /^HTTP\/1\.1 204 /, 'another client is served')
})

t.test('a client that pipelines past 32 requests and stops gets the first 32 answers, then the connection closes', async t => {
  const { port } = await listening(t)
  const { socket, closed } = await connection(port, '127.0.0.2')
  socket.write(HEARTBEAT.repeat(40))
  const { answers: got, rest } = answers(await within(closed, AT_ONCE) ?? 'not closed')
  t.equal(got.length, 32, 'the answers within the bound, whole')
  t.ok(got.every(answer => answer.status === '204'))
  t.equal(rest, '', 'then nothing: the client retries the rest (RFC 9112 §9.3.2)')
  const { socket: fine, closed: fineClosed } = await connection(port, '127.0.0.2')
  fine.end(HEARTBEAT.repeat(31) + 'GET /heartbeat HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
  t.equal(answers(await fineClosed).answers.length, 32, '32 pipelined requests are all answered')
})

t.test('a client that keeps pipelining is refused new connections for abuserTimeout; other clients are not', async t => {
  // Its refusal lasts abuserTimeout: long enough that the refused connection below comes within
  // it on a loaded machine, short enough to wait out.
  const ABUSER_TIMEOUT = 3_000
  const { app, port } = await listening(t, { abuserTimeout: ABUSER_TIMEOUT, firstHeadTimeout: FAR })
  const said: string[] = []
  app.log.warn = ((_fields: unknown, message: string) => { said.push(message) }) as typeof app.log.warn
  const { socket, closed } = await connection(port, '127.0.0.2')
  // Never read: its answers stay with the server.
  socket.pause()
  socket.write(HEARTBEAT.repeat(64))
  const silent = await connection(port, '127.0.0.2')
  socket.resume()
  t.ok(answers(await within(closed, AT_ONCE) ?? 'not closed').answers.length < 32, 'closed at once, before the answers within the bound are out')
  t.equal(await within(silent.closed, AT_ONCE), '', 'its connection that had not spoken yet is closed too')
  const refusedAt = performance.now()
  t.equal(await heartbeat(port, '127.0.0.2'), '', 'a new connection of that client is closed unanswered')
  t.match(await heartbeat(port, '127.0.0.3'), /^HTTP\/1\.1 204 /, 'another client is served')
  // Measured here, after the server refused it: by then its refusal is over.
  await sleep(ABUSER_TIMEOUT - (performance.now() - refusedAt))
  t.match(await heartbeat(port, '127.0.0.2'), /^HTTP\/1\.1 204 /, 'after abuserTimeout, that client is served again')
  t.same(said, ['127.0.0.2 kept pipelining requests without reading the answers: its connection is closed and its new ones refused for a while; this is said only once'])
})

t.test('answers a client does not read: closed past maxUnsentBytes, or after drainTimeout without progress', async t => {
  // Answers of 1.5 MB, streamed (held a little at a time): three fill the kernel's buffers.
  const bundle = 'GET /docs/static/swagger-ui-bundle.js HTTP/1.1\r\nHost: x\r\n\r\n'
  // Answers of 71 KB, held whole while they wait their turn.
  const spec = 'GET /docs/json HTTP/1.1\r\nHost: x\r\n\r\n'
  const cases = [
    [{ drainTimeout: FAR }, bundle.repeat(3) + spec.repeat(29), 'past maxUnsentBytes (256 KiB), long before drainTimeout', 0],
    [{ maxUnsentBytes: 1e9, drainTimeout: 400 }, bundle.repeat(8), 'after drainTimeout', 400]
  ] as const
  for (const [limits, requests, what, earliest] of cases) {
    const { port, closes } = await listening(t, limits)
    const { socket } = await connection(port, '127.0.0.2')
    socket.pause()
    const started = performance.now()
    socket.write(requests)
    await accepted(closes, 1)
    const took = ((await within(closes[0] as Promise<number>, AT_ONCE)) ?? Infinity) - started
    t.ok(took >= earliest && took < AT_ONCE, `${what}: closed after ${Math.round(took)} ms`)
    socket.destroy()
  }
})

t.test('silent connections from 45 addresses fill MAX_CONNECTIONS=50: 20 heartbeats from another address all get 204 at once, without waiting for a silent one to time out', async t => {
  const { app, port } = await listening(t, { maxConnections: 50, maxConnectionsPerClient: 1000, firstHeadTimeout: FAR })
  const said: string[] = []
  app.log.warn = ((_fields: unknown, message: string) => { said.push(message) }) as typeof app.log.warn
  const silent: Socket[] = []
  t.teardown(() => { for (const socket of silent) socket.destroy() })
  for (let address = 2; address <= 46; address++) {
    for (let i = 0; i < 3; i++) silent.push((await connection(port, `127.0.0.${address}`)).socket)
  }
  const started = performance.now()
  const statuses = await Promise.all(Array.from({ length: 20 }, async () => await heartbeat(port, '127.0.0.100')))
  const took = performance.now() - started
  t.same(statuses, new Array(20).fill('HTTP/1.1 204 No Content'))
  t.ok(took < AT_ONCE, `all answered after ${Math.round(took)} ms`)
  t.same(said, ['MAX_CONNECTIONS (50) reached: each new connection closes the oldest idle one, and is itself closed at once while every connection is busy; this is said only once'])
})

t.test('at MAX_CONNECTIONS a silent connection makes room first, then an idle one; a busy one never; all busy: the new one is refused', async t => {
  const { port } = await listening(t, { maxConnections: 3, maxConnectionsPerClient: 0, firstHeadTimeout: FAR, keepAliveTimeout: FAR })
  const until = async (done: () => boolean): Promise<void> => {
    while (!done()) await new Promise(resolve => setImmediate(resolve))
  }
  // Idle: it has had an answer and waits on keep-alive.
  const idle = await connection(port, '127.0.0.2')
  idle.socket.write(HEARTBEAT)
  await until(() => idle.answer().includes('\r\n\r\n'))
  // Busy: its request is in flight, its body not sent yet (the server's 100 Continue says it has the head).
  const body = '{"note":"busy"}'
  const note = `POST /secret/note HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
  const busyConnection = async (from: string) => {
    const busy = await connection(port, from)
    busy.socket.write(note)
    await until(() => busy.answer().startsWith('HTTP/1.1 100 Continue\r\n\r\n') || busy.socket.destroyed)
    return busy
  }
  const busy = await busyConnection('127.0.0.3')
  const silent = await connection(port, '127.0.0.4')
  const second = await busyConnection('127.0.0.5')
  t.equal(await within(silent.closed, AT_ONCE), '', 'the silent one made room, at once')
  const third = await busyConnection('127.0.0.6')
  t.match(await within(idle.closed, AT_ONCE), /^HTTP\/1\.1 204 /, 'then the idle one (after its answer), at once')
  t.equal(await heartbeat(port, '127.0.0.7'), '', 'every connection busy: the new one is refused')
  busy.socket.end(body)
  t.match(await busy.closed, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 401 /, 'the busy one was never closed: its request is answered')
  t.match(await heartbeat(port, '127.0.0.7'), /^HTTP\/1\.1 204 /)
  second.socket.destroy()
  third.socket.destroy()
})

t.test('a new connection gets firstHeadTimeout for its first head: silent, it is closed without a word; half a head gets 408', async t => {
  // Node's own header timeout out of reach: the 408 is firstHeadTimeout's.
  const { port } = await listening(t, { firstHeadTimeout: 300, headersTimeout: FAR, requestTimeout: 2 * FAR, keepAliveTimeout: FAR })
  let started = performance.now()
  const silent = await connection(port, '127.0.0.2')
  t.equal(await within(silent.closed, AT_ONCE), '')
  let took = performance.now() - started
  t.ok(took >= 300 && took < AT_ONCE, `closed after ${Math.round(took)} ms`)
  started = performance.now()
  const half = await connection(port, '127.0.0.2')
  half.socket.write('GET /heartbeat HTTP/1.1\r\nHost: x\r\n')
  t.match(await within(half.closed, AT_ONCE), /^HTTP\/1\.1 408 Request Timeout\r\n/)
  took = performance.now() - started
  t.ok(took >= 300 && took < AT_ONCE, `408 after ${Math.round(took)} ms`)
  const spoke = await connection(port, '127.0.0.2')
  spoke.socket.write(HEARTBEAT)
  await sleep(600)
  spoke.socket.end(HEARTBEAT)
  t.equal(answers(await spoke.closed).answers.length, 2, 'a connection that has spoken keeps the later heads\' timeout')
})

t.test('GET /challenges with a malformed request after it in one packet: the 200 whole, then the 400, then the close', async t => {
  const { port } = await listening(t)
  for (const garbage of ['NONSENSE\r\n\r\n', 'get / HTTP/1.1\r\n\r\n', 'GET / HTTP/1.1\r\nBad Header\r\n\r\n']) {
    const { socket, closed } = await connection(port, '127.0.0.2')
    socket.write('GET /challenges HTTP/1.1\r\nHost: x\r\n\r\n' + garbage)
    const { answers: got, rest } = answers(await closed)
    t.same(got.map(answer => answer.status), ['200', '400'], JSON.stringify(garbage))
    t.equal(JSON.parse(got[0]?.body as string).challenges.length > 0, true, 'the 200 is whole')
    t.same(JSON.parse(got[1]?.body as string), { errorMessages: ['Malformed HTTP request'] })
    t.equal(rest, '')
  }
  const { socket, closed } = await connection(port, '127.0.0.2')
  socket.write(HEARTBEAT + 'GET /challenges HTTP/1.1\r\nHost: x\r\n\r\n' + HEARTBEAT + 'NONSENSE\r\n\r\n')
  t.same(answers(await closed).answers.map(answer => answer.status), ['204', '200', '204', '400'], 'three answers, in order, then the 400')
})

t.test('POST /secret/note with a malformed request after it in one packet: the note is stored and answered, then the 400', async t => {
  const { app, port } = await listening(t)
  const { guid, token } = await newSession(app as FastifyInstance)
  const body = '{"note":"kept"}'
  const { socket, closed } = await connection(port, '127.0.0.2')
  socket.write(`POST /secret/note HTTP/1.1\r\nHost: x\r\nX-CHALLENGER: ${guid}\r\nX-AUTH-TOKEN: ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` + '\x00\x01garbage\r\n\r\n')
  const { answers: got } = answers(await closed)
  t.same(got.map(answer => answer.status), ['200', '400'])
  t.same(JSON.parse(got[0]?.body as string), { note: 'kept' })
  const stored = await app.inject({ method: 'GET', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token } })
  t.same(stored.json(), { note: 'kept' })
})
