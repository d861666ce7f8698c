// The wire as learners' clients see it (issue 35): a repeated X-CHALLENGER or X-AUTH-TOKEN counts
// once, by its first value, as the reference reads it; and every answer's header names go out in
// Title-Case (X-Challenger, X-Auth-Token, WWW-Authenticate, …), as the hosted reference delivered
// them, early answers included. Only a socket shows either: requests are written raw here.
import { createServer as createHttpServer, ServerResponse, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import t from 'tap'
import app from '../../src/app.js'
import { createServer } from '../../src/server.js'
import { firstValues, namesOnTheWire, wireName } from '../../src/domain/http/wire.js'
import { begun } from '../sockets.js'

/** Sends `raw` on a new connection (which it closes after one answer) and resolves with the answer. */
async function rawRequest (port: number, raw: string): Promise<string> {
  return await begun(port, raw).finish('')
}

/** The header lines of an answer, as sent. */
function headerLines (answer: string): string[] {
  return answer.slice(0, answer.indexOf('\r\n\r\n')).split('\r\n').slice(1)
}

function headerNames (answer: string): string[] {
  return headerLines(answer).map(line => line.slice(0, line.indexOf(':')))
}

/** The value of the header `name` (matched exactly, case included), or undefined. */
function wireValue (answer: string, name: string): string | undefined {
  const line = headerLines(answer).find(line => line.startsWith(`${name}: `))
  return line?.slice(name.length + 2)
}

/** Title-Case: each dash-separated word begins with a capital (WWW, ETag and RateLimit as spelled). */
const TITLE_CASE = /^[A-Z][A-Za-z0-9]*(-[A-Z][A-Za-z0-9]*)*$/

t.test('wireName: one capital per word, and the usual spellings', async t => {
  t.equal(wireName('x-challenger'), 'X-Challenger')
  t.equal(wireName('x-auth-token'), 'X-Auth-Token')
  t.equal(wireName('www-authenticate'), 'WWW-Authenticate')
  t.equal(wireName('etag'), 'ETag')
  t.equal(wireName('access-control-expose-headers'), 'Access-Control-Expose-Headers')
  t.equal(wireName('x-ratelimit-remaining'), 'X-RateLimit-Remaining')
  t.equal(wireName('CONTENT-TYPE'), 'Content-Type', 'whatever case it was given in')
  t.equal(wireName('Www-Authenticate'), 'WWW-Authenticate')
  t.equal(wireName('x-2fa'), 'X-2fa', 'a word that begins with a digit stays as it is')
  // Past the cap, names are still spelled right; they are just not remembered.
  for (let i = 0; i < 1100; i++) t.equal(wireName(`x-n${i}`), `X-N${i}`, { diagnostic: false })
  t.equal(wireName('x-n1099'), 'X-N1099')
})

t.test('namesOnTheWire: HTTP/1 answers only; HTTP/2 has lower-case names by definition', async t => {
  const writeHead = ServerResponse.prototype.writeHead
  const answer = { writeHead } as unknown as ServerResponse
  namesOnTheWire({ httpVersionMajor: 2 } as IncomingMessage, answer)
  t.equal(answer.writeHead, writeHead, 'left as it was')
  namesOnTheWire({ httpVersionMajor: 1 } as IncomingMessage, answer)
  t.not(answer.writeHead, writeHead)
})

t.test('embedded: a writeHead the host put on the response keeps working, with the names on the wire', async t => {
  const host = Fastify()
  t.teardown(() => host.close())
  // As response-time middleware does: a header added as the answer goes out.
  host.addHook('onRequest', async (request, reply) => {
    const writeHead = reply.raw.writeHead
    reply.raw.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
      this.setHeader('x-response-time', '1ms')
      return writeHead.apply(this, args)
    } as ServerResponse['writeHead']
  })
  await host.register(app, { prefix: '/practice' })
  await host.listen({ port: 0, host: '127.0.0.1' })
  const answer = await rawRequest((host.server.address() as AddressInfo).port, 'GET /practice/heartbeat HTTP/1.1\r\nHost: x\r\nX-CHALLENGER: abc\r\nConnection: close\r\n\r\n')
  t.match(answer, /^HTTP\/1\.1 204 /)
  t.equal(wireValue(answer, 'x-response-time'), '1ms', 'the host\'s header is there, as the host spelled it')
  t.equal(wireValue(answer, 'X-Challenger'), 'abc', 'and the service\'s, in Title-Case')
  t.same(headerNames(answer).filter(name => !TITLE_CASE.test(name)), ['x-response-time'], 'the service\'s names all Title-Case')
})

