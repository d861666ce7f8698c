// "Did you mean …?" (issue 35): a 404 on a path near a real one says which, in its error message and
// in the journal's entry for it. The nearest path (src/domain/challenges/near-paths.ts) as a plain function, then
// over the app: the kinds of near, the /api base, a host's prefix, XML, the journal.
import Fastify from 'fastify'
import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'
import t from 'tap'
import app from '../../src/app.js'
import { challenges, checkedCatalogue } from '../../src/domain/challenges/catalogue.js'
import { didYouMean, notFoundMessage } from '../../src/domain/challenges/messages.js'
import { editsUpTo2, MAX_SUGGESTED_PATH, NearPaths } from '../../src/domain/challenges/near-paths.js'
import { build, newSession } from '../helper.js'

const GUID = '6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b'

/** The API's paths at the root and under /api, and the pages, docs and admin at the root only, as the app registers them. */
function service (prefix = ''): NearPaths {
  const paths = new NearPaths(prefix)
  // The methods each answers (the heartbeat's refusals are its challenges: it answers them all).
  const api: Array<[string, string[]]> = [
    ['/heartbeat', ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'DELETE', 'PATCH', 'TRACE']],
    ['/challenger', ['POST', 'OPTIONS']],
    ['/challenger/:guid', ['GET', 'HEAD', 'PUT', 'PATCH', 'OPTIONS']],
    ['/challenger/:guid/requests', ['GET', 'HEAD', 'OPTIONS']],
    ['/challenges', ['GET', 'HEAD', 'OPTIONS']],
    ['/secret/token', ['POST', 'OPTIONS']],
    ['/secret/note', ['GET', 'HEAD', 'POST', 'OPTIONS']]
  ]
  const pages: Array<[string, string[]]> = ['/', '/gui/challenges', '/gui/challenges/:guid', '/docs', '/docs/json', '/docs/static/*', '/admin'].map(url => [url, ['GET', 'HEAD']])
  for (const [url, methods] of [...api, ...pages, ...api.map(([path, methods]): [string, string[]] => [`/api${path}`, methods])]) {
    // Each route once per method, as Fastify reports them; a refusing route adds no method.
    for (const method of methods) paths.add(prefix + url, [method])
    paths.add(prefix + url, [])
  }
  return paths
}

t.test('the edit distance, up to 2', async t => {
  t.equal(editsUpTo2('/heartbeat', '/heartbeat'), 0)
  t.equal(editsUpTo2('/heartbeat', '/heartbeats'), 1)
  t.equal(editsUpTo2('/heartbeat', '/hearbeat'), 1)
  t.equal(editsUpTo2('/heartbeat', '/haertbeat'), 2, 'a swap is two')
  t.equal(editsUpTo2('/heartbeat', '/hxxrtbeat'), 2)
  t.equal(editsUpTo2('/heartbeat', '/hxxxtbeat'), 3, 'three replaced: too far')
  t.equal(editsUpTo2('/heartbeat', '/heartbeat123'), 3, 'three longer: too far at once')
  t.equal(editsUpTo2('/ab', '/abcd'), 2, 'only added at the end')
  t.equal(editsUpTo2('/xyz', '/abc'), 3)
  t.equal(editsUpTo2('abcdef', 'xbcdey'), 2)
  t.equal(editsUpTo2('abxdef', 'abydefg'), 2)
  t.equal(editsUpTo2('a'.repeat(1000) + 'x', 'a'.repeat(1000) + 'y'), 1, 'the common start is skipped')
  const long = 'ab'.repeat(150)
  t.equal(editsUpTo2(`x${long}y`, `z${long}w`), 2, 'a text longer than the rows kept: longer rows')
  t.equal(editsUpTo2(`x${long}`, `${long}x`), 2)
  t.equal(editsUpTo2('/heartbeat', '/haertbaet'), 3, 'after longer ones, the rows start clean')
})

