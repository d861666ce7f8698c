// Hardening for a public deployment: nosniff on every answer, helmet's headers (a CSP, no framing)
// on the pages and /docs only, two Host headers refused, and bodies nobody reads left unread: the
// early answers close the connection instead of swallowing whatever the client sends.
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import t from 'tap'
import { DOCS_CSP_DIRECTIVES, SWAGGER_LOGO_STYLE_HASH } from '../../plugins/docs.js'
import { unreadBody } from '../../src/domain/http/common-headers.js'
import { createServer } from '../../src/server.js'
import { build, newSession } from '../helper.js'

/** The headers helmet adds; the API's answers carry none of them. */
const HELMET_HEADERS = ['content-security-policy', 'x-frame-options', 'cross-origin-opener-policy', 'cross-origin-resource-policy',
  'origin-agent-cluster', 'referrer-policy', 'x-dns-prefetch-control', 'x-download-options', 'x-permitted-cross-domain-policies', 'x-xss-protection']

const PAGE_CSP = "default-src 'none';style-src 'self';script-src 'self';connect-src 'self';img-src 'self';form-action 'self';base-uri 'none';frame-ancestors 'none'"
const DOCS_CSP = "default-src 'none';script-src 'self';style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w=';" +
  "img-src 'self' data:;font-src 'self' data:;connect-src 'self';form-action 'self';base-uri 'none';object-src 'none';frame-ancestors 'none'"

function helmetHeadersOf (headers: Record<string, unknown>): string[] {
  return HELMET_HEADERS.filter(name => headers[name] !== undefined)
}

t.test('every answer says nosniff; only the pages and /docs carry helmet\'s headers', async t => {
  const app = await build(t)
  const me = await newSession(app)
  const api: Array<[string, string, Record<string, string>, number]> = [
    ['GET', '/heartbeat', {}, 204],
    ['OPTIONS', '/heartbeat', {}, 204],
    ['DELETE', '/heartbeat', {}, 405],
    ['PATCH', '/heartbeat', {}, 500],
    ['GET', '/nope', {}, 404],
    ['GET', '/challenges', { 'x-challenger': me.guid }, 200],
    ['POST', '/challenger', { 'x-challenger': me.guid }, 200],
    ['GET', `/challenger/${me.guid}`, {}, 200],
    ['GET', '/secret/note', { 'x-challenger': me.guid, 'x-auth-token': me.token }, 200],
    ['GET', '/secret/note', { 'x-challenger': me.guid }, 401],
    ['GET', '/secret/note', { 'x-challenger': 'x'.repeat(101) }, 431],
    ['GET', '/secret/note', { 'x-challenger': me.guid, 'x-auth-token': me.token, accept: 'image/png' }, 406]
  ]
  for (const [method, url, headers, status] of api) {
    const res = await app.inject({ method: method as 'GET', url, headers })
    t.equal(res.statusCode, status, `${method} ${url}`)
    t.equal(res.headers['x-content-type-options'], 'nosniff', `${method} ${url} ${status} is nosniff`)
    t.same(helmetHeadersOf(res.headers), [], `${method} ${url} ${status} is lean`)
  }

  const pages = ['/', '/gui/challenges', `/gui/challenges/${me.guid}`, '/gui/style.css', '/gui/refresh.js', '/gui/icon.svg']
  for (const url of pages) {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 200, url)
    t.equal(res.headers['content-security-policy'], PAGE_CSP, `${url}: the pages' policy`)
    t.equal(res.headers['x-frame-options'], 'DENY', `${url}: no framing`)
    t.equal(res.headers['x-content-type-options'], 'nosniff', `${url}: one nosniff`)
    t.same(helmetHeadersOf(res.headers), HELMET_HEADERS, `${url}: every header helmet adds`)
    t.equal(res.headers['strict-transport-security'], undefined, `${url}: no HSTS (the operator's call)`)
  }
  t.equal((await app.inject({ method: 'DELETE', url: '/' })).headers['x-frame-options'], 'DENY', 'the pages\' own 405 too')

  const docs = await app.inject({ method: 'GET', url: '/docs' })
  const assets = [...docs.body.matchAll(/(?:src|href)="([^"]+)"/g)].map(match => match[1] as string)
  t.ok(assets.length >= 5, 'Swagger UI\'s page names its assets')
  for (const url of ['/docs', '/docs/json', '/docs/yaml', ...assets]) {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 200, url)
    t.equal(res.headers['content-security-policy'], DOCS_CSP, `${url}: Swagger UI's policy`)
    t.equal(res.headers['x-frame-options'], 'DENY', `${url}: no framing`)
    t.equal(res.headers['x-content-type-options'], 'nosniff', url)
  }
})