t.test('firstValues: the first of repeated copies; a single value with a comma stays whole', async t => {
  const request = (rawHeaders: string[]): IncomingMessage => {
    const headers: Record<string, string> = {}
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = (rawHeaders[i] as string).toLowerCase()
      headers[name] = headers[name] === undefined ? rawHeaders[i + 1] as string : `${headers[name]}, ${rawHeaders[i + 1]}`
    }
    return { headers, rawHeaders } as unknown as IncomingMessage
  }
  const repeated = request(['Host', 'x', 'X-CHALLENGER', 'a', 'x-challenger', 'b', 'X-Auth-Token', 't1', 'X-AUTH-TOKEN', 't2'])
  firstValues(repeated)
  t.equal(repeated.headers['x-challenger'], 'a')
  t.equal(repeated.headers['x-auth-token'], 't1')
  const once = request(['X-CHALLENGER', 'a, b'])
  firstValues(once)
  t.equal(once.headers['x-challenger'], 'a, b', 'one header whose value has a comma is one value')
  // A host's code that set the parsed header itself, with nothing raw behind it: left as it is.
  const set = { headers: { 'x-challenger': 'a, b' }, rawHeaders: [] } as unknown as IncomingMessage
  firstValues(set)
  t.equal(set.headers['x-challenger'], 'a, b')
})

