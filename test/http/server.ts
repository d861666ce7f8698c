// What only a socket shows: raw methods, parser errors, connection limits, timeouts, proxies, and
// start-up in this process (the server as a process of its own: test/process.test.ts).
import t from 'tap'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { EventEmitter, once } from 'node:events'
import { connect, createServer as createNetServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { clientErrorHandler } from '../../src/server-options.js'
import type { ServerConfig } from '../../src/domain/config/config.js'
import { connectionsCheckingInterval, createServer, listenFailure, loggerOptions, logClosing, main, OneLinePerRequest, REPEATED_SIGNAL_MS, shutdownSignals, startupMessage, watchParent } from '../../src/server.js'
import { begun, listenerClosed } from '../sockets.js'

/** Sends `raw` on a new connection and resolves with everything the server wrote back. */
async function rawRequest (port: number, raw: string): Promise<string> {
  return await begun(port, raw).finish('')
}

function statusLine (answer: string): string | undefined {
  return answer.split('\r\n')[0]
}

function bodyOf (answer: string): string {
  return answer.slice(answer.indexOf('\r\n\r\n') + 4)
}

/** Runs `start` with stderr captured. */
async function stderrOf<T> (start: () => Promise<T>): Promise<[T, string]> {
  const write = process.stderr.write
  let text = ''
  process.stderr.write = ((chunk: string) => { text += chunk; return true }) as typeof write
  try {
    return [await start(), text]
  } finally {
    process.stderr.write = write
  }
}

t.test('on a real listener', async t => {
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: {} })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as AddressInfo).port

  t.test('TRACE /heartbeat is 501 text/html', async t => {
    const answer = await rawRequest(port, 'TRACE /heartbeat HTTP/1.1\r\nHost: x\r\nX-CHALLENGER: abc\r\nConnection: close\r\n\r\n')
    t.equal(statusLine(answer), 'HTTP/1.1 501 Not Implemented')
    t.match(answer, /\r\nContent-Type: text\/html;charset=utf-8\r\n/)
    t.match(answer, /\r\nX-Challenger: abc\r\n/)
  })

  t.test('PROPFIND and other odd methods are 405 with Allow', async t => {
    for (const method of ['PROPFIND', 'MKCOL', 'QUERY', 'UNLOCK']) {
      const answer = await rawRequest(port, `${method} /heartbeat HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
      t.equal(statusLine(answer), 'HTTP/1.1 405 Method Not Allowed', method)
      t.match(answer, /\r\nAllow: GET, HEAD, OPTIONS, PATCH, TRACE\r\n/)
    }
    const note = await rawRequest(port, 'PROPFIND /secret/note HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    t.equal(statusLine(note), 'HTTP/1.1 405 Method Not Allowed')
    t.same(JSON.parse(bodyOf(note)), { errorMessages: ['PROPFIND is not allowed on /secret/note; allowed: GET, HEAD, POST, OPTIONS'] })
  })

  t.test('a request Node\'s parser refuses is 400 with the error body', async t => {
    for (const raw of ['get /heartbeat HTTP/1.1\r\nHost: x\r\n\r\n', 'NONSENSE\r\n\r\n', 'GET /heartbeat HTTP/1.1\r\nBad Header\r\n\r\n']) {
      const answer = await rawRequest(port, raw)
      t.equal(statusLine(answer), 'HTTP/1.1 400 Bad Request', JSON.stringify(raw))
      t.match(answer, /\r\nAccess-Control-Allow-Origin: \*\r\n/)
      t.same(JSON.parse(bodyOf(answer)), { errorMessages: ['Malformed HTTP request'] })
    }
  })

  t.test('headers over Node\'s size limit are 431 with the error body', async t => {
    const answer = await rawRequest(port, `GET /heartbeat HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    t.equal(statusLine(answer), 'HTTP/1.1 431 Request Header Fields Too Large')
    t.same(JSON.parse(bodyOf(answer)), { errorMessages: ['The request headers are larger than the server accepts'] })
  })

  t.test('an HTTP/1.1 request without Host is 400 with the echo and the error body; HTTP/1.0 needs none', async t => {
    const answer = await rawRequest(port, 'GET /heartbeat HTTP/1.1\r\nX-CHALLENGER: abc\r\nConnection: close\r\n\r\n')
    t.equal(statusLine(answer), 'HTTP/1.1 400 Bad Request')
    t.match(answer, /\r\nX-Challenger: abc\r\n/)
    t.match(answer, /\r\nAccess-Control-Allow-Origin: \*\r\n/)
    t.same(JSON.parse(bodyOf(answer)), { errorMessages: ['An HTTP/1.1 request needs a Host header'] })
    const old = await rawRequest(port, 'GET /heartbeat HTTP/1.0\r\n\r\n')
    t.equal(statusLine(old), 'HTTP/1.1 204 No Content')
  })

  t.test('CONNECT is refused without harm', async t => {
    const answer = await rawRequest(port, 'CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: x\r\n\r\n')
    t.notMatch(answer, /^HTTP\/1.1 2/)
    const after = await fetch(`http://127.0.0.1:${port}/heartbeat`)
    t.equal(after.status, 204)
  })
})

