// Every route's hooks, as plugins/pipeline.ts composes them: a table, so that a step added to every
// route, or a global hook, shows here as a failure to look into, not as a slower service found later.
// The hooks are read from each route's own context (Fastify keeps it on the request), the global
// ones (@fastify/cors's, helmet's on the pages) included; with an admin token, each route has the
// metrics' onError too.
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import t from 'tap'
import app from '../../src/app.js'
import { createServer } from '../../src/server.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'

/** The hooks Fastify runs for each phase of a route, by name: "onRequest: a b | onSend: c". */
type Hooks = string

const PHASES = ['onRequest', 'preParsing', 'preValidation', 'preHandler', 'preSerialization', 'onSend', 'onResponse', 'onError', 'onTimeout', 'onRequestAbort']

const API = 'handleCors arrive lookUpSession'
const PAGE = 'handleCors helmetConfigureReply helmetApplyHeaders arrive'
const DOCS = `onRequest: ${PAGE} | preHandler: sendDocument | onSend: shareAssets`
const IN_URL = `${API} lookUpSessionInUrl`
const ADMIN = 'handleCors arrive adminOnly'

/** Each kind of route's hooks, and the routes of that kind at the root (`/api`'s are the same, checked apart). */
const TABLE: Array<[Hooks, string[]]> = [
  // Unknown paths, and @fastify/cors's catch-all OPTIONS route, which answers as one (a route of the app's context: its
  // requests are given the API's fields first).
  [`onRequest: ${API} notFound | onSend: finish`, ['404']],
  ['onRequest: handleCors apiFields arrive lookUpSession notFound | onSend: finish', ['OPTIONS *']],
  [`onRequest: ${API} | onSend: finish`, ['GET /heartbeat', 'HEAD /heartbeat', 'POST /challenger', 'POST /secret/token']],
  // The heartbeat reads no body: one that is sent has its Content-Type set aside (the journal says what it was).
  [`onRequest: ${API} | preParsing: setAside | onSend: finish`, ['OPTIONS /heartbeat', 'PATCH /heartbeat', 'TRACE /heartbeat', 'DELETE /heartbeat', 'PUT /heartbeat', 'POST /heartbeat']],
  [`onRequest: ${API} answerEarly | preParsing: setAside | onSend: finish`, ['ACL /heartbeat']],
  [`onRequest: ${API} options | onSend: finish`, ['OPTIONS /challenger', 'OPTIONS /challenges', 'OPTIONS /secret/token', 'OPTIONS /secret/note']],
  [`onRequest: ${API} notAllowed | onSend: finish`, ['GET /challenger', 'TRACE /challenges', 'GET /secret/token', 'TRACE /secret/note']],
  [`onRequest: ${API} requireAcceptable | preSerialization: toXml | onSend: finish`, ['GET /challenges']],
  [`onRequest: ${API} requireAcceptable | preSerialization: toXml | onSend: headRouteOnSendHandler finish`, ['HEAD /challenges']],
  [`onRequest: ${API} requireAcceptable | preHandler: requireToken | preSerialization: toXml | onSend: finish`, ['GET /secret/note']],
  [`onRequest: ${API} requireAcceptable | preHandler: requireToken | preSerialization: toXml | onSend: headRouteOnSendHandler finish`, ['HEAD /secret/note']],
  // The note write: 9 hooks (20 before the pipeline).
  [`onRequest: ${API} requireAcceptable | preParsing: setAside | preHandler: requireToken judgeBody | preSerialization: toXml | onSend: finish`, ['POST /secret/note']],
  [`onRequest: ${IN_URL} requireAcceptable | preSerialization: toXml | onSend: finish`, ['GET /challenger/:guid']],
  [`onRequest: ${IN_URL} requireAcceptable | preSerialization: toXml | onSend: headRouteOnSendHandler finish`, ['HEAD /challenger/:guid']],
  [`onRequest: ${IN_URL} requireAcceptable | preParsing: setAside | preHandler: judgeBody | preSerialization: toXml | onSend: finish`, ['PUT /challenger/:guid', 'PATCH /challenger/:guid', 'POST /challenger/:guid/findings']],
  [`onRequest: ${IN_URL} acceptableUnlessReplay | preSerialization: toXml | onSend: finish`, ['GET /challenger/:guid/requests']],
  [`onRequest: ${IN_URL} acceptableUnlessReplay | preSerialization: toXml | onSend: headRouteOnSendHandler finish`, ['HEAD /challenger/:guid/requests']],
  [`onRequest: ${IN_URL} options | onSend: finish`, ['OPTIONS /challenger/:guid', 'OPTIONS /challenger/:guid/requests', 'OPTIONS /challenger/:guid/findings']],
  [`onRequest: ${IN_URL} notAllowed | onSend: finish`, ['TRACE /challenger/:guid', 'TRACE /challenger/:guid/requests', 'GET /challenger/:guid/findings']],
  // The operators' probes: no session, no journal.
  ['onRequest: handleCors arrive answer | onSend: finish', ['GET /livez', 'TRACE /livez', 'GET /readyz', 'TRACE /readyz']],
  ['onRequest: handleCors arrive answer | onSend: headRouteOnSendHandler finish', ['HEAD /livez', 'HEAD /readyz']],
  // The pages and their files: helmet's headers, no session.
  [`onRequest: ${PAGE} | onSend: finish`, ['GET /', 'GET /gui/challenges', 'GET /gui/challenges/:guid', 'GET /gui/challenges/:guid/hunt', 'GET /gui/challenges/:guid/session', 'GET /admin',
    ...['style.css', 'restore.js', 'refresh.js', 'projector.js', 'projector.css', 'name.js', 'icon.svg', 'admin.js', 'admin.css'].map(file => `HEAD /gui/${file}`)]],
  [`onRequest: ${PAGE} | onSend: headRouteOnSendHandler finish`, ['HEAD /', 'HEAD /gui/challenges', 'HEAD /gui/challenges/:guid', 'HEAD /gui/challenges/:guid/hunt', 'HEAD /gui/challenges/:guid/session', 'HEAD /admin']],
  [`onRequest: ${PAGE} options | onSend: finish`, ['OPTIONS /', 'OPTIONS /gui/challenges', 'OPTIONS /gui/challenges/:guid', 'OPTIONS /gui/challenges/:guid/hunt', 'OPTIONS /gui/challenges/:guid/session', 'OPTIONS /admin',
    ...['admin.css', 'admin.js', 'icon.svg', 'name.js', 'projector.css', 'projector.js', 'refresh.js', 'restore.js', 'style.css'].map(file => `OPTIONS /gui/${file}`)]],
  [`onRequest: ${PAGE} notAllowed | onSend: finish`, ['TRACE /', 'TRACE /gui/challenges', 'TRACE /gui/challenges/:guid', 'TRACE /gui/challenges/:guid/hunt', 'TRACE /gui/challenges/:guid/session', 'TRACE /admin',
    ...['admin.css', 'admin.js', 'icon.svg', 'name.js', 'projector.css', 'projector.js', 'refresh.js', 'restore.js', 'style.css'].map(file => `TRACE /gui/${file}`)]],
  [`${DOCS} finish`, ['GET /docs', 'GET /docs/static/index.html', 'GET /docs/static/swagger-initializer.js', 'GET /docs/json', 'GET /docs/yaml', 'HEAD /docs/static/*']],
  [`${DOCS} headRouteOnSendHandler finish`, ['HEAD /docs', 'HEAD /docs/', 'HEAD /docs/static/index.html', 'HEAD /docs/static/swagger-initializer.js', 'HEAD /docs/json', 'HEAD /docs/yaml']],
  // The class board and the metrics: the admin token first.
  [`onRequest: ${ADMIN} | onSend: finish`, ['GET /admin/sessions', 'GET /admin/summary', 'GET /metrics']],
  [`onRequest: ${ADMIN} | onSend: headRouteOnSendHandler finish`, ['HEAD /admin/sessions', 'HEAD /admin/summary', 'HEAD /metrics']],
  [`onRequest: ${ADMIN} options | onSend: finish`, ['OPTIONS /admin/sessions', 'OPTIONS /admin/summary', 'OPTIONS /metrics']],
  [`onRequest: ${ADMIN} notAllowed | onSend: finish`, ['TRACE /admin/sessions', 'TRACE /admin/summary', 'TRACE /metrics']],
  // Grading runs: no API route (no session step, no journal, no defects); the API under each run's bases is the root's twin.
  ['onRequest: handleCors arrive | onSend: finish', ['POST /grades', 'GET /grades/:grade']],
  ['onRequest: handleCors arrive | onSend: headRouteOnSendHandler finish', ['HEAD /grades/:grade']],
  // A grading run's results: no defect can change them, so nothing of the defects' is attached (nor a format step).
  ['onRequest: handleCors arrive | preParsing: setAside | preHandler: judgeBody | onSend: finish', ['POST /grades/:grade/results']],
  ['onRequest: handleCors arrive options | onSend: finish', ['OPTIONS /grades', 'OPTIONS /grades/:grade', 'OPTIONS /grades/:grade/results']],
  ['onRequest: handleCors arrive notAllowed | onSend: finish', ['GET /grades', 'TRACE /grades/:grade', 'GET /grades/:grade/results']]
]

