// The OpenAPI document: valid OpenAPI 3, every route of the app in it, and every documented answer of
// the secret and heartbeat routes produced by a real request.
import SwaggerParser from '@apidevtools/swagger-parser'
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify'
import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import app from '../../src/app.js'
import { asLiveWidget } from '../../plugins/docs.js'
import { BASIC_GUESSES_PER_SESSION } from '../../plugins/auth.js'
import { challenges, resourceOf, SOLUTIONS_BASE, type Challenge } from '../../src/domain/challenges/catalogue.js'
import { VERSION } from '../../src/domain/config/options.js'
import type { AddressInfo } from 'node:net'
import { basic, build } from '../helper.js'
import { begun, listenerClosed } from '../sockets.js'

interface Operation {
  responses: Record<string, unknown>
  security?: unknown
  description?: string
  requestBody?: { required?: boolean, content: Record<string, { example?: unknown, examples: Record<string, { summary: string, value: object }> }> }
}
type OpenApi = {
  paths: Record<string, Record<string, Operation>>
  servers: Array<{ url: string, description: string }>
  components: { securitySchemes: Record<string, unknown> }
  info: { version: string }
}
// Path parameters as OpenAPI writes them; the prefix's own root without its slash, which
// @fastify/swagger writes one way for GET and the other for HEAD.
const openApiPath = (url: string): string => url.replace(/:(\w+)/g, '{$1}').replace(/^\/practice\/$/, '/practice')

/** A host with the app under /practice, recording every route it registers and every answer it gives. */
async function host (t: Test) {
  const routes = new Set<string>()
  const answered = new Set<string>()
  // return503OnClosing off, as src/server.ts sets it, so answers during a close come from the app.
  const server: FastifyInstance = Fastify({ return503OnClosing: false, forceCloseConnections: false })
  const registered: RouteOptions[] = []
  // The app's own onRoute hooks run after this one on the same options: read them once all are in.
  server.addHook('onRoute', route => { registered.push(route) })
  server.addHook('onReady', async () => {
    for (const route of registered) {
      const schema = route.schema as { hide?: boolean, response?: Record<string, unknown> } | undefined
      // Marked hidden: see the test below for which.
      const hidden = schema?.hide === true ? `hidden${Object.keys(schema.response ?? {}).join() === '405' ? '-405' : ''} ` : ''
      for (const method of [route.method].flat()) routes.add(`${hidden}${method} ${openApiPath(route.url)}`)
    }
  })
  server.addHook('onResponse', async (request, reply) => {
    answered.add(`${request.method} ${openApiPath(request.routeOptions.url ?? '')} ${reply.statusCode}`)
  })
  await server.register(app, { prefix: '/practice', creationRateLimit: 2 })
  t.teardown(() => server.close())
  await server.ready()
  return { server, routes, answered }
}

t.test('the document is valid OpenAPI 3 with the security schemes', async t => {
  const { server } = await host(t)
  const res = await server.inject('/practice/docs/json')
  t.equal(res.statusCode, 200)
  const doc = res.json() as OpenApi
  await t.resolves(SwaggerParser.validate(structuredClone(doc) as never), 'valid')
  t.same(Object.keys(doc.components.securitySchemes).sort(), ['authToken', 'basic', 'bearer', 'challenger'])
  t.same(doc.components.securitySchemes.authToken, { type: 'apiKey', in: 'header', name: 'X-AUTH-TOKEN', description: 'Your token, from POST /secret/token' })
  t.equal(doc.info.version, VERSION)
  t.equal(VERSION, JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version, 'the version is the package\'s')
  const yaml = await server.inject('/practice/docs/yaml')
  t.equal(yaml.statusCode, 200)
  t.match(yaml.body, /^openapi: 3\.0\.3/m)
  const ui = await server.inject('/practice/docs')
  t.equal(ui.statusCode, 200, 'Swagger UI is served')
})