t.test('main starts from the environment and refuses a bad setting', async t => {
  const app = await main({ PORT: '0', LOG_LEVEL: 'silent' })
  t.ok(app)
  t.teardown(() => app?.close())
  const port = (app?.server.address() as AddressInfo).port
  const res = await fetch(`http://127.0.0.1:${port}/heartbeat`)
  t.equal(res.status, 204)
  t.same(await stderrOf(() => main({ PORT: 'abc' })), [undefined, 'api-challenges: PORT must be a whole number from 0 to 65535, got "abc"\n'])
  await t.rejects(main({ PORT: '0', LOG_LEVEL: 'silent', AUTH_USERNAME: undefined, NOTE_MAX_LENGTH: undefined, get BODY_LIMIT (): string { throw new Error('boom') } }), /boom/, 'an unexpected error is not swallowed')
})

t.test('the start-up message names the docs, mode and store as set, and never a Redis password', async t => {
  const config = (app: ServerConfig['app']): ServerConfig => ({ port: 0, host: '127.0.0.1', logLevel: 'info', app })
  const [fields, message] = startupMessage('http://127.0.0.1:3001', config({ docs: false, mode: 'single', redisUrl: 'redis://:s3cret@cache:6379/2', redisKeyPrefix: 'course-a:' }))
  t.same(fields, {
    address: 'http://127.0.0.1:3001',
    landingPage: 'http://127.0.0.1:3001/',
    docs: 'off (DOCS=false)',
    mode: 'single-player (one session for every request)',
    store: 'Redis at cache:6379, keys course-a:*',
    board: 'off (no ADMIN_TOKEN)'
  })
  t.equal(message, 'API Challenges practice target ready: curl -i -X POST http://127.0.0.1:3001/challenger')
  t.equal(startupMessage('http://[::1]:3000', config({ redisUrl: 'rediss://cache' }))[0].store, 'Redis at cache, keys api-challenges:*')
  const [board] = startupMessage('http://[::1]:3000', config({ adminToken: 'instructor-token-0123456789' }))
  t.equal(board.board, 'http://[::1]:3000/admin', 'the board\'s page, never the token')
  t.notMatch(JSON.stringify(board), /instructor-token/)
})

t.test('the client error handler answers what it can and drops what it cannot', async t => {
  const socket = (writable: boolean) => {
    const seen = { written: '', destroyed: false }
    return {
      seen,
      socket: { writable, end: (data: string) => { seen.written += data }, destroy: () => { seen.destroyed = true } } as never
    }
  }
  const reset = socket(true)
  clientErrorHandler(Object.assign(new Error('reset'), { code: 'ECONNRESET' }), reset.socket)
  t.same(reset.seen, { written: '', destroyed: true })
  const gone = socket(false)
  clientErrorHandler(Object.assign(new Error('parse'), { code: 'HPE_INVALID_METHOD' }), gone.socket)
  t.same(gone.seen, { written: '', destroyed: true })
  const slow = socket(true)
  clientErrorHandler(Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), slow.socket)
  t.match(slow.seen.written, /^HTTP\/1.1 408 Request Timeout\r\n[^]*\r\n\r\n{"errorMessages":\["The request took too long to arrive"\]}$/)
  const plain = socket(true)
  clientErrorHandler(new Error('no code'), plain.socket)
  t.match(plain.seen.written, /^HTTP\/1.1 400 Bad Request\r\n/)
})

