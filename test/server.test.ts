// What only a socket shows: raw methods, parser errors, start-up and shutdown of the process.
import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { clientErrorHandler } from '../plugins/errors.js'
import { createServer, main } from '../src/server.js'
import { begun, listenerClosed } from './sockets.js'

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

t.test('on a real listener', async t => {
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: {} })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as AddressInfo).port

  t.test('TRACE /heartbeat is 501 text/html', async t => {
    const answer = await rawRequest(port, 'TRACE /heartbeat HTTP/1.1\r\nHost: x\r\nX-CHALLENGER: abc\r\nConnection: close\r\n\r\n')
    t.equal(statusLine(answer), 'HTTP/1.1 501 Not Implemented')
    t.match(answer, /\r\ncontent-type: text\/html;charset=utf-8\r\n/)
    t.match(answer, /\r\nx-challenger: abc\r\n/)
  })

  t.test('PROPFIND and other odd methods are 405 with Allow', async t => {
    for (const method of ['PROPFIND', 'MKCOL', 'QUERY', 'UNLOCK']) {
      const answer = await rawRequest(port, `${method} /heartbeat HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
      t.equal(statusLine(answer), 'HTTP/1.1 405 Method Not Allowed', method)
      t.match(answer, /\r\nallow: GET, HEAD, OPTIONS, PATCH, TRACE\r\n/)
    }
    const note = await rawRequest(port, 'PROPFIND /secret/note HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    t.equal(statusLine(note), 'HTTP/1.1 405 Method Not Allowed')
    t.same(JSON.parse(bodyOf(note)), { errorMessages: ['PROPFIND is not allowed on /secret/note; allowed: GET, HEAD, POST, OPTIONS'] })
  })

  t.test('a request Node\'s parser refuses is 400 with the error body', async t => {
    for (const raw of ['get /heartbeat HTTP/1.1\r\nHost: x\r\n\r\n', 'NONSENSE\r\n\r\n', 'GET /heartbeat HTTP/1.1\r\nBad Header\r\n\r\n']) {
      const answer = await rawRequest(port, raw)
      t.equal(statusLine(answer), 'HTTP/1.1 400 Bad Request', JSON.stringify(raw))
      t.match(answer, /\r\naccess-control-allow-origin: \*\r\n/)
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
    t.match(answer, /\r\nx-challenger: abc\r\n/)
    t.match(answer, /\r\naccess-control-allow-origin: \*\r\n/)
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
  t.equal(await main({ PORT: 'abc' }), undefined)
  await t.rejects(main({ PORT: '0', LOG_LEVEL: 'silent', AUTH_USERNAME: undefined, NOTE_MAX_LENGTH: undefined, get BODY_LIMIT (): string { throw new Error('boom') } }), /boom/, 'an unexpected error is not swallowed')
})

const serverFile = fileURLToPath(new URL('../src/server.ts', import.meta.url))

function startProcess (env: Record<string, string>) {
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

t.test('the process listens, says where, and closes gracefully on SIGTERM', async t => {
  const { child, output } = startProcess({ PORT: '0', LOG_LEVEL: 'info' })
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const found = /ready: curl -i -X POST (http:\/\/127\.0\.0\.1:\d+)\/challenger/.exec(output().stdout)
      if (found !== null) resolve(found[1] as string)
    })
    child.on('exit', () => reject(new Error(`exited early: ${output().stderr}`)))
  })
  const res = await fetch(`${url}/heartbeat`)
  t.equal(res.status, 204)
  child.kill('SIGTERM')
  const [code] = await once(child, 'exit')
  t.equal(code, 0)
  t.match(output().stdout, /"signal":"SIGTERM"/)
})

t.test('the process exits 1 with one line naming a bad variable', async t => {
  const { child, output } = startProcess({ PORT: '0', MAX_UNUSED: 'x', BODY_LIMIT: 'lots' })
  const [code] = await once(child, 'exit')
  t.equal(code, 1)
  t.equal(output().stderr.split('\n').filter(line => line.startsWith('api-challenges:')).join('\n'), 'api-challenges: BODY_LIMIT must be a whole number from 1 to 104857600, got "lots"')
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

t.test('an uncaught exception is logged, the server closes and the process exits 1', async t => {
  const crash = fileURLToPath(new URL('fixtures/crash-on-input.ts', import.meta.url))
  const child = spawn(process.execPath, [...process.execArgv, '--import', crash, serverFile], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['pipe', 'pipe', 'pipe']
  })
  let stdout = ''
  child.stdout.setEncoding('utf8')
  await new Promise<void>(resolve => {
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk
      if (stdout.includes('ready:')) resolve()
    })
  })
  child.stdin.write('crash\n')
  const [code] = await once(child, 'exit')
  t.equal(code, 1)
  t.match(stdout, /"level":50[^\n]*"message":"boom on request"[^\n]*"msg":"closing after an error"/)
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
    t.same(res.json(), { errorMessages: ['X-CHALLENGER is longer than 100 characters'] })
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

function waitForReady (child: ReturnType<typeof spawn>): Promise<string> {
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

/** Opens a connection and sends a note write whose body is held back until `finish` is called. */
async function requestInFlight (port: number) {
  const created = await fetch(`http://127.0.0.1:${port}/challenger`, { method: 'POST' })
  const guid = created.headers.get('x-challenger') as string
  const issued = await fetch(`http://127.0.0.1:${port}/secret/token`, { method: 'POST', headers: { 'x-challenger': guid, authorization: 'Basic ' + Buffer.from('admin:password').toString('base64') } })
  const token = issued.headers.get('x-auth-token') as string
  const body = '{"note":"finished after the signal"}'
  const socket = connect(port, '127.0.0.1')
  socket.setEncoding('utf8')
  let answer = ''
  socket.on('data', (chunk: string) => { answer += chunk })
  socket.on('error', () => {})
  socket.write(`POST /secret/note HTTP/1.1\r\nHost: x\r\nX-CHALLENGER: ${guid}\r\nX-AUTH-TOKEN: ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`)
  // The headers are in once the server has looked the session up; a heartbeat on a new connection is ordered after them.
  await fetch(`http://127.0.0.1:${port}/heartbeat`)
  return {
    finish: async (): Promise<string> => {
      socket.write(body.slice(5))
      await once(socket, 'close').catch(() => {})
      return answer
    },
    socket
  }
}

/** A server process with a note write held half-sent when SIGTERM arrives, once its listener has closed. */
async function signalledDuringRequest () {
  const { child } = startProcess({ PORT: '0', LOG_LEVEL: 'info' })
  const port = Number(await waitForReady(child))
  const inFlight = await requestInFlight(port)
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  // The listener closes first: new connections are refused while the old one is still served.
  await listenerClosed(port)
  return { child, inFlight, exited }
}

t.test('SIGTERM lets a request in flight finish, then the process exits 0', async t => {
  const { inFlight, exited } = await signalledDuringRequest()
  const answer = await inFlight.finish()
  t.match(answer, /^HTTP\/1\.1 200 OK\r\n/)
  t.match(answer, /\r\nconnection: close\r\n/i)
  t.match(answer, /\{"note":"finished after the signal"\}$/)
  const [code] = await exited
  t.equal(code, 0)
})

t.test('a second signal during the graceful close exits at once', async t => {
  const { child, inFlight, exited } = await signalledDuringRequest()
  child.kill('SIGTERM')
  const [code] = await exited
  t.equal(code, 1, 'without waiting for the request in flight')
  inFlight.socket.destroy()
})

t.test('Ctrl-C on npm start (the whole process group) is one graceful shutdown', { timeout: 120_000 }, async t => {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const npm = spawn('npm', ['start'], { cwd: root, env: { ...process.env, PORT: '0', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let out = ''
  npm.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk })
  const port = Number(await waitForReady(npm))
  t.equal((await fetch(`http://127.0.0.1:${port}/heartbeat`)).status, 204)
  const exited = once(npm, 'exit')
  process.kill(-(npm.pid as number), 'SIGINT')
  const [code, signal] = await exited
  t.ok(code === 0 || signal === 'SIGINT', `npm ended with ${code} ${signal}`)
  t.equal(out.match(/"msg":"closing"/g)?.length, 1, 'one close')
  t.notMatch(out, /second SIGINT|killed by timeout/)
})