t.test('a negotiated answer: one schema at run time, three media types in the document, each with its example', async t => {
  const server = Fastify()
  t.teardown(() => server.close())
  const responses: Array<Record<string, Record<string, unknown>>> = []
  server.addHook('onRoute', route => {
    if (route.method === 'POST' && route.url === '/practice/secret/note') responses.push((route.schema as { response: Record<string, Record<string, unknown>> }).response)
  })
  await server.register(app, { prefix: '/practice' })
  await server.ready()
  t.equal(responses.length, 1)
  const note = responses[0]?.['200'] ?? {}
  t.equal(note.content, undefined, 'the route\'s own schema has no media types: Fastify serializes by status alone')
  t.match(note, { type: 'object', properties: { note: { type: 'string' } } })
  const doc = (await server.inject('/practice/docs/json')).json() as OpenApi
  const documented = doc.paths['/secret/note']?.post?.responses as Record<string, { content: Record<string, { schema: { type: string, example?: string }, example?: unknown }> }>
  t.same(Object.keys(documented['200']?.content ?? {}), ['application/json', 'application/xml', 'text/xml'])
  t.same(documented['200']?.content['application/json']?.example, { note: 'my secret' }, 'JSON with its example')
  t.match(documented['200']?.content['application/xml']?.schema, { type: 'string', example: '<?xml version="1.0" encoding="UTF-8"?><secretnote><note>my secret</note></secretnote>' })
  const errorXml = { type: 'string', example: '<?xml version="1.0" encoding="UTF-8"?><errorMessages><errorMessage>what was wrong</errorMessage></errorMessages>' }
  t.match(documented['403']?.content['application/xml']?.schema, errorXml, 'an error, as XML')
  t.match(documented['403']?.content['text/xml']?.schema, errorXml, 'as text/xml too')
  t.same(documented['403']?.content['application/json']?.example, { errorMessages: ['A token that is not this session\'s'] })
  t.notMatch(JSON.stringify(doc), /x-xml-example/, 'the marker stays out of the document')
})

t.test('every asset the Swagger UI page loads answers 200 under the prefix', async t => {
  const { server } = await host(t)
  const page = await server.inject('/practice/docs')
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map(match => new URL(match[1] as string, 'http://host/practice/docs/').pathname)
  t.ok(assets.length >= 5, `${assets.length} assets: ${assets.join(', ')}`)
  t.ok(assets.every(path => path.startsWith('/practice/docs/static/')), 'all under the prefix')
  // The initializer names the document relative to the page (/practice/docs/json); the page is
  // blank when any of these is missing.
  const initializer = assets.find(path => path.endsWith('swagger-initializer.js')) as string
  t.match((await server.inject(initializer)).body, /resolveUrl\('\.\/json'\)/)
  t.equal((await server.inject('/practice/docs/json')).statusCode, 200)
  for (const path of assets) {
    const res = await server.inject(path)
    t.equal(res.statusCode, 200, path)
    t.ok(Number(res.headers['content-length'] ?? res.body.length) > 0, `${path} has a body`)
  }
  t.equal((await server.inject({ method: 'OPTIONS', url: '/practice/docs/static/index.css' })).statusCode, 404, 'OPTIONS on an asset is still 404')
})

/** The operations of a document, as `METHOD /path`. */
function operationsOf (doc: OpenApi): string[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map(method => `${method.toUpperCase()} ${path}`))
}

/** The operations a learner uses, each once: no HEAD, no /api copy, OPTIONS only for the heartbeat. */
const LEARNER_OPERATIONS = [
  'POST /challenger',
  'POST /challenger/{guid}/findings',
  'GET /challenger/{guid}',
  'PUT /challenger/{guid}',
  'PATCH /challenger/{guid}',
  'GET /challenger/{guid}/requests',
  'GET /challenges',
  'GET /heartbeat',
  'OPTIONS /heartbeat',
  'PATCH /heartbeat',
  'TRACE /heartbeat',
  'DELETE /heartbeat',
  'PUT /heartbeat',
  'POST /heartbeat',
  'POST /secret/token',
  'GET /secret/note',
  'POST /secret/note',
  // Grading runs: at the root only (their bases are the API's third copy, hidden).
  'POST /grades',
  'GET /grades/{grade}',
  'POST /grades/{grade}/results'
]

t.test('the document shows each operation a learner uses, once, and names both bases as its servers', async t => {
  const { server, routes } = await host(t)
  const doc = (await server.inject('/practice/docs/json')).json() as OpenApi
  t.same(operationsOf(doc).sort(), [...LEARNER_OPERATIONS].sort())
  t.same(doc.servers, [
    { url: '/practice', description: 'The paths at the service\'s root, as the reference\'s v1 has them' },
    { url: '/practice/api', description: 'The paths as the reference\'s 2026 tutorials send them, under /api' }
  ])
  // Each operation is there to be called: at the first server's paths, and at the second's.
  for (const operation of LEARNER_OPERATIONS) {
    const [method, path] = operation.split(' ') as [string, string]
    t.ok(routes.has(`${method} /practice${path}`), `${operation} is a route`)
    if (path.startsWith('/grades')) t.notOk(routes.has(`hidden ${method} /practice/api${path}`), `${operation} is at the root only`)
    else t.ok(routes.has(`hidden ${method} /practice/api${path}`) || routes.has(`hidden-405 ${method} /practice/api${path}`), `${operation} is a hidden route under /api`)
  }
  t.ok(routes.has('HEAD /practice/secret/note'), 'HEAD answers, unlisted')
  t.ok(routes.has('hidden OPTIONS /practice/secret/note'), 'OPTIONS answers, hidden but at the heartbeat')

  const root = Fastify()
  await root.register(app)
  t.teardown(() => root.close())
  const atRoot = (await root.inject('/docs/json')).json() as OpenApi
  t.same(operationsOf(atRoot).sort(), [...LEARNER_OPERATIONS].sort(), 'the same at the root')
  t.same(atRoot.servers.map(server => server.url), ['/', '/api'])
})