/** Each route's first method and URL, and the hooks Fastify runs for it (found by sending it one request). */
async function hooksOf (server: FastifyInstance, register: (server: FastifyInstance) => void, unknown = '/nothing/here'): Promise<Map<string, Hooks>> {
  const routes: string[] = []
  server.addHook('onRoute', route => { routes.push(`${[route.method].flat()[0] as string} ${route.url}`) })
  let context: Record<string, unknown> | undefined
  // The first hook of every route, this test's own, keeps the context the request runs in.
  server.addHook('onRequest', function capture (request: FastifyRequest, _reply, done) {
    const key = Object.getOwnPropertySymbols(request).find(symbol => symbol.description === 'fastify.context') as symbol
    context = (request as unknown as Record<symbol, Record<string, unknown>>)[key]
    done()
  })
  register(server)
  await server.ready()
  const named = (found: Record<string, unknown>): Hooks => PHASES
    .map(phase => [phase, ((found[phase] ?? []) as Array<{ name: string }>).map(hook => hook.name.replace(/^bound /, '')).filter(name => name !== 'capture')] as const)
    .filter(([, names]) => names.length > 0)
    .map(([phase, names]) => `${phase}: ${names.join(' ')}`)
    .join(' | ')
  const hooks = new Map<string, Hooks>()
  for (const route of [...routes, '404']) {
    const [method, url] = route === '404' ? ['GET', unknown] : route.split(' ') as [string, string]
    context = undefined
    await server.inject({ method: method as 'GET', url: url.replace(':guid', '00000000-0000-4000-8000-00000000abcd').replace('*', 'x') })
    hooks.set(route, context === undefined ? 'none' : named(context))
  }
  return hooks
}

