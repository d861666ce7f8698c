// The service as a plugin inside another Fastify app, under a prefix.
import { once } from 'node:events'
import { connect } from 'node:net'
import Fastify from 'fastify'
import t from 'tap'
import app, { EVERY_METHOD, MemoryStore, supportEveryMethod } from '../../src/app.js'

t.test('mounted under a prefix, every route and message is under it and the host is untouched', async t => {
  const host = Fastify()
  host.get('/own', async () => ({ mine: true }))
  await host.register(app, { prefix: '/practice' })
  t.teardown(() => host.close())

  const heartbeat = await host.inject({ method: 'GET', url: '/practice/heartbeat', headers: { 'x-challenger': 'x' } })
  t.equal(heartbeat.statusCode, 204)
  t.equal(heartbeat.headers['x-challenger'], 'x')
  const refused = await host.inject({ method: 'PUT', url: '/practice/challenges' })
  t.equal(refused.statusCode, 405)
  t.same(refused.json(), { errorMessages: ['PUT is not allowed on /practice/challenges; allowed: GET, HEAD, OPTIONS'] })
  const created = await host.inject({ method: 'POST', url: '/practice/challenger' })
  t.equal(created.statusCode, 201)

  const own = await host.inject({ method: 'GET', url: '/own', headers: { 'x-challenger': 'x' } })
  t.same(own.json(), { mine: true })
  t.equal(own.headers['x-challenger'], undefined, "no echo on the host's routes")
  t.equal(own.headers['access-control-allow-origin'], undefined, "no CORS on the host's routes")
  const missing = await host.inject({ method: 'GET', url: '/elsewhere' })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().message, 'Route GET:/elsewhere not found', 'the host keeps its own 404')
  t.equal(host.hasDecorator('sessions'), false)
})

t.test('the host decides which methods its server knows: the plugin adds none, supportEveryMethod adds every one', async t => {
  const plain = Fastify()
  const before = [...plain.supportedMethods]
  await plain.register(app)
  t.teardown(() => plain.close())
  t.same(plain.supportedMethods, before, 'registering the plugin leaves the method list alone')
  t.notOk(before.includes('PROPFIND'), 'Fastify does not know PROPFIND by itself')
  const unknown = await plain.inject({ method: 'PROPFIND' as 'GET', url: '/secret/note' })
  t.equal(unknown.statusCode, 404, 'a method the server does not know: the 404 of the service')
  t.same(unknown.json(), { errorMessages: ['No resource at PROPFIND /secret/note'] })
  const known = await plain.inject({ method: 'PATCH', url: '/secret/note' })
  t.equal(known.statusCode, 405, 'a method it knows: 405')

  const every = Fastify()
  supportEveryMethod(every)
  await every.register(app)
  t.teardown(() => every.close())
  t.same(EVERY_METHOD.filter(method => !every.supportedMethods.includes(method)), [], 'every method Node accepts, CONNECT aside')
  t.notOk(EVERY_METHOD.includes('CONNECT'))
  const refused = await every.inject({ method: 'PROPFIND' as 'GET', url: '/secret/note' })
  t.equal(refused.statusCode, 405)
  t.equal(refused.headers.allow, 'GET, HEAD, POST, OPTIONS')
  t.equal((await every.inject({ method: 'PROPFIND' as 'GET', url: '/heartbeat' })).statusCode, 405)
})

t.test('mounted twice, the two have separate sessions', async t => {
  const host = Fastify()
  await host.register(app, { prefix: '/a' })
  await host.register(app, { prefix: '/b' })
  t.teardown(() => host.close())
  const guid = (await host.inject({ method: 'POST', url: '/a/challenger' })).headers['x-challenger'] as string
  t.equal((await host.inject({ method: 'POST', url: '/a/challenger', headers: { 'x-challenger': guid } })).statusCode, 200)
  t.equal((await host.inject({ method: 'POST', url: '/b/challenger', headers: { 'x-challenger': guid } })).statusCode, 404)
  t.equal((await host.inject({ method: 'GET', url: `/b/challenger/${guid}` })).statusCode, 404)
  t.equal((await host.inject({ method: 'GET', url: '/b/docs/json' })).statusCode, 200)
})