t.test('each operation whose requests pass a challenge links the reference\'s solution page of each, marked as external', async t => {
  const { server } = await host(t)
  const doc = (await server.inject('/practice/docs/json')).json() as OpenApi
  // Written out here, not derived: the catalogue's triggers decide it in the app. The first
  // nineteen; a challenge added since is checked below by its trigger.
  const expected: Record<string, number[]> = {
    'POST /challenger': [1],
    'GET /challenges': [2],
    'DELETE /heartbeat': [25],
    'PATCH /heartbeat': [26],
    'TRACE /heartbeat': [27],
    'GET /heartbeat': [28],
    'POST /secret/token': [29, 30],
    'GET /secret/note': [31, 32, 33, 37],
    'POST /secret/note': [34, 35, 36, 38],
    'POST /heartbeat': [40, 41, 42]
  }
  const first = new Set(Object.values(expected).flat())
  const link = /- Challenge (\d+), ([^\n]+): \[Solution \(external, apichallenges\.com\)\]\((https:\/\/apichallenges\.com\/apichallenges\/solutions\/[a-z-]+\/[a-z0-9-]+)\)/g
  const linked: number[] = []
  for (const operation of LEARNER_OPERATIONS) {
    const [method, path] = operation.split(' ') as [string, string]
    const description = doc.paths[path]?.[method.toLowerCase()]?.description ?? ''
    const links = [...description.matchAll(link)]
    t.same(links.map(match => Number(match[1])).filter(id => first.has(id)), expected[operation] ?? [], operation)
    for (const [, id, name, url] of links) {
      const challenge = challenges.find(c => c.id === Number(id))
      t.equal(name, challenge?.name, `${operation}: challenge ${id}'s name`)
      t.equal(url, `${SOLUTIONS_BASE}${challenge?.solution}`, `${operation}: challenge ${id}'s page`)
      t.equal(`${challenge?.trigger.split(' ')[0]} ${resourceOf(challenge?.trigger ?? 'GET /heartbeat').replace(/:(\w+)/g, '{$1}')}`, operation, `challenge ${id} is passed by ${operation}`)
      linked.push(Number(id))
    }
  }
  t.same(linked.sort((a, b) => a - b), challenges.filter(c => c.solution !== undefined).map(c => c.id), 'each challenge with a page is linked once')
  t.equal(doc.paths['/heartbeat']?.get?.description,
    'An X-CHALLENGER over 100 characters is 431 here as on every route; begun with your session id, it passes challenge 47.\n\n' +
    '- Challenge 28, GET /heartbeat (204): [Solution (external, apichallenges.com)](https://apichallenges.com/apichallenges/solutions/status-codes/get-heartbeat-204)\n' +
    '- Challenge 47, GET /api/heartbeat (431) X-CHALLENGER too long: [Solution (external, apichallenges.com)](https://apichallenges.com/apichallenges/solutions/status-codes/x-challenger-too-long-431)')
  t.match(doc.paths['/heartbeat']?.trace?.description, /^A browser cannot send TRACE[^]*\n\n- Challenge 27, /, 'after the operation\'s own description')
  t.equal(doc.paths['/heartbeat']?.post?.description?.split('\n').length, 3)
})

t.test('a challenge without a solution page gets no link', async t => {
  const { solutionList, challengesOf } = await import('../../src/domain/challenges/solutions.js')
  const [created] = challengesOf(['POST'], '/challenger')
  t.equal(created?.id, 1)
  t.equal(solutionList([{ ...created as Challenge, solution: undefined }]), '')
  t.same(challengesOf(['PUT', 'HEAD'], '/heartbeat'), [], 'no challenge is passed by PUT or HEAD /heartbeat')
  t.same(challengesOf(['GET'], '/challenger/:guid/requests'), [])
  t.same(challengesOf(['GET', 'PUT'], '/challenger/:guid').map(c => c.id), [43, 44, 45, 46], 'the 2026 restore challenges')
})

