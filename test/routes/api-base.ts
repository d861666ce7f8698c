// The API under /api as well as at the root: one set of sessions, challenges and creation limits
// across the two bases, the pages and the docs at the root only, and /api under a host's prefix.
// (The other route tests run every case at both bases.)
import Fastify from 'fastify'
import t from 'tap'
import app from '../../src/app.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { StoreUnavailableError } from '../../src/domain/sessions/store.js'
import { build, newSession, passed } from '../helper.js'

t.test('a session made at one base passes challenges at the other', async t => {
  const server = await build(t)
  const viaApi = (await server.inject({ method: 'POST', url: '/api/challenger' })).headers['x-challenger'] as string
  t.equal((await server.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': viaApi } })).statusCode, 204)
  t.same(await passed(server, viaApi), [1, 28], 'made at /api/challenger, 28 passed with GET /heartbeat')
  const atRoot = (await server.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
  t.equal((await server.inject({ method: 'GET', url: '/api/heartbeat', headers: { 'x-challenger': atRoot } })).statusCode, 204)
  t.same(await passed(server, atRoot), [1, 28], 'made at /challenger, 28 passed with GET /api/heartbeat')

  // A token from one base opens the note at the other, and each base sees the other's writes.
  const me = await newSession(server, '/api')
  const auth = { 'x-challenger': me.guid, 'x-auth-token': me.token }
  const written = await server.inject({ method: 'POST', url: '/secret/note', headers: auth, payload: { note: 'from the root' } })
  t.equal(written.statusCode, 200)
  t.same((await server.inject({ method: 'GET', url: '/api/secret/note', headers: auth })).json(), { note: 'from the root' })
  t.same(await passed(server, me.guid), [1, 30, 33, 34])
  const listed = await server.inject({ method: 'GET', url: '/challenges', headers: auth })
  t.same(listed.json().challenges.filter((c: { status: boolean }) => c.status).map((c: { id: number }) => c.id), [1, 2, 30, 33, 34])
  t.equal((await server.inject({ method: 'GET', url: `/api/challenger/${me.guid}` })).json().challengeStatus['02'], true, 'the /api view of it too')
})

t.test('the journal keeps each request\'s path as it was sent, at either base', async t => {
  const server = await build(t)
  const guid = (await server.inject({ method: 'POST', url: '/api/challenger' })).headers['x-challenger'] as string
  await server.inject({ method: 'DELETE', url: '/api/heartbeat', headers: { 'x-challenger': guid } })
  await server.inject({ method: 'GET', url: '/heartbeat?x=1', headers: { 'x-challenger': guid } })
  const requests = (await server.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json().requests as Array<{ method: string, path: string, passed: number[] }>
  t.same(requests.map(r => `${r.method} ${r.path} ${r.passed.join()}`), ['GET /heartbeat 28', 'DELETE /api/heartbeat 25', 'POST /api/challenger 1'])
  t.same((await server.inject({ method: 'GET', url: `/api/challenger/${guid}/requests` })).json().requests, requests, 'the same journal at /api')
})

t.test('the creation limit is one limit for both bases', async t => {
  const server = await build(t)
  // The default limit, 60 a minute per address, spent half at each base.
  for (let i = 0; i < 60; i++) {
    const url = i % 2 === 0 ? '/challenger' : '/api/challenger'
    const res = await server.inject({ method: 'POST', url })
    if (res.statusCode !== 201) t.fail(`creation ${i} at ${url} was ${res.statusCode}`)
  }
  for (const url of ['/challenger', '/api/challenger']) {
    const refused = await server.inject({ method: 'POST', url })
    t.equal(refused.statusCode, 429, `the 61st creation at ${url}`)
    t.match(refused.headers['retry-after'], /^[1-9]\d*$/)
  }
  const restore = await server.inject({ method: 'PUT', url: '/api/challenger/6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b', payload: {} })
  t.equal(restore.statusCode, 429, 'a recreating PUT counts against the same limit')
  t.equal((await server.inject({ method: 'POST', url: '/api/challenger', remoteAddress: '10.0.0.9' })).statusCode, 201, 'another address has its own')
})

t.test('under /api, near misses and typos get the same hints, naming the /api path', async t => {
  const server = await build(t)
  const guid = (await server.inject({ method: 'POST', url: '/api/challenger' })).headers['x-challenger'] as string
  const headers = { 'x-challenger': guid }
  // HEAD instead of GET: challenge 28's near miss, found under /api as at the root.
  await server.inject({ method: 'HEAD', url: '/api/heartbeat', headers })
  const typo = await server.inject({ method: 'GET', url: '/api/heartbeats', headers })
  t.same(typo.json(), { errorMessages: ['No resource at GET /api/heartbeats; did you mean /api/heartbeat?'] })
  // As near as each other: the one that answers the method (/challenger's GET is only a 405).
  t.same((await server.inject({ method: 'GET', url: '/api/challenge' })).json(), { errorMessages: ['No resource at GET /api/challenge; did you mean /api/challenges?'] })
  t.same((await server.inject({ method: 'POST', url: '/challenge' })).json(), { errorMessages: ['No resource at POST /challenge; did you mean /challenger?'] })
  const requests = (await server.inject({ method: 'GET', url: `/api/challenger/${guid}/requests` })).json().requests as Array<{ path: string, status: number, hint: string | null }>
  t.same(requests.slice(0, 2).map(r => [r.path, r.status, r.hint]), [
    ['/api/heartbeats', 404, 'did you mean /api/heartbeat?'],
    ['/api/heartbeat', 204, 'HEAD passes nothing: challenge 28 needs GET']
  ])
})

t.test('the pages, the docs, the class board and the metrics are at the root only', async t => {
  const server = await build(t, { adminToken: 'a'.repeat(32) })
  const guid = (await server.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
  const admin = { authorization: `Bearer ${'a'.repeat(32)}` }
  for (const url of ['/', '/docs', '/docs/json', '/gui/challenges', `/gui/challenges/${guid}`, '/admin', '/admin/summary', '/metrics']) {
    t.equal((await server.inject({ method: 'GET', url, headers: admin })).statusCode, 200, url)
    const under = `/api${url === '/' ? '/' : url}`
    const missing = await server.inject({ method: 'GET', url: under, headers: admin })
    t.equal(missing.statusCode, 404, under)
    // The service's 404, with the root's path as the hint where there is one (src/domain/challenges/near-paths.ts).
    const hint = `; did you mean ${url}?`
    t.same(missing.json(), { errorMessages: [`No resource at GET ${under}${hint}`] }, `${under}: the service's 404`)
  }
  t.equal((await server.inject({ method: 'GET', url: '/api' })).statusCode, 404, '/api itself is no page')
})

t.test('under a host\'s prefix, /api is under the prefix', async t => {
  const host = Fastify()
  await host.register(app, { prefix: '/practice' })
  t.teardown(() => host.close())
  const heartbeat = await host.inject({ method: 'GET', url: '/practice/api/heartbeat', headers: { 'x-challenger': 'x' } })
  t.equal(heartbeat.statusCode, 204)
  t.equal(heartbeat.headers['x-challenger'], 'x')
  const refused = await host.inject({ method: 'PUT', url: '/practice/api/challenges' })
  t.equal(refused.statusCode, 405)
  t.same(refused.json(), { errorMessages: ['PUT is not allowed on /practice/api/challenges; allowed: GET, HEAD, OPTIONS'] })
  const options = await host.inject({ method: 'OPTIONS', url: '/practice/api/secret/note' })
  t.equal(options.headers.allow, 'GET, HEAD, POST, OPTIONS')
  const created = await host.inject({ method: 'POST', url: '/practice/api/challenger' })
  t.equal(created.statusCode, 201)
  t.equal(created.headers.location, `/practice/gui/challenges/${created.headers['x-challenger'] as string}`)
  t.equal((await host.inject({ method: 'GET', url: '/api/heartbeat' })).statusCode, 404, 'nothing at the host\'s own /api')
  t.equal((await host.inject({ method: 'GET', url: '/practice/api/docs' })).statusCode, 404)
})

t.test('a store that cannot count creations answers 503, at either base', async t => {
  // The creation limit counts in the store (SessionStore.countCreation).
  class Uncounting extends MemoryStore {
    override async countCreation (): Promise<never> {
      throw new StoreUnavailableError(new Error('the counts are away'))
    }
  }
  const server = await build(t, { store: new Uncounting() })
  for (const url of ['/challenger', '/api/challenger']) {
    const res = await server.inject({ method: 'POST', url })
    t.equal(res.statusCode, 503, url)
    t.same(res.json(), { errorMessages: ['The session store is unavailable; try again shortly'] })
  }
})