t.test('the client error handler answers after the answers in flight, once, and never after half an answer', async t => {
  // An answer Node is writing (socket._httpMessage) to a request that arrived whole, or not.
  const answer = (complete: boolean, headersSent = false) => Object.assign(new EventEmitter(), { writableEnded: false, headersSent, req: { complete } })
  const connection = (current: ReturnType<typeof answer>) => {
    const seen = { written: '', destroyed: false }
    const socket = { writable: true, _httpMessage: current as ReturnType<typeof answer> | null, end: (data: string) => { seen.written += data }, destroy: () => { seen.destroyed = true } }
    return { seen, socket }
  }
  const parseError = Object.assign(new Error('parse'), { code: 'HPE_INVALID_METHOD' })
  const [first, second] = [answer(true), answer(true)]
  const pipelined = connection(first)
  clientErrorHandler(parseError, pipelined.socket as never)
  clientErrorHandler(parseError, pipelined.socket as never)
  t.same(pipelined.seen, { written: '', destroyed: false }, 'nothing while an answer is in flight, whatever the parser says again')
  // Node hands the socket to the next answer in its own 'finish' listener, before this one.
  pipelined.socket._httpMessage = second
  first.emit('finish')
  t.equal(pipelined.seen.written, '', 'nor while the next one is')
  pipelined.socket._httpMessage = null
  second.emit('finish')
  t.match(pipelined.seen.written, /^HTTP\/1.1 400 Bad Request\r\n/)
  t.equal(pipelined.seen.written.split('HTTP/1.1').length, 2, 'one 400')

  const cutShort = connection(answer(false))
  clientErrorHandler(parseError, cutShort.socket as never)
  t.match(cutShort.seen.written, /^HTTP\/1.1 400 /, 'the answer in flight is to the request the error cut short: the 400 is its answer')
  const halfSent = connection(answer(false, true))
  clientErrorHandler(parseError, halfSent.socket as never)
  t.same(halfSent.seen, { written: '', destroyed: true }, 'half of its answer is out: closed')
  const gone = answer(true)
  const closedMeanwhile = connection(gone)
  clientErrorHandler(parseError, closedMeanwhile.socket as never)
  closedMeanwhile.socket.writable = false
  closedMeanwhile.socket._httpMessage = null
  gone.emit('finish')
  t.same(closedMeanwhile.seen, { written: '', destroyed: true }, 'closed while the answers went out: nothing to write')
})

t.test('an X-CHALLENGER over 100 characters is 431 on every path, before routing, bodies and 404', async t => {
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: {} })
  t.teardown(() => app.close())
  const long = 'x'.repeat(101)
  const requests: Array<[string, string, Record<string, string>, string?]> = [
    ['GET', '/heartbeat', {}],
    ['PATCH', '/heartbeat', {}],
    ['GET', '/nowhere', {}],
    ['POST', '/secret/note', { 'content-type': 'application/json' }, '{broken'],
    ['POST', '/secret/note', { 'content-type': 'text/plain' }, 'x'.repeat(20_000)],
    ['POST', '/challenger', {}],
    ['GET', '/%zz', {}],
    ['OPTIONS', '/secret/note', {}]
  ]
  for (const [method, url, headers, payload] of requests) {
    const res = await app.inject({ method: method as 'GET', url, headers: { ...headers, 'x-challenger': long }, payload })
    t.equal(res.statusCode, 431, `${method} ${url}`)
    t.same(res.json(), { errorMessages: ['X-CHALLENGER header is too large, maximum allowed is 100 characters'] })
    t.equal(res.headers['x-challenger'], undefined, 'not echoed')
  }
  const exactly = await app.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': 'x'.repeat(100) } })
  t.equal(exactly.statusCode, 204, '100 characters are fine')
})