t.test('solutionLinks: false leaves the links out', async t => {
  const server = Fastify()
  await server.register(app, { solutionLinks: false })
  t.teardown(() => server.close())
  const doc = (await server.inject('/docs/json')).json() as OpenApi
  t.notMatch(JSON.stringify(doc), /apichallenges\.com|Solution/)
  t.equal(doc.paths['/heartbeat']?.get?.description, 'An X-CHALLENGER over 100 characters is 431 here as on every route; begun with your session id, it passes challenge 47.', 'its own description, and no link')
  t.match(doc.paths['/heartbeat']?.trace?.description, /^A browser cannot send TRACE/)
})

t.test('POST /challenger\'s body example, the one "Try it out" sends untouched, names no one; naming is documented', async t => {
  const { server } = await host(t)
  const doc = (await server.inject('/practice/docs/json')).json() as OpenApi
  const post = doc.paths['/challenger']?.post
  const json = post?.requestBody?.content['application/json']
  t.same(json?.examples, {
    unnamed: { summary: 'An unnamed session', value: {} },
    named: { summary: 'A session named for the class board', value: { name: 'Ada' } },
    hunt: { summary: 'A bug hunt: three hidden defects to find', value: { hunt: true } }
  })
  t.equal(json?.example, undefined)
  t.equal(post?.requestBody?.required, false, 'the body may be left out')
  t.equal(doc.paths['/secret/note']?.post?.requestBody?.required, true, 'where it may not, it is required')
  t.notMatch(JSON.stringify(doc), /x-optional-body/, 'the marker stays out of the document')
  t.match(post?.description, /^Without a body, or with `\{\}` \(what "Try it out" sends untouched\), the new session has no name\. To name it for the class board, send `\{"name": "Ada"\}`/)
  const sent = await server.inject({ method: 'POST', url: '/practice/challenger', payload: json?.examples.unnamed?.value })
  t.equal(sent.statusCode, 201)
  const guid = sent.headers['x-challenger'] as string
  t.notOk('name' in (await server.inject(`/practice/challenger/${guid}`)).json(), 'the unnamed example makes an unnamed session')
  const named = await server.inject({ method: 'POST', url: '/practice/challenger', payload: json?.examples.named?.value })
  t.equal((await server.inject(`/practice/challenger/${named.headers['x-challenger'] as string}`)).json().name, 'Ada')
})

t.test('every documented answer of the secret and heartbeat routes is produced by a request', async t => {
  const { server, answered } = await host(t)
  const doc = (await server.inject('/practice/docs/json')).json() as OpenApi
  const send = (method: string, url: string, headers: Record<string, string> = {}, payload?: string) =>
    server.inject({ method: method as 'GET', url: `/practice${url}`, headers, payload })
  const guid = (await send('POST', '/challenger')).headers['x-challenger'] as string
  const token = (await send('POST', '/secret/token', { 'x-challenger': guid, authorization: basic('admin', 'password') })).headers['x-auth-token'] as string
  const me = { 'x-challenger': guid, 'x-auth-token': token }
  const json = { 'content-type': 'application/json' }
  await send('POST', '/secret/token', { 'x-challenger': guid })
  await send('POST', '/secret/token', { 'x-challenger': guid, 'content-type': 'text/plain' }, 'x'.repeat(20_000))
  await send('POST', '/secret/token', { 'x-challenger': guid, 'content-type': 'not a media type' }, 'x')
  // One more wrong Basic credential than a session may send: the last is 429.
  for (let i = 0; i <= BASIC_GUESSES_PER_SESSION; i++) await send('POST', '/secret/token', { 'x-challenger': guid, authorization: basic('admin', `guess-${i}`) })
  for (const method of ['GET', 'HEAD']) {
    await send(method, '/secret/note', me)
    await send(method, '/secret/note', { 'x-challenger': guid })
    await send(method, '/secret/note', { ...me, 'x-auth-token': 'wrong' })
  }
  await send('POST', '/secret/note', { ...me, ...json }, '{"note":"n"}')
  await send('POST', '/secret/note', { ...me, ...json }, '{"note":1}')
  await send('POST', '/secret/note', { 'x-challenger': guid, ...json }, '{"note":"n"}')
  await send('POST', '/secret/note', { ...me, 'x-auth-token': 'wrong', ...json }, '{"note":"n"}')
  await send('POST', '/secret/note', { ...me, ...json }, JSON.stringify({ note: 'x'.repeat(20_000) }))
  await send('POST', '/secret/note', { ...me, 'content-type': 'text/plain' }, 'n')
  for (const method of ['GET', 'HEAD', 'OPTIONS', 'PATCH', 'TRACE', 'DELETE', 'PUT', 'POST']) await send(method, '/heartbeat')
  for (const override of ['PATCH', 'TRACE']) await send('POST', '/heartbeat', { 'x-http-method-override': override })
  for (const url of ['/secret/note', '/secret/token']) {
    for (const method of ['OPTIONS', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'TRACE']) await send(method, url)
  }
  // The heartbeat's 503 comes only while the server closes, to a request already on a connection.
  await server.listen({ port: 0, host: '127.0.0.1' })
  const port = (server.server.address() as AddressInfo).port
  const late = ['GET', 'HEAD'].map(method => begun(port, `${method} /practice/heartbeat HTTP/1.1\r\nHost: x\r\n`))
  await fetch(`http://127.0.0.1:${port}/practice/heartbeat`)
  const closed = server.close()
  await listenerClosed(port)
  for (const request of late) t.match(await request.finish('\r\n'), /^HTTP\/1\.1 503 /)
  await closed
  const missing: string[] = []
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (!/^\/(secret|heartbeat)/.test(path)) continue
    for (const [method, op] of Object.entries(ops)) {
      for (const status of Object.keys(op.responses)) {
        const key = `${method.toUpperCase()} /practice${path} ${status}`
        if (!answered.has(key)) missing.push(key)
      }
    }
  }
  t.same(missing, [])
})