t.test('the nearest real path, each kind', async t => {
  const paths = service()
  const near: Array<[string, string | null]> = [
    ['/heartbeats', '/heartbeat'],
    ['/hearbeat', '/heartbeat'],
    ['/heartbeat/', '/heartbeat'],
    ['/HeartBeat', '/heartbeat'],
    ['/HEARTBEATS/', '/heartbeat'],
    ['/secret/notes', '/secret/note'],
    ['/Secret/Token', '/secret/token'],
    ['/challenge', '/challenges'],
    ['/challenges/', '/challenges'],
    ['/challengers', '/challenges'],
    [`/challenger/${GUID}/request`, `/challenger/${GUID}/requests`],
    [`/challenger/${GUID.toUpperCase()}/Requests`, `/challenger/${GUID.toUpperCase()}/requests`],
    ['/challenger/any-id-they-typed/requestz', '/challenger/any-id-they-typed/requests'],
    [`/challengers/${GUID}`, `/challenger/${GUID}`],
    [`/gui/challenge/${GUID}`, `/gui/challenges/${GUID}`],
    ['/doc', '/docs'],
    ['/admn', '/admin'],
    // The other base: the API under /api, the pages and /docs at the root only.
    ['/api/heartbeats', '/api/heartbeat'],
    ['/API/heartbeat', '/api/heartbeat'],
    ['/api/heartbeat/', '/api/heartbeat'],
    [`/api/challenger/${GUID}/request`, `/api/challenger/${GUID}/requests`],
    ['/ap/heartbeat', '/api/heartbeat'],
    ['/api/docs', '/docs'],
    ['/API/Docs/', '/docs'],
    ['/api/gui/challenges', '/gui/challenges'],
    [`/api/gui/challenges/${GUID}`, `/gui/challenges/${GUID}`],
    ['/api/admn', '/admin'],
    // Far, or real.
    ['/nowhere', null],
    ['/heartbeat/123', null],
    ['/x', null],
    ['/ab', null],
    ['/api', null],
    ['/api/nowhere', null],
    ['/todos', null],
    ['/docs/static/x', null],
    [`/challenger/${GUID}/requests/extra`, null],
    ['/heartbeat', null],
    ['/api/heartbeat', null],
    [`/challenger/${GUID}`, null],
    ['/docs', null]
  ]
  for (const [path, expected] of near) t.equal(paths.suggest(path, 'GET'), expected, path)
})

t.test('before the /api copies exist, /api/heartbeat is the root\'s', async t => {
  const paths = new NearPaths('')
  for (const url of ['/heartbeat', '/challenger/:guid/requests']) paths.add(url, ['GET'])
  t.equal(paths.suggest('/api/heartbeat', 'GET'), '/heartbeat')
  t.equal(paths.suggest('/api/heartbeats', 'GET'), '/heartbeat')
  t.equal(paths.suggest(`/api/challenger/${GUID}/request`, 'GET'), `/challenger/${GUID}/requests`)
  t.equal(paths.suggest('/api/challenger', 'GET'), null, 'no segment for the parameter')
  t.equal(paths.suggest('/apix/heartbeat', 'GET'), null)
})

t.test('under a host\'s prefix: the prefix in the suggestion, nothing outside it', async t => {
  const paths = service('/practice')
  t.equal(paths.suggest('/practice/heartbeats', 'GET'), '/practice/heartbeat')
  t.equal(paths.suggest('/practice/api/heartbeats', 'GET'), '/practice/api/heartbeat')
  t.equal(paths.suggest('/practice/api/docs', 'GET'), '/practice/docs')
  t.equal(paths.suggest('/practice/heartbeat', 'GET'), null)
  t.equal(paths.suggest('/other/heartbeats', 'GET'), null)
  paths.add('/elsewhere', ['GET'])
  t.equal(paths.suggest('/practice/elsewher', 'GET'), null, 'a route outside the prefix is not the service\'s')
})

t.test('bounded: no suggestion for a path over MAX_SUGGESTED_PATH characters; ties go to the first registered', async t => {
  const paths = service()
  const id = 'x'.repeat(MAX_SUGGESTED_PATH - '/challenger//request'.length)
  t.equal(paths.suggest(`/challenger/${id}/request`, 'GET'), `/challenger/${id}/requests`, 'at the limit')
  t.equal(paths.suggest(`/challenger/${id}x/request`, 'GET'), null, 'one over')
  const tie = new NearPaths('')
  tie.add('/abcd1', ['GET'])
  tie.add('/abcd2', ['GET'])
  t.equal(tie.suggest('/abcd3', 'GET'), '/abcd1')
})