t.test('while closing, requests still on open connections get Connection: close, the heartbeat 503', async t => {
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: {} })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as AddressInfo).port
  const heartbeat = begun(port, 'GET /heartbeat HTTP/1.1\r\nHost: x\r\n')
  const refused = begun(port, 'GET /nowhere HTTP/1.1\r\nHost: x\r\n')
  // Both requests have begun (their first bytes are in) once a later request has its answer.
  t.equal((await fetch(`http://127.0.0.1:${port}/heartbeat`)).status, 204)
  const closed = app.close()
  await listenerClosed(port)
  const beat = await heartbeat.finish('\r\n')
  t.match(beat, /^HTTP\/1\.1 503 Service Unavailable\r\n/)
  t.match(beat, /\r\nconnection: close\r\n/i)
  const missing = await refused.finish('\r\n')
  t.match(missing, /^HTTP\/1\.1 404 Not Found\r\n/)
  t.match(missing, /\r\nconnection: close\r\n/i)
  await closed
})

const quiet = { port: 0, host: '127.0.0.1', logLevel: 'silent', app: {} } satisfies ServerConfig
const HEARTBEAT = 'GET /heartbeat HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'

/** A connection from `from` (another loopback address is another client), once it is established. */
async function connection (port: number, from: string) {
  const socket: Socket = connect({ port, host: '127.0.0.1', localAddress: from })
  socket.setEncoding('utf8')
  let answer = ''
  socket.on('data', (chunk: string) => { answer += chunk })
  socket.on('error', () => {})
  // Everything the server wrote, once the connection has closed.
  const closed = once(socket, 'close').then(() => answer)
  await once(socket, 'connect')
  return { socket, closed }
}

async function heartbeatFrom (port: number, from: string): Promise<string> {
  const { socket, closed } = await connection(port, from)
  socket.write(HEARTBEAT)
  return await closed
}

/** Resolves once the server counts `count` open connections (a client's close reaches it a moment later). */
async function openConnections (app: ReturnType<typeof createServer>, count: number): Promise<void> {
  const open = async () => await new Promise<number>(resolve => app.server.getConnections((_error, n) => resolve(n)))
  while (await open() !== count) await nextTurn()
}

/** The warnings the server logs, whatever its level. */
function warnings (app: ReturnType<typeof createServer>): string[] {
  const said: string[] = []
  app.log.warn = ((_fields: unknown, message: string) => { said.push(message) }) as typeof app.log.warn
  return said
}

t.test('past maxConnectionsPerClient a client\'s new connections are closed at once; other clients are served', async t => {
  // The held connections never speak: firstHeadTimeout out of reach, so that they stay held on a
  // loaded machine and a close "at once" cannot be its.
  const app = createServer({ ...quiet, maxConnectionsPerClient: 3, firstHeadTimeout: 60_000 })
  const said = warnings(app)
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as AddressInfo).port
  const held = [await connection(port, '127.0.0.1'), await connection(port, '127.0.0.1'), await connection(port, '127.0.0.1')]
  t.teardown(() => { for (const { socket } of held) socket.destroy() })
  const started = performance.now()
  const extra = await connection(port, '127.0.0.1')
  t.equal(await extra.closed, '', 'the fourth is closed without a word')
  // A bound no load reaches, far below the timeout.
  t.ok(performance.now() - started < 10_000, 'at once, not by a timeout')
  t.equal(await (await connection(port, '127.0.0.1')).closed, '', 'and the fifth')
  t.match(await heartbeatFrom(port, '127.0.0.2'), /^HTTP\/1\.1 204 No Content\r\n/, 'another client is served')
  t.same(said, ['MAX_CONNECTIONS_PER_CLIENT (3) reached by 127.0.0.1: its new connections are closed at once; this is said only once'])
  const first = held.shift() as Awaited<ReturnType<typeof connection>>
  first.socket.write(HEARTBEAT)
  t.match(await first.closed, /^HTTP\/1\.1 204 No Content\r\n/, 'the connections within the limit are served')
  await openConnections(app, 2)
  t.match(await heartbeatFrom(port, '127.0.0.1'), /^HTTP\/1\.1 204 No Content\r\n/, 'a closed connection frees a place')
})