t.test('under a host\'s prefix the same headers, and the host\'s own routes get none of them', async t => {
  const { default: Fastify } = await import('fastify')
  const { default: app } = await import('../../src/app.js')
  const host = Fastify()
  host.get('/mine', async () => ({ mine: true }))
  await host.register(app, { prefix: '/practice' })
  t.teardown(() => host.close())
  const page = await host.inject('/practice/gui/challenges')
  t.equal(page.headers['content-security-policy'], PAGE_CSP)
  const docs = await host.inject('/practice/docs')
  t.equal(docs.headers['content-security-policy'], DOCS_CSP)
  const heartbeat = await host.inject('/practice/heartbeat')
  t.equal(heartbeat.headers['x-content-type-options'], 'nosniff')
  t.same(helmetHeadersOf(heartbeat.headers), [])
  const mine = await host.inject('/mine')
  t.equal(mine.headers['x-content-type-options'], undefined, 'the host\'s routes are its own')
  t.same(helmetHeadersOf(mine.headers), [])
})

t.test('the docs policy allows the one inline style of the installed Swagger UI, by its hash', async t => {
  // The logo's <style> in the standalone preset; another Swagger UI release may change it.
  const require = createRequire(import.meta.url)
  const staticDir = join(dirname(require.resolve('@fastify/swagger-ui')), 'static')
  const preset = readFileSync(join(staticDir, 'swagger-ui-standalone-preset.js'), 'utf8')
  const styles = [...preset.matchAll(/createElement\("style",null,"([^"]*)"\)/g)].map(match => match[1] as string)
  t.equal(styles.length, 1, 'one inline <style> in the preset')
  const hashes = styles.map(style => `'sha256-${createHash('sha256').update(style).digest('base64')}'`)
  t.same(hashes, [SWAGGER_LOGO_STYLE_HASH], 'its hash is the one in the policy (update SWAGGER_LOGO_STYLE_HASH if not)')
  t.ok(DOCS_CSP_DIRECTIVES['style-src']?.includes(SWAGGER_LOGO_STYLE_HASH))
  t.notOk(DOCS_CSP_DIRECTIVES['style-src']?.includes("'unsafe-inline'"))
  const bundle = readFileSync(join(staticDir, 'swagger-ui-bundle.js'), 'utf8')
  t.notMatch(bundle, /createElement\("style"/, 'and none in the bundle')
})

t.test('unreadBody: a body announced that has neither arrived nor been read', async t => {
  const raw = (headers: Record<string, string>, state: { complete?: boolean, readableEnded?: boolean } = {}) =>
    ({ headers, complete: false, readableEnded: false, ...state }) as unknown as Parameters<typeof unreadBody>[0]
  t.equal(unreadBody(raw({})), false, 'no body')
  t.equal(unreadBody(raw({ 'content-length': '0' })), false, 'an empty body')
  t.equal(unreadBody(raw({ 'content-length': '10' })), true)
  t.equal(unreadBody(raw({ 'transfer-encoding': 'chunked' })), true)
  t.equal(unreadBody(raw({ 'content-length': '10' }, { complete: true })), false, 'arrived whole: nothing left on the wire')
  t.equal(unreadBody(raw({ 'content-length': '10' }, { readableEnded: true })), false, 'read to the end')
})

/** A connection to the server, recording what comes back and when it closes. */
function open (port: number) {
  const socket = connect(port, '127.0.0.1')
  socket.setEncoding('latin1')
  const state = { answer: '', closed: false, closedAt: 0, localPort: 0 }
  // Kept: a closed socket no longer knows its port.
  socket.once('connect', () => { state.localPort = socket.localPort as number })
  socket.on('data', (chunk: string) => { state.answer += chunk })
  // Writing to a closed connection fails: that is what the tests want to see.
  socket.on('error', () => {})
  socket.on('close', () => { state.closed = true; state.closedAt = performance.now() })
  return { socket, state }
}

/** Resolves once `socket` has closed (events.once would reject on the socket's error). */
async function closed (socket: Socket): Promise<void> {
  if (socket.closed) return
  await new Promise(resolve => socket.once('close', resolve))
}

/** Resolves true once `socket` has closed, false after `ms` if it has not. */
async function closedWithin (socket: Socket, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<boolean>(resolve => { timer = setTimeout(() => resolve(false), ms) })
  const result = await Promise.race([closed(socket).then(() => true), late])
  clearTimeout(timer)
  return result
}

function headersOf (answer: string): string {
  return answer.slice(0, answer.indexOf('\r\n\r\n') + 2)
}

t.test('on a real listener', async t => {
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: {} })
  t.teardown(() => app.close())
  // The server's end of each connection, by the client's port: how much it read.
  const serverSide = new Map<number, Socket>()
  app.server.on('connection', (socket: Socket) => { serverSide.set(socket.remotePort as number, socket) })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as AddressInfo).port
  const bytesRead = (client: { localPort: number }): number => serverSide.get(client.localPort)?.bytesRead ?? -1

  t.test('two Host headers are 400 with the error body, whatever the path and however spelt', async t => {
    for (const [path, hosts] of [['/heartbeat', 'Host: a\r\nHost: b'], ['/nope', 'Host: a\r\nhost: a'], ['/', 'HOST: a\r\nX-A: 1\r\nhOsT: b']]) {
      const { socket, state } = open(port)
      socket.write(`GET ${path} HTTP/1.1\r\n${hosts}\r\nX-CHALLENGER: abc\r\nConnection: close\r\n\r\n`)
      await closed(socket)
      t.match(state.answer, /^HTTP\/1\.1 400 Bad Request\r\n/, `${path} with ${JSON.stringify(hosts)}`)
      t.match(headersOf(state.answer), /\r\nX-Challenger: abc\r\n/)
      t.match(headersOf(state.answer), /\r\nX-Content-Type-Options: nosniff\r\n/)
      t.same(JSON.parse(state.answer.slice(state.answer.indexOf('\r\n\r\n') + 4)), { errorMessages: ['The request has more than one Host header; send one'] })
    }
    const one = await fetch(`http://127.0.0.1:${port}/heartbeat`)
    t.equal(one.status, 204, 'one Host is fine')
  })

  const BODY_LIMIT = 16 * 1024
  const early: Array<[string, string, RegExp]> = [
    ['a 404', 'POST /nope HTTP/1.1\r\nHost: x\r\n', /^HTTP\/1\.1 404 /],
    ['a 405', 'DELETE /heartbeat HTTP/1.1\r\nHost: x\r\n', /^HTTP\/1\.1 405 /],
    ['POST /heartbeat (405)', 'POST /heartbeat HTTP/1.1\r\nHost: x\r\n', /^HTTP\/1\.1 405 /],
    ['the heartbeat (204)', 'GET /heartbeat HTTP/1.1\r\nHost: x\r\n', /^HTTP\/1\.1 204 /],
    ['OPTIONS', 'OPTIONS /secret/note HTTP/1.1\r\nHost: x\r\n', /^HTTP\/1\.1 204 /],
    ['a 431 (X-CHALLENGER too long)', `POST /secret/note HTTP/1.1\r\nHost: x\r\nX-CHALLENGER: ${'a'.repeat(101)}\r\n`, /^HTTP\/1\.1 431 /],
    ['a page', 'GET / HTTP/1.1\r\nHost: x\r\n', /^HTTP\/1\.1 200 /],
    ['a malformed URL (400, answered before routing)', 'POST /%zz HTTP/1.1\r\nHost: x\r\n', /^HTTP\/1\.1 400 [^]*\r\nx-content-type-options: nosniff\r\n/i],
    ['a malformed URL with a long X-CHALLENGER (431)', `POST /%zz HTTP/1.1\r\nHost: x\r\nX-CHALLENGER: ${'a'.repeat(101)}\r\n`, /^HTTP\/1\.1 431 /]
  ]

  t.test('a big body sent to an early answer is not read: the answer says Connection: close, then the server closes', async t => {
    for (const [name, head, status] of early) {
      for (const framing of ['Content-Length: 1000000000\r\n\r\n', 'Transfer-Encoding: chunked\r\n\r\n100000\r\n']) {
        const { socket, state } = open(port)
        const sent = performance.now()
        socket.write(head + framing + 'x'.repeat(4096))
        t.ok(await closedWithin(socket, 10_000), `${name}, ${framing.split(':')[0]}: the server closed the connection`)
        t.ok(state.closedAt - sent < 5_000, `${name}: at once, not at a timeout (${Math.round(state.closedAt - sent)} ms)`)
        t.match(state.answer, status, name)
        t.match(headersOf(state.answer), /\r\nconnection: close\r\n/i, `${name}: Connection: close`)
        socket.destroy()
      }
    }
  })

  t.test('a client that keeps writing is cut off: the server reads a bounded amount, not the body', async t => {
    const chunk = Buffer.alloc(64 * 1024, 'x')
    for (const [name, head] of early) {
      const { socket, state } = open(port)
      socket.write(head + 'Content-Length: 1000000000\r\n\r\n')
      let written = 0
      // At most 64 MiB; the server lets go long before.
      for (let i = 0; i < 1024 && !state.closed; i++) {
        written += chunk.length
        if (!socket.write(chunk)) await new Promise(resolve => { socket.once('drain', resolve); socket.once('close', resolve) })
      }
      t.ok(await closedWithin(socket, 10_000), `${name}: the server closed the connection`)
      const read = bytesRead(state)
      // Node reads a socket 64 KiB at a time and buffers up to 16 KiB of a body nobody reads.
      t.ok(read > 0 && read < BODY_LIMIT + 256 * 1024, `${name}: the server read ${read} bytes of the ${written} written`)
      socket.destroy()
    }
  })

  t.test('headers over Node\'s limit (431) with a body: the connection is closed too', async t => {
    const { socket, state } = open(port)
    socket.write(`POST /heartbeat HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n${'x'.repeat(4096)}`)
    t.ok(await closedWithin(socket, 10_000))
    t.match(state.answer, /^HTTP\/1\.1 431 /)
    t.match(headersOf(state.answer), /\r\nConnection: close\r\n/)
  })

  t.test('a body that was read keeps the connection alive', async t => {
    const me = await newSession(app)
    const { socket, state } = open(port)
    const note = '{"note":"kept alive"}'
    socket.write(`POST /secret/note HTTP/1.1\r\nHost: x\r\nX-CHALLENGER: ${me.guid}\r\nX-AUTH-TOKEN: ${me.token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${note.length}\r\n\r\n${note}`)
    while (!state.answer.endsWith(note)) await once(socket, 'data')
    t.match(state.answer, /^HTTP\/1\.1 200 /)
    t.match(headersOf(state.answer), /\r\nconnection: keep-alive\r\n/i)
    state.answer = ''
    socket.write(`GET /secret/note HTTP/1.1\r\nHost: x\r\nX-CHALLENGER: ${me.guid}\r\nX-AUTH-TOKEN: ${me.token}\r\nConnection: close\r\n\r\n`)
    await closed(socket)
    t.match(state.answer, /^HTTP\/1\.1 200 [^]*\r\n\r\n\{"note":"kept alive"\}$/, 'a second request on the same connection')
  })
})