t.test('among as near, a path that answers the request\'s method first', async t => {
  const paths = service()
  t.equal(paths.suggest('/challenge', 'GET'), '/challenges', 'GET: /challenger takes only POST')
  t.equal(paths.suggest('/challenge', 'POST'), '/challenger')
  t.equal(paths.suggest('/challengers', 'GET'), '/challenges')
  t.equal(paths.suggest('/api/challenge', 'GET'), '/api/challenges')
  t.equal(paths.suggest('/secret/tokens', 'GET'), '/secret/token', 'the only near one, whatever the method')
  // Fewer edits still win over the method.
  t.equal(paths.suggest('/challengerr', 'GET'), '/challenger')
})

t.test('the message and the journal\'s words', async t => {
  t.equal(didYouMean('/heartbeat'), 'did you mean /heartbeat?')
  t.equal(notFoundMessage({ method: 'GET', url: '/nowhere' }), 'No resource at GET /nowhere')
  t.equal(notFoundMessage({ method: 'GET', url: '/nowhere', nearPath: null }), 'No resource at GET /nowhere')
  t.equal(notFoundMessage({ method: 'GET', url: '/heartbeats?x=1', nearPath: '/heartbeat' }), 'No resource at GET /heartbeats?x=1; did you mean /heartbeat?')
})

t.test('the catalogue keeps its near misses to what an entry can hold', async t => {
  const many = challenges.map(c => ({ ...c, nearMisses: Array.from({ length: 10 }, () => c.nearMisses[0]) }))
  t.throws(() => checkedCatalogue(many as typeof challenges), /near misses; the journal keeps at most 126/)
  t.equal(checkedCatalogue(challenges), challenges)
})

t.test('over the app: the 404\'s message, JSON and XML', async t => {
  const service = await build(t, { creationRateLimit: 0 })
  const { guid } = await newSession(service)
  const cases: Array<[string, string | null]> = [
    ['/heartbeats', '/heartbeat'],
    ['/hearbeat?x=1', '/heartbeat'],
    ['/heartbeat/', '/heartbeat'],
    ['/HeartBeat', '/heartbeat'],
    ['/secret/notes', '/secret/note'],
    [`/challenger/${guid}/request`, `/challenger/${guid}/requests`],
    ['/api/docs', '/docs'],
    ['/api/gui/challenges', '/gui/challenges'],
    ['/docs/jsn', '/docs/json'],
    ['/nowhere', null],
    ['/admn', null]
  ]
  for (const [url, near] of cases) {
    const res = await service.inject({ method: 'GET', url })
    t.equal(res.statusCode, 404, url)
    t.same(res.json(), { errorMessages: [`No resource at GET ${url}${near === null ? '' : `; did you mean ${near}?`}`] }, url)
  }
  // The CORS catch-all's OPTIONS on an unknown path is a 404 too.
  t.same((await service.inject({ method: 'OPTIONS', url: '/heartbeats' })).json(), { errorMessages: ['No resource at OPTIONS /heartbeats; did you mean /heartbeat?'] })

  const xml = await service.inject({ method: 'GET', url: '/heartbeats', headers: { accept: 'application/xml' } })
  t.equal(xml.statusCode, 404)
  t.equal(xml.body, '<?xml version="1.0" encoding="UTF-8"?><errorMessages><errorMessage>No resource at GET /heartbeats; did you mean /heartbeat?</errorMessage></errorMessages>')
  // The learner's own segment, escaped wherever it goes: in XML as an entity.
  const odd = await service.inject({ method: 'GET', url: "/challenger/it's&/request", headers: { accept: 'application/xml' } })
  t.equal(odd.body, '<?xml version="1.0" encoding="UTF-8"?><errorMessages><errorMessage>No resource at GET /challenger/it&apos;s&amp;/request; did you mean /challenger/it&apos;s&amp;/requests?</errorMessage></errorMessages>')
})