t.test('the header and request timeouts are checked every tenth of themselves, not on Node\'s 30 s round', async t => {
  t.equal(connectionsCheckingInterval(10_000, 30_000), 1_000, 'the defaults: checked every second')
  t.equal(connectionsCheckingInterval(300, 600), 30)
  t.equal(connectionsCheckingInterval(50, 60), 10)
  // The service's own first-head limit out of reach: the 408 is Node's header timeout.
  const app = createServer({ ...quiet, headersTimeout: 300, requestTimeout: 600, firstHeadTimeout: 60_000 })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as AddressInfo).port

  let started = performance.now()
  const slowHeaders = await connection(port, '127.0.0.1')
  slowHeaders.socket.write('GET /heartbeat HTTP/1.1\r\nHost: x\r\n')
  t.match(await slowHeaders.closed, /^HTTP\/1\.1 408 Request Timeout\r\n/)
  let took = performance.now() - started
  // The upper bounds: far from Node's 30 s round, out of reach of load (within a tenth is the interval above).
  t.ok(took >= 300 && took < 10_000, `headers still missing after 300 ms: answered after ${Math.round(took)} ms`)

  started = performance.now()
  const slowBody = await connection(port, '127.0.0.1')
  slowBody.socket.write('PUT /challenger/6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"xCh')
  const answer = await slowBody.closed
  took = performance.now() - started
  t.ok(took >= 600 && took < 10_000, `a body still missing after 600 ms: closed after ${Math.round(took)} ms`)
  t.match(answer, /^(HTTP\/1\.1 408 Request Timeout\r\n|)/, 'with a 408 or nothing')
})

t.test('trustProxy: request.ip is the address the trusted proxies name, never one the client picks', async t => {
  async function ipOf (trustProxy: ServerConfig['trustProxy'], remoteAddress: string, forwarded?: string): Promise<string> {
    const app = createServer({ ...quiet, trustProxy })
    app.get('/test/ip', async request => request.ip)
    t.teardown(() => app.close())
    const res = await app.inject({ url: '/test/ip', remoteAddress, headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded } })
    return res.body
  }
  t.equal(await ipOf(false, '198.51.100.1', '203.0.113.7'), '198.51.100.1', 'false: the peer, whatever the header')
  t.equal(await ipOf(1, '127.0.0.1', 'forged, 203.0.113.7'), '203.0.113.7', '1: the hop the proxy added, not the client\'s first entry')
  t.equal(await ipOf(1, '127.0.0.1'), '127.0.0.1', '1, no header: the peer')
  t.equal(await ipOf(2, '10.0.0.1', 'forged, 203.0.113.7, 10.0.0.2'), '203.0.113.7', '2: two proxies in front')
  t.equal(await ipOf('10.0.0.1,10.1.0.0/16', '10.0.0.1', 'forged, 203.0.113.7, 10.1.2.3'), '203.0.113.7', 'addresses: past the named proxies')
  t.equal(await ipOf('10.0.0.1,10.1.0.0/16', '198.51.100.1', '203.0.113.7'), '198.51.100.1', 'addresses: a peer that is not one of them is the client')
})

t.test('TRUST_PROXY=1: a client behind the proxy cannot escape the creation limit by forging X-Forwarded-For', async t => {
  const app = await main({ PORT: '0', LOG_LEVEL: 'silent', TRUST_PROXY: '1', CREATION_RATE_LIMIT: '1' })
  t.teardown(() => app?.close())
  const port = (app?.server.address() as AddressInfo).port
  const create = async (forwarded: string) => (await fetch(`http://127.0.0.1:${port}/challenger`, { method: 'POST', headers: { 'x-forwarded-for': forwarded } })).status
  t.equal(await create('forged-1, 203.0.113.7'), 201)
  t.equal(await create('forged-2, 203.0.113.7'), 429, 'the same learner as far as the proxy can tell')
  t.equal(await create('203.0.113.8'), 201, 'another learner')
})