t.test('a Node server whose answer streams (setHeader, no headers to writeHead): the names are renamed in place', async t => {
  const server = createHttpServer((request, response) => {
    namesOnTheWire(request, response)
    response.setHeader('x-challenger', 'abc')
    response.setHeader('content-type', 'text/plain')
    response.write('a')
    response.end('b')
  })
  t.teardown(() => server.close())
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const answer = await rawRequest((server.address() as AddressInfo).port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
  t.equal(wireValue(answer, 'X-Challenger'), 'abc')
  t.equal(wireValue(answer, 'Content-Type'), 'text/plain')
  // writeHead(status, reason, headers), as some code calls it.
  const direct = createHttpServer((request, response) => {
    namesOnTheWire(request, response)
    response.writeHead(200, 'Fine', { 'x-auth-token': 'tok' }).end()
  })
  t.teardown(() => direct.close())
  await new Promise<void>(resolve => direct.listen(0, '127.0.0.1', resolve))
  const fine = await rawRequest((direct.address() as AddressInfo).port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
  t.match(fine, /^HTTP\/1\.1 200 Fine\r\n/)
  t.equal(wireValue(fine, 'X-Auth-Token'), 'tok')
})

t.test('the service on a real listener', async t => {
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: {} })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as AddressInfo).port
  const send = async (head: string, body = ''): Promise<string> => {
    const length = body === '' ? '' : `Content-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\n`
    return await rawRequest(port, `${head}\r\nHost: x\r\nConnection: close\r\n${length}\r\n${body}`)
  }

  const created = await send('POST /challenger HTTP/1.1')
  const guid = wireValue(created, 'X-Challenger') as string
  t.match(guid, /^[0-9a-f-]{36}$/, 'POST /challenger: X-Challenger on the wire')
  t.ok(wireValue(created, 'Location')?.endsWith(guid), 'and Location')
  const issued = await send(`POST /secret/token HTTP/1.1\r\nX-CHALLENGER: ${guid}\r\nAuthorization: Basic YWRtaW46cGFzc3dvcmQ=`)
  const token = wireValue(issued, 'X-Auth-Token') as string
  t.match(token, /^\S{16,}$/, 'POST /secret/token: X-Auth-Token on the wire')

  t.test('a repeated X-CHALLENGER: the first value decides, and is the one echoed', async t => {
    for (const copies of [2, 3, 4]) {
      const answer = await send(`GET /heartbeat HTTP/1.1${`\r\nX-CHALLENGER: ${guid}`.repeat(copies)}`)
      t.match(answer, /^HTTP\/1\.1 204 /, `${copies} copies: 204, not 431`)
      t.equal(wireValue(answer, 'X-Challenger'), guid, `${copies} copies: one value echoed`)
    }
    // REST Assured adds the header on each call: a known session first, anything after.
    const note = await send(`GET /secret/note HTTP/1.1\r\nX-CHALLENGER: ${guid}\r\nX-CHALLENGER: ${guid}\r\nX-CHALLENGER: other\r\nX-AUTH-TOKEN: ${token}`)
    t.match(note, /^HTTP\/1\.1 200 /, 'the session is known: the note is read')
    const progress = JSON.parse((await send(`GET /challenges HTTP/1.1\r\nX-CHALLENGER: ${guid}\r\nX-CHALLENGER: ${guid}`)).split('\r\n\r\n')[1] as string) as { challenges: Array<{ id: number, status: boolean }> }
    t.same(progress.challenges.filter(c => c.status).map(c => c.id), [1, 2, 28, 30, 33], 'and the challenges passed with repeated headers count')
    const unknownFirst = await send(`GET /secret/note HTTP/1.1\r\nX-CHALLENGER: 7a6a6c3e-0000-4000-8000-000000000000\r\nX-CHALLENGER: ${guid}\r\nX-AUTH-TOKEN: ${token}`)
    t.match(unknownFirst, /^HTTP\/1\.1 401 /, 'an unknown first value is an unknown session, whatever follows')
  })

  t.test('431 is judged on the first value alone', async t => {
    const short = await send(`GET /heartbeat HTTP/1.1\r\nX-CHALLENGER: ${guid}\r\nX-CHALLENGER: ${'b'.repeat(90)}`)
    t.match(short, /^HTTP\/1\.1 204 /, 'copies that together pass 100 characters are not 431')
    const long = await send(`GET /heartbeat HTTP/1.1\r\nX-CHALLENGER: ${'a'.repeat(101)}\r\nX-CHALLENGER: ${guid}`)
    t.match(long, /^HTTP\/1\.1 431 /, 'a first value over 100 characters is')
    t.same(headerNames(long).filter(name => !TITLE_CASE.test(name)), [], 'the early 431 has Title-Case names too')
  })

  t.test('a repeated X-AUTH-TOKEN: the first value decides', async t => {
    const right = await send(`GET /secret/note HTTP/1.1\r\nX-CHALLENGER: ${guid}\r\nX-AUTH-TOKEN: ${token}\r\nX-AUTH-TOKEN: wrong`)
    t.match(right, /^HTTP\/1\.1 200 /)
    const wrong = await send(`GET /secret/note HTTP/1.1\r\nX-CHALLENGER: ${guid}\r\nX-AUTH-TOKEN: wrong\r\nX-AUTH-TOKEN: ${token}`)
    t.match(wrong, /^HTTP\/1\.1 403 /)
  })

  t.test('every answer a learner reads has Title-Case header names', async t => {
    const cases: Array<[string, string, string, string[]]> = [
      ['POST /challenger (201)', 'POST /challenger HTTP/1.1', '', ['X-Challenger', 'Location', 'Access-Control-Expose-Headers']],
      ['POST /secret/token (201)', `POST /secret/token HTTP/1.1\r\nX-CHALLENGER: ${guid}\r\nAuthorization: Basic YWRtaW46cGFzc3dvcmQ=`, '', ['X-Challenger', 'X-Auth-Token']],
      ['POST /secret/token, bad credentials (401)', `POST /secret/token HTTP/1.1\r\nX-CHALLENGER: ${guid}\r\nAuthorization: Basic eDp5`, '', ['WWW-Authenticate', 'Content-Type', 'Content-Length']],
      ['GET /challenges (200)', `GET /challenges HTTP/1.1\r\nX-CHALLENGER: ${guid}`, '', ['Location', 'Content-Type']],
      ['OPTIONS /heartbeat (204)', 'OPTIONS /heartbeat HTTP/1.1', '', ['Allow', 'Access-Control-Allow-Methods']],
      ['DELETE /heartbeat (405)', `DELETE /heartbeat HTTP/1.1\r\nX-CHALLENGER: ${guid}`, '', ['Allow', 'X-Challenger']],
      ['POST /secret/note (200)', `POST /secret/note HTTP/1.1\r\nX-CHALLENGER: ${guid}\r\nX-AUTH-TOKEN: ${token}`, '{"note":"hi"}', ['X-Challenger', 'Content-Type']],
      ['an unknown path (404)', `GET /nowhere HTTP/1.1\r\nX-CHALLENGER: ${guid}`, '', ['X-Challenger', 'X-Content-Type-Options']],
      ['a malformed URL, answered before routing (400)', `GET /%zz HTTP/1.1\r\nX-CHALLENGER: ${guid}\r\nX-CHALLENGER: ${guid}`, '', ['X-Challenger', 'Access-Control-Allow-Origin']],
      ['a page', 'GET / HTTP/1.1', '', ['Content-Security-Policy', 'Content-Type']],
      ['a Swagger UI asset, streamed', 'GET /docs/static/swagger-ui.css HTTP/1.1', '', ['Content-Type', 'Access-Control-Allow-Origin']]
    ]
    for (const [name, head, body, expected] of cases) {
      const answer = await send(head, body)
      const names = headerNames(answer)
      t.same(names.filter(name => !TITLE_CASE.test(name)), [], `${name}: no name in another case (${answer.split('\r\n')[0]})`)
      t.same(expected.filter(wanted => !names.includes(wanted)), [], `${name}: ${expected.join(', ')} as spelled`)
    }
    const malformed = await send(`GET /%zz HTTP/1.1\r\nX-CHALLENGER: ${guid}\r\nX-CHALLENGER: ${guid}`)
    t.equal(wireValue(malformed, 'X-Challenger'), guid, 'the answer before routing echoes the first value only')
  })

  t.test('the parser\'s own refusals (written on the socket) have Title-Case names', async t => {
    const answer = await rawRequest(port, `GET /heartbeat HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    t.match(answer, /^HTTP\/1\.1 431 /)
    t.same(headerNames(answer), ['Access-Control-Allow-Origin', 'Access-Control-Allow-Headers', 'Access-Control-Expose-Headers', 'X-Content-Type-Options', 'Content-Type', 'Content-Length', 'Connection'])
  })
})