t.test('every route has the hooks of its kind, and /api the same as the root', async t => {
  const server = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { adminToken: 'an-instructor-token-0123' } })
  t.teardown(() => server.close())
  // createServer registered the service already: the test's own hooks come before it is loaded.
  const hooks = await hooksOf(server, () => {})
  const expected = new Map(TABLE.flatMap(([kind, routes]) => routes.map(route => [route, `${kind} | onError: countStoreError`] as const)))
  for (const [route, found] of hooks) {
    const twin = route.replace(' /api/', ' /').replace(' /grades/:grade/:base/', ' /')
    if (twin !== route) {
      // Under a grading base, the base is looked up before the session.
      const base = route.includes(' /grades/:grade/:base/') ? (of: string | undefined) => of?.replace('arrive lookUpSession', 'arrive gradeBase lookUpSession') : (of: string | undefined) => of
      t.equal(found, base(hooks.get(twin)), `${route}: as ${twin}`)
      continue
    }
    t.equal(found, expected.get(route) ?? 'not in the table', route)
  }
  t.same([...expected.keys()].filter(route => !hooks.has(route)), [], 'every route of the table exists')
})

t.test('without an admin token there are no metrics: no route has an onError hook', async t => {
  const server = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: {} })
  t.teardown(() => server.close())
  const hooks = await hooksOf(server, () => {})
  t.equal(hooks.get('POST /secret/note'), TABLE.find(([, routes]) => routes.includes('POST /secret/note'))?.[0])
  t.same([...hooks.entries()].filter(([, found]) => found.includes('onError')), [])
})

t.test('with a store that judges a note write in one step (Redis), the note POST\'s session step is deferSession, and nothing else differs', async t => {
  const plain = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: {} })
  t.teardown(() => plain.close())
  const expected = await hooksOf(plain, () => {})
  // A store that offers the step (plugins/session.ts attaches it at start-up) and knows no session: each request is looked up.
  const store = Object.assign(new MemoryStore(), { plain: () => false, judgeAndRecord: async (): Promise<never> => { throw new Error('no note request is judged here') } })
  t.teardown(() => store.close())
  const server = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store } })
  t.teardown(() => server.close())
  const hooks = await hooksOf(server, () => {})
  t.same([...hooks.keys()], [...expected.keys()], 'the same routes')
  const deferred = new Set(['POST /secret/note', 'POST /api/secret/note'])
  for (const [route, found] of hooks) {
    t.equal(found, deferred.has(route) ? expected.get(route)?.replace('lookUpSession', 'deferSession') : expected.get(route), route)
  }
  t.match(hooks.get('POST /secret/note'), /^onRequest: handleCors arrive deferSession requireAcceptable \|/)
})