t.test('a start-up failure is one line on stderr and no server', async t => {
  const holder = createNetServer()
  await new Promise<void>(resolve => holder.listen(0, '127.0.0.1', resolve))
  t.teardown(() => holder.close())
  const taken = (holder.address() as AddressInfo).port
  const failures: Array<[Record<string, string>, string]> = [
    [{ PORT: String(taken) }, `api-challenges: port ${taken} is already in use on 127.0.0.1; stop what holds it or set PORT to another port (PORT=0: any free port)\n`],
    // 192.0.2.1 (TEST-NET-1) is no address of this machine; binding it sends nothing anywhere.
    [{ HOST: '192.0.2.1', PORT: '0' }, 'api-challenges: cannot listen on HOST=192.0.2.1: no such address on this machine (127.0.0.1: this machine only; 0.0.0.0: every interface)\n'],
    [{ REDIS_URL: 'http://cache:6379' }, 'api-challenges: REDIS_URL must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379/0, got a http:// URL\n'],
    [{ AUTH_PASSWORD: '' }, 'api-challenges: AUTH_PASSWORD is set but empty; unset it for the default\n'],
    [{ TRUST_PROXY: 'true' }, 'api-challenges: TRUST_PROXY=true trusts any client\'s X-Forwarded-For; set the number of proxies in front (TRUST_PROXY=1) or their addresses (TRUST_PROXY=10.0.0.5,10.0.1.0/24)\n']
  ]
  for (const [env, line] of failures) {
    const [app, said] = await stderrOf(() => main({ LOG_LEVEL: 'silent', ...env }))
    t.equal(app, undefined, JSON.stringify(env))
    t.equal(said, line)
  }
})

t.test('listenFailure says what to change for each reason a listen fails', async t => {
  const failure = (code: string | undefined) => listenFailure(Object.assign(new Error(`listen ${code ?? 'oops'}`), { code }), { host: 'example.test', port: 80 })
  t.equal(failure('EACCES'), 'not allowed to listen on port 80; use a PORT from 1024 up, or give the process the right to bind low ports')
  for (const code of ['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EADDRNOTAVAIL']) {
    t.match(failure(code), /^cannot listen on HOST=example\.test: /, code)
  }
  t.equal(failure(undefined), 'could not start on example.test:80: listen oops')
})

t.test('at debug, one line per request once it is answered; an answer that fails is an error', async t => {
  const logged: Array<[string, Record<string, unknown>, string]> = []
  const reply = {
    elapsedTime: 1.5,
    log: {
      debug: (fields: Record<string, unknown>, message: string) => logged.push(['debug', fields, message]),
      error: (fields: Record<string, unknown>, message: string) => logged.push(['error', fields, message])
    }
  }
  const request = { method: 'GET', url: '/heartbeat' }
  const lines = new OneLinePerRequest()
  lines.incomingRequest()
  lines.requestCompleted(undefined, request as never, reply as never)
  const failed = new Error('stream broke')
  lines.requestCompleted(failed, request as never, reply as never)
  t.same(logged, [
    ['debug', { req: request, res: reply, responseTime: 1.5 }, 'request completed'],
    ['error', { req: request, res: reply, err: failed, responseTime: 1.5 }, 'request errored']
  ])
})

/** A logger that keeps what it is told: [level, fields, message]. */
function keptLog () {
  const said: Array<[string, Record<string, unknown>, string]> = []
  const log = {
    info: (fields: Record<string, unknown>, message: string) => said.push(['info', fields, message]),
    error: (fields: Record<string, unknown>, message: string) => said.push(['error', fields, message])
  } as unknown as FastifyBaseLogger
  return { said, log }
}

