// /livez and /readyz (issue 50, item 11): the operator's probes beside the heartbeat. /livez while the
// process answers, /readyz only while the store is usable and the server is not draining; neither
// waits on the store, names a session, is journaled, counted or behind a token. Over real Redis (a
// stopped one) and a real SIGTERM: test/proxy.test.ts.
import Fastify from 'fastify'
import parse from 'parse-prometheus-text-format'
import t from 'tap'
import app from '../../src/app.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import type { Session } from '../../src/domain/sessions/store.js'
import { build, newSession } from '../helper.js'

const TOKEN = 'instructor-token-0123456789'

/** A memory store that can be made unavailable, and whose lookups and counts can be made to hang, as a stuck Redis's do. */
class Troubled extends MemoryStore {
  down = false
  hang = false
  lookups = 0
  override async get (guid: string): Promise<Session | undefined> {
    this.lookups++
    if (this.hang) return await new Promise<never>(() => {})
    return await super.get(guid)
  }

  override available (): boolean {
    return !this.down
  }
}

t.test('GET /livez and /readyz: 200 {"status":"ok"}, JSON, never cached; HEAD the same without a body', async t => {
  const server = await build(t)
  for (const url of ['/livez', '/readyz']) {
    const res = await server.inject({ method: 'GET', url })
    t.equal(res.statusCode, 200, url)
    t.same(res.json(), { status: 'ok' })
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
    t.equal(res.headers['cache-control'], 'no-store')
    const head = await server.inject({ method: 'HEAD', url })
    t.equal(head.statusCode, 200, `HEAD ${url}`)
    t.equal(head.body, '')
  }
})

t.test('other methods are 405 with Allow: GET, HEAD and the error body, OPTIONS and odd ones too; a body is not read', async t => {
  const server = await build(t)
  for (const url of ['/livez', '/readyz']) {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND'] as const) {
      const res = await server.inject({ method, url, payload: method === 'POST' ? '{"x":1}' : undefined, headers: method === 'POST' ? { 'content-type': 'application/json' } : {} })
      t.equal(res.statusCode, 405, `${method} ${url}`)
      t.equal(res.headers.allow, 'GET, HEAD')
      t.same(res.json(), { errorMessages: [`${method} is not allowed on ${url}; allowed: GET, HEAD`] })
    }
  }
})

t.test('at the app\'s root only: not under /api, and a path near one is pointed to it', async t => {
  const server = await build(t)
  t.equal((await server.inject({ method: 'GET', url: '/api/readyz' })).statusCode, 404)
  const near = await server.inject({ method: 'GET', url: '/readz' })
  t.equal(near.statusCode, 404)
  t.match(near.json().errorMessages[0], /did you mean \/readyz\?$/)
})

t.test('/readyz is 503 {"status":"unavailable","reason":"store unavailable"} while the store is; /livez stays 200; the heartbeat keeps its own 503', async t => {
  const store = new Troubled()
  const server = await build(t, { store })
  store.down = true
  const ready = await server.inject({ method: 'GET', url: '/readyz' })
  t.equal(ready.statusCode, 503)
  t.same(ready.json(), { status: 'unavailable', reason: 'store unavailable' })
  t.equal(ready.headers['cache-control'], 'no-store')
  t.equal((await server.inject({ method: 'HEAD', url: '/readyz' })).statusCode, 503)
  t.equal((await server.inject({ method: 'GET', url: '/livez' })).statusCode, 200)
  t.equal((await server.inject({ method: 'GET', url: '/heartbeat' })).statusCode, 503, 'the heartbeat, the challenge, unchanged')
  store.down = false
  t.equal((await server.inject({ method: 'GET', url: '/readyz' })).statusCode, 200, 'ready again as soon as the store is')
})

t.test('draining: /readyz is 503 "draining" at once, even with the store fine, and says Connection: close; /livez stays 200', async t => {
  const drain = new AbortController()
  const server = await build(t, { drainSignal: drain.signal })
  t.equal((await server.inject({ method: 'GET', url: '/readyz' })).statusCode, 200)
  drain.abort()
  const ready = await server.inject({ method: 'GET', url: '/readyz' })
  t.equal(ready.statusCode, 503)
  t.same(ready.json(), { status: 'unavailable', reason: 'draining' })
  t.equal(ready.headers.connection, 'close')
  const live = await server.inject({ method: 'GET', url: '/livez' })
  t.equal(live.statusCode, 200)
  t.same(live.json(), { status: 'ok' })
})

t.test('draining is said before the store: both at once are "draining"', async t => {
  const store = new Troubled()
  const server = await build(t, { store, drainSignal: AbortSignal.abort() })
  store.down = true
  t.same((await server.inject({ method: 'GET', url: '/readyz' })).json(), { status: 'unavailable', reason: 'draining' })
})

t.test('a probe never waits on the store: with lookups hanging, both answer, X-CHALLENGER or not, and no lookup is made', async t => {
  const store = new Troubled()
  const server = await build(t, { store })
  const { guid } = await newSession(server)
  store.hang = true
  store.down = true
  const lookups = store.lookups
  for (const url of ['/livez', '/readyz']) {
    const res = await server.inject({ method: 'GET', url, headers: { 'x-challenger': guid } })
    t.equal(res.statusCode, url === '/livez' ? 200 : 503, url)
  }
  t.equal(store.lookups, lookups, 'the session X-CHALLENGER names is not looked up (nor touched: the board\'s activity is unchanged)')
})

t.test('a probe is in no journal, passes nothing and needs no token, with an admin token set', async t => {
  const server = await build(t, { adminToken: TOKEN })
  const { guid } = await newSession(server)
  const before = (await server.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json()
  for (const url of ['/livez', '/readyz']) {
    t.equal((await server.inject({ method: 'GET', url, headers: { 'x-challenger': guid } })).statusCode, 200, `${url} without Authorization`)
  }
  t.same((await server.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json(), before, 'the journal is as it was')
  const metrics = parse((await server.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body)
  const routes = metrics.find(f => f.name === 'api_challenges_requests_total')?.metrics.map(m => m.labels?.route)
  t.ok(routes?.includes('/challenger'), 'the learner\'s requests are counted')
  t.notOk(routes?.includes('/livez') === true || routes?.includes('/readyz') === true, 'the probes are not')
})

t.test('the probes are not in the learners\' OpenAPI document', async t => {
  const server = await build(t)
  const doc = (await server.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, unknown> }
  t.ok(doc.paths['/heartbeat'], 'the heartbeat is')
  t.notOk(doc.paths['/livez'])
  t.notOk(doc.paths['/readyz'])
})

t.test('a host that embeds the app under a prefix has them under it', async t => {
  const host = Fastify()
  t.teardown(() => host.close())
  await host.register(app, { prefix: '/practice' })
  t.equal((await host.inject({ method: 'GET', url: '/practice/livez' })).statusCode, 200)
  t.same((await host.inject({ method: 'GET', url: '/practice/readyz' })).json(), { status: 'ok' })
  t.equal((await host.inject({ method: 'GET', url: '/readyz' })).statusCode, 404, 'the host\'s own paths are its own')
})