t.test('in a host, only the host\'s own global hooks come beside the service\'s', async t => {
  const host = Fastify()
  t.teardown(() => host.close())
  host.addHook('onRequest', function hostsOwn (_request, _reply, done) { done() })
  const hooks = await hooksOf(host, server => { server.register(app, { prefix: '/practice' }) }, '/practice/nothing')
  t.equal(hooks.get('GET /practice/heartbeat'), `onRequest: hostsOwn ${API} | onSend: finish`)
  t.equal(hooks.get('404'), 'onRequest: hostsOwn handleCors arrive lookUpSession notFound | onSend: finish', 'an unknown path under the prefix')
})

// Each route's requests carry only the fields its steps read (plugins/pipeline.ts, "A request carries…"): Fastify
// copies a context's fields into every request it makes there, so a field on every route is paid by every request.
const NEGOTIATION = 'negotiation metricsStart'
const API_FIELDS = `${NEGOTIATION} misspeltChallenger tooLongChallenger session sessionInUrl passedBits change defects defectHit huntFinding journaled`
const BODY_FIELDS = 'bodyError xmlText'
const TOKEN_FIELDS = 'tokenSource tokenVerdict'
/** Fastify's own fields (validationError on a route that judges its body itself, additionalHeaders once headers are changed), and @fastify/cors's. */
const NOT_OURS = new Set(['id', 'params', 'raw', 'query', 'log', 'body', 'validationError', 'additionalHeaders', 'corsPreflightEnabled'])

/** The fields a route's request is expected to carry, by what the route is. */
function expectedFields (route: string): string {
  if (route === '404' || route === 'OPTIONS *') return API_FIELDS
  const url = route.split(' ')[1] as string
  const resource = url.replace(/^\/(api|grades\/:grade\/:base)\//, '/')
  if (resource !== url || ['/heartbeat', '/challenges', '/secret/token', '/secret/note'].includes(url) || url.startsWith('/challenger')) {
    // The API: the routes of the plugins that take bodies (all but the challenges' and the token's) carry the body's fields
    // too, and the note's (the routes that take the token) the token's.
    if (['/challenges', '/secret/token'].includes(resource)) return API_FIELDS
    return resource === '/secret/note' ? `${API_FIELDS} ${BODY_FIELDS} ${TOKEN_FIELDS}` : `${API_FIELDS} ${BODY_FIELDS}`
  }
  // A grading run's results, the one body outside the API; then the pages, the docs, the probes, the board and the metrics.
  return url === '/grades/:grade/results' ? `${NEGOTIATION} ${BODY_FIELDS}` : NEGOTIATION
}

t.test('each route\'s requests carry the fields of its steps and no other', async t => {
  // Without a logger, the metrics keep their own clock (metricsStart) on every request.
  const server = Fastify()
  t.teardown(() => server.close())
  const routes: string[] = []
  server.addHook('onRoute', route => { routes.push(`${[route.method].flat()[0] as string} ${route.url}`) })
  let fields = ''
  // Read as the answer has gone: a field a step wrote without its route's declaring it shows here too.
  server.addHook('onResponse', function capture (request, _reply, done) {
    fields = Object.keys(request).filter(key => !NOT_OURS.has(key)).join(' ')
    done()
  })
  await server.register(app, { adminToken: 'an-instructor-token-0123' })
  await server.ready()
  t.ok(routes.length > 200, 'every route is tried')
  for (const route of [...routes, '404']) {
    const [method, url] = route === '404' ? ['GET', '/nothing/here'] : route.split(' ') as [string, string]
    fields = ''
    // A header near X-CHALLENGER: its hint is given on every route, kept only where the journal reads it.
    await server.inject({ method: method as 'GET', url: url.replace(':guid', '00000000-0000-4000-8000-00000000abcd').replace('*', 'x'), headers: { 'x-challenge': 'a-guid' } })
    t.equal(fields, expectedFields(route), route)
  }
})