t.test('docs: false serves no document', async t => {
  const server = Fastify()
  await server.register(app, { docs: false })
  t.teardown(() => server.close())
  t.equal((await server.inject('/docs/json')).statusCode, 404)
  t.equal((await server.inject('/heartbeat')).statusCode, 204)
})

t.test('documentAs files a plugin\'s operations under its tag, with the optional X-CHALLENGER unless a route names its own', async t => {
  const { default: swagger } = await import('@fastify/swagger')
  const { default: openapi } = await import('../../plugins/openapi.js')
  const server = Fastify()
  t.teardown(() => server.close())
  const schemes = { challenger: { type: 'apiKey', in: 'header', name: 'X-CHALLENGER' }, basic: { type: 'http', scheme: 'basic' } } as const
  await server.register(swagger, { openapi: { openapi: '3.0.3', info: { title: 't', version: '1' }, components: { securitySchemes: schemes } } })
  await server.register(openapi, { solutionLinks: false })
  await server.register(async plugin => {
    plugin.documentAs('heartbeat')
    plugin.get('/bare', async () => 'no schema at all')
    plugin.get('/own', { schema: { security: [{ basic: [] }] } }, async () => 'its own requirement')
  })
  await server.ready()
  const paths = (server.swagger() as unknown as OpenApi).paths
  t.same(paths['/bare']?.get, { tags: ['heartbeat'], security: [{ challenger: [] }, {}], responses: { 200: { description: 'Default Response' } } })
  t.same(paths['/own']?.get?.security, [{ basic: [] }])
})

t.test('Swagger UI\'s token requests say X-API-Challenges-Live-Widget, so that a refused login shows no browser dialog (issue 58)', async t => {
  const app = await build(t)
  const initializer = (await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })).body
  const script = /"requestInterceptor":(function asLiveWidget\(request\) \{[^]*?\n\s*\})\}/.exec(initializer)?.[1] as string
  t.ok(script, 'the interceptor is in the page\'s script')
  // eslint-disable-next-line no-new-func -- the page's own function, run as the browser runs it
  const intercept = new Function(`return (${script})`)() as (request: { url: string, headers: Record<string, string> }) => { headers: Record<string, string> }
  t.same(intercept({ url: 'http://h/secret/token', headers: {} }).headers, { 'X-API-Challenges-Live-Widget': 'true' })
  t.same(intercept({ url: 'http://h/api/secret/token?x=1', headers: {} }).headers, { 'X-API-Challenges-Live-Widget': 'true' })
  t.same(intercept({ url: 'http://h/secret/note', headers: {} }).headers, {}, 'the note\'s requests as they are')
  // The same function, as this process has it.
  t.same(asLiveWidget({ url: '/secret/token#x', headers: { Accept: '*/*' } }).headers, { Accept: '*/*', 'X-API-Challenges-Live-Widget': 'true' })
  t.same(asLiveWidget({ url: '/secret/tokens', headers: {} }).headers, {})
})