t.test('the app keeps its own rules whatever the host\'s error handler, logger or body limit', async t => {
  const host = Fastify({ bodyLimit: 10, logger: { level: 'fatal' } })
  host.setErrorHandler(async (_error, _request, reply) => reply.code(418).send('host error'))
  host.post('/echo', async request => request.body)
  await host.register(app, { prefix: '/practice' })
  t.teardown(() => host.close())
  const guid = (await host.inject({ method: 'POST', url: '/practice/challenger' })).headers['x-challenger'] as string
  const token = (await host.inject({
    method: 'POST',
    url: '/practice/secret/token',
    headers: { 'x-challenger': guid, authorization: 'Basic ' + Buffer.from('admin:password').toString('base64') }
  })).headers['x-auth-token'] as string
  const headers = { 'x-challenger': guid, 'x-auth-token': token, 'content-type': 'application/json' }
  const long = await host.inject({ method: 'POST', url: '/practice/secret/note', headers, payload: { note: 'x'.repeat(1000) } })
  t.equal(long.statusCode, 200, 'the app\'s body limit, not the host\'s')
  const bad = await host.inject({ method: 'POST', url: '/practice/secret/note', headers, payload: '{' })
  t.equal(bad.statusCode, 400)
  t.same(bad.json().errorMessages.length, 1, 'the app\'s error format, not the host\'s')
  const hostBad = await host.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: '{"x":"0123456789"}' })
  t.equal(hostBad.statusCode, 418, 'the host keeps its own error handler')
  // A route that takes no body reads and drops one under the app's limit, not the host's: the
  // app's default body policy, with no call in the route's plugin.
  for (const [url, status] of [['/practice/challenger', 200], ['/practice/secret/token', 401]] as const) {
    const text = { 'content-type': 'text/plain', 'x-challenger': guid }
    t.equal((await host.inject({ method: 'POST', url, headers: text, payload: 'x'.repeat(1000) })).statusCode, status, `${url}: 1000 bytes are read and dropped`)
    const huge = await host.inject({ method: 'POST', url, headers: text, payload: 'x'.repeat(20_000) })
    t.equal(huge.statusCode, 413, `${url}: over the app's limit`)
    t.same(huge.json(), { errorMessages: ['The request body is larger than the limit of 16384 bytes'] })
  }
})

t.test('an exception inside a handler or hook is a 500 with the error body and a log line', async t => {
  const lines: string[] = []
  const host = Fastify({ logger: { level: 'error', stream: { write: (line: string) => { lines.push(line) } } } })
  class FailingStore extends MemoryStore {
    override create (): never { throw new Error('boom at /internal/place') }
    override get (): never { throw new TypeError('lookup exploded') }
  }
  await host.register(app, { store: new FailingStore() })
  t.teardown(() => host.close())
  for (const [method, url, headers] of [['POST', '/challenger', {}], ['GET', '/heartbeat', { 'x-challenger': 'someone' }]] as const) {
    const res = await host.inject({ method, url, headers })
    t.equal(res.statusCode, 500, `${method} ${url}`)
    t.same(res.json(), { errorMessages: ['Internal Server Error'] })
    t.notMatch(res.body, /boom|exploded|internal/)
  }
  t.ok(lines.some(line => /boom at \/internal\/place/.test(line) && /"msg":"request failed"/.test(line)), 'the handler\'s error is logged')
  t.ok(lines.some(line => /lookup exploded/.test(line) && /"msg":"request failed"/.test(line)), 'the hook\'s error is logged')
  t.equal((await host.inject({ method: 'GET', url: '/heartbeat' })).statusCode, 204, 'and it goes on answering')
})

t.test('in a host\'s own server, two Host headers, or none in HTTP/1.1, are 400 with Connection: close, and a request pipelined after it is not answered', async t => {
  const host = Fastify()
  await host.register(app, { store: new MemoryStore() })
  await host.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => host.close())
  const { port } = host.server.address() as { port: number }
  for (const [what, head] of [['two', 'Host: a\r\nHost: b\r\n'], ['none', '']] as const) {
    const socket = connect(port, '127.0.0.1')
    let raw = ''
    socket.setEncoding('utf8').on('data', (chunk: string) => { raw += chunk })
    socket.write(`GET /heartbeat HTTP/1.1\r\n${head}\r\n` + 'GET /heartbeat HTTP/1.1\r\nHost: x\r\n\r\n')
    await once(socket, 'close')
    t.same(raw.match(/^HTTP\/1\.1 \d+/gm), ['HTTP/1.1 400'], `${what}: the 400 alone`)
    t.match(raw, /\r\nconnection: close\r\n/i, what)
  }
})