t.test('routes registered later count: the admin pages only when they are on', async t => {
  const admin = await build(t, { adminToken: 'a'.repeat(32) })
  t.same((await admin.inject({ method: 'GET', url: '/admn' })).json(), { errorMessages: ['No resource at GET /admn; did you mean /admin?'] })
  const noDocs = await build(t, { docs: false })
  t.same((await noDocs.inject({ method: 'GET', url: '/doc' })).json(), { errorMessages: ['No resource at GET /doc'] })
})

t.test('under a host\'s prefix, the suggestion is under it', async t => {
  const host = Fastify()
  await host.register(app, { prefix: '/practice' })
  t.teardown(() => host.close())
  t.same((await host.inject({ method: 'GET', url: '/practice/heartbeats' })).json(), { errorMessages: ['No resource at GET /practice/heartbeats; did you mean /practice/heartbeat?'] })
  t.same((await host.inject({ method: 'GET', url: '/practice/api/docs' })).json(), { errorMessages: ['No resource at GET /practice/api/docs; did you mean /practice/docs?'] })
  t.same((await host.inject({ method: 'GET', url: '/practice/HeartBeat' })).json(), { errorMessages: ['No resource at GET /practice/HeartBeat; did you mean /practice/heartbeat?'] })
  // A real path with a method this server does not route: no suggestion, the path is right.
  t.same((await host.inject({ method: 'PROPFIND' as 'GET', url: '/practice/secret/note' })).json(), { errorMessages: ['No resource at PROPFIND /practice/secret/note'] })
})

t.test('the journal\'s entry of the 404 has the hint, JSON and XML', async t => {
  const service = await build(t, { creationRateLimit: 0 })
  const { guid } = await newSession(service)
  const other = await newSession(service)
  const sent = ['/heartbeats', `/challenger/${guid}/request`, `/challenger/${other.guid}/request`, '/api/docs?x=1', '/nowhere', '/heartbeat']
  for (const url of sent) await service.inject({ method: 'GET', url, headers: { 'x-challenger': guid } })
  const list = (await service.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json().requests as Array<{ path: string, status: number, hint: string | null }>
  t.same(list.slice(0, sent.length).reverse().map(e => [e.path, e.status, e.hint]), [
    ['/heartbeats', 404, 'did you mean /heartbeat?'],
    [`/challenger/${guid}/request`, 404, `did you mean /challenger/${guid}/requests?`],
    [`/challenger/${other.guid}/request`, 404, 'did you mean /challenger/:guid/requests?'],
    ['/api/docs', 404, 'did you mean /docs?'],
    ['/nowhere', 404, null],
    ['/heartbeat', 204, null]
  ])
  const xml = (await service.inject({ method: 'GET', url: `/challenger/${guid}/requests`, headers: { accept: 'application/xml' } })).body
  t.ok(xml.includes('<path>/heartbeats</path><status>404</status><passed/><hint>did you mean /heartbeat?</hint>'), xml)
})

t.test('a path sent raw with < and " in it: escaped in XML, a JSON string in JSON', async t => {
  const service = await build(t)
  await service.listen({ port: 0, host: '127.0.0.1' })
  const port = (service.server.address() as AddressInfo).port
  const raw = async (path: string, accept: string): Promise<string> => await new Promise(resolve => {
    let text = ''
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nAccept: ${accept}\r\nConnection: close\r\n\r\n`))
    socket.on('data', chunk => { text += String(chunk) })
    socket.on('end', () => { resolve(text.slice(text.indexOf('\r\n\r\n') + 4)) })
  })
  t.equal(await raw('/challenger/<b>"x/request', 'application/xml'), '<?xml version="1.0" encoding="UTF-8"?><errorMessages><errorMessage>No resource at GET /challenger/&lt;b&gt;&quot;x/request; did you mean /challenger/&lt;b&gt;&quot;x/requests?</errorMessage></errorMessages>')
  t.same(JSON.parse(await raw('/challenger/<b>"x/request', 'application/json')), { errorMessages: ['No resource at GET /challenger/<b>"x/request; did you mean /challenger/<b>"x/requests?'] })
})