// The same cases as test/process.test.ts's signals, in this process: every branch is covered here,
// whatever a child process's timing.
t.test('SIGINT and SIGTERM: the first closes gracefully, the same again at once is a repeat, another or a later one exits', async t => {
  const { said, log } = keptLog()
  let clock = 10_000
  let begun = 0
  const exits: number[] = []
  const handler = () => shutdownSignals(log, () => { begun++ }, code => { exits.push(code) }, () => clock)

  const repeated = handler()
  repeated.onSignal('SIGTERM')
  t.same([begun, exits], [1, []], 'the first signal begins the close')
  clock += REPEATED_SIGNAL_MS - 1
  repeated.onSignal('SIGTERM')
  t.same([begun, exits], [1, []], `the same signal ${REPEATED_SIGNAL_MS - 1} ms later is a repeat`)
  // close-with-grace then calls back with no signal (the close was asked for): nothing changes.
  repeated.began(undefined)
  repeated.onSignal('SIGTERM')
  t.same([begun, exits], [1, []], 'still a repeat: the close is the signal\'s')
  clock += 1
  repeated.onSignal('SIGTERM')
  t.same([begun, exits], [1, [1]], `the same signal ${REPEATED_SIGNAL_MS} ms later exits with 1`)

  const other = handler()
  other.onSignal('SIGTERM')
  other.onSignal('SIGINT')
  t.same([begun, exits], [2, [1, 1]], 'another signal at once exits with 1')

  const crashed = handler()
  crashed.began(undefined)
  crashed.began('SIGHUP')
  crashed.onSignal('SIGINT')
  t.same([begun, exits], [2, [1, 1, 1]], 'after a close begun by an error, a SIGINT exits at once')

  t.same(said, [
    ['info', { signal: 'SIGTERM' }, 'closing'],
    ['error', { signal: 'SIGTERM' }, 'second SIGTERM, exiting'],
    ['info', { signal: 'SIGTERM' }, 'closing'],
    ['error', { signal: 'SIGINT' }, 'second SIGINT, exiting'],
    ['error', { signal: 'SIGINT' }, 'second SIGINT, exiting']
  ])
})

t.test('a close that close-with-grace begins says why: an error, a signal, or nothing when it was asked to', async t => {
  const { said, log } = keptLog()
  const err = new Error('boom')
  logClosing(log, { err })
  logClosing(log, { signal: 'SIGHUP' })
  logClosing(log, {})
  t.same(said, [['error', { err }, 'closing after an error'], ['info', { signal: 'SIGHUP' }, 'closing']])
})

t.test('the logger as LOG_LEVEL sets it: none at silent, one per request at info and debug', async t => {
  t.same(loggerOptions({ logLevel: 'warn' }), { level: 'warn', stream: process.stdout }, 'JSON lines, written before the process exits')
  const pretty = loggerOptions({ logLevel: 'info', prettyLogs: true })
  t.equal(pretty.level, 'info')
  t.equal(typeof pretty.stream?.write, 'function', 'through pino-pretty at a terminal')

  const logs = async (logLevel: 'silent' | 'info' | 'debug') => {
    const app: FastifyInstance = createServer({ ...quiet, logLevel })
    t.teardown(() => app.close())
    const level = app.log.level
    // Nothing on stdout among tap's lines: a request's logger takes the server's level when it is
    // made, so its line at debug is held back from here on.
    if (logLevel === 'debug') app.log.level = 'info'
    let requestLog: FastifyBaseLogger | undefined
    app.addHook('onRequest', async request => { requestLog = request.log })
    t.equal((await app.inject({ method: 'GET', url: '/heartbeat' })).statusCode, 204)
    return { level, same: requestLog === app.log }
  }
  t.same(await logs('silent'), { level: undefined, same: true }, 'silent: no logger (Fastify\'s no-op one, without a level), nothing made per request')
  t.same(await logs('info'), { level: 'info', same: false }, 'info: a logger of its own for each request (Fastify\'s child, with its reqId)')
  t.same(await logs('debug'), { level: 'debug', same: false }, 'debug: a logger of its own for each request')
})

t.test('the close a signal begins is told which signal it was (SIGTERM drains first, SIGINT does not)', async t => {
  const { log } = keptLog()
  const begun: string[] = []
  for (const signal of ['SIGTERM', 'SIGINT']) shutdownSignals(log, name => { begun.push(name) }, () => {}).onSignal(signal)
  t.same(begun, ['SIGTERM', 'SIGINT'])
})

t.test('watchParent calls back when the parent is another than at the start (npx: see process.test.ts)', async t => {
  let parent = 4242
  let checks = 0
  // Its timer does not keep a process alive: this one does, for the test.
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => { clearInterval(alive) })
  await new Promise<void>(resolve => {
    watchParent(resolve, () => { checks++; if (checks === 3) parent = 1; return parent }, 1)
  })
  t.equal(checks, 3, 'checked until the parent changed (the first check is at the start)')
})
