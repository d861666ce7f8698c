// GET /metrics (issue 17): only with an admin token and behind it, in Prometheus's text format as a
// Prometheus text-format parser reads it, with the values the requests made.
import Fastify from 'fastify'
import parse from 'parse-prometheus-text-format'
import t from 'tap'
import { COUNTS_EVERY_MS, DURATION_BUCKETS } from '../../plugins/metrics.js'
import app from '../../src/app.js'
import { challenges } from '../../src/domain/challenges/catalogue.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { StoreUnavailableError, type Session } from '../../src/domain/sessions/store.js'
import { build, newSession } from '../helper.js'

const TOKEN = 'instructor-token-0123456789'
const admin = { authorization: `Bearer ${TOKEN}` }

type Families = ReturnType<typeof parse>
const family = (families: Families, name: string) => families.find(f => f.name === name)
const value = (families: Families, name: string, labels: Record<string, string> = {}): number | undefined => {
  const sample = family(families, name)?.metrics.find(m => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
  return sample?.value === undefined ? undefined : Number(sample.value)
}
const scrape = async (server: Awaited<ReturnType<typeof build>>): Promise<Families> =>
  parse((await server.inject({ method: 'GET', url: '/metrics', headers: admin })).body)

/** A memory store that can be made unreachable, as Redis can be. */
class Unreachable extends MemoryStore {
  down = false
  override async get (guid: string): Promise<Session | undefined> {
    if (this.down) throw new StoreUnavailableError(new Error('gone'))
    return await super.get(guid)
  }

  override available (): boolean {
    return !this.down
  }
}

t.test('without an admin token there are no metrics', async t => {
  const server = await build(t)
  t.equal((await server.inject({ method: 'GET', url: '/metrics', headers: admin })).statusCode, 404)
})

t.test('/metrics wants the admin token: none 401, wrong 403, right 200; never logged', async t => {
  const lines: string[] = []
  const host = Fastify({ logger: { level: 'trace', stream: { write: (line: string) => { lines.push(line) } } } })
  t.teardown(() => host.close())
  await host.register(app, { adminToken: TOKEN })
  const none = await host.inject({ method: 'GET', url: '/metrics' })
  t.equal(none.statusCode, 401)
  t.equal(none.headers['www-authenticate'], 'Bearer realm="api-challenges admin"')
  t.equal((await host.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer wrong-token-0123456789' } })).statusCode, 403)
  const ok = await host.inject({ method: 'GET', url: '/metrics', headers: admin })
  t.equal(ok.statusCode, 200)
  t.equal(ok.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
  t.equal((await host.inject({ method: 'HEAD', url: '/metrics', headers: admin })).statusCode, 200)
  const options = await host.inject({ method: 'OPTIONS', url: '/metrics', headers: admin })
  t.equal(options.headers.allow, 'GET, HEAD, OPTIONS')
  t.equal((await host.inject({ method: 'POST', url: '/metrics', headers: admin })).statusCode, 405)
  t.ok(lines.length > 10, 'the requests were logged')
  t.notOk(lines.some(line => line.includes(TOKEN)), 'no log line holds the token')
  t.notOk((await host.inject({ method: 'GET', url: '/docs/json' })).body.includes('/metrics'), 'not in the learners\' document')
})

t.test('/metrics is in no learner\'s journal and passes nothing, even with the learner\'s X-CHALLENGER', async t => {
  const server = await build(t, { adminToken: TOKEN })
  const { guid } = await newSession(server)
  const before = (await server.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json()
  await server.inject({ method: 'GET', url: '/metrics', headers: { ...admin, 'x-challenger': guid } })
  const after = (await server.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json()
  t.same(after, before)
})

t.test('the metrics count what happened: requests by route, method and status, durations, passes, sessions, the store', async t => {
  const server = await build(t, { adminToken: TOKEN, creationRateLimit: 0 })
  const sessions = [await newSession(server), await newSession(server), await newSession(server)]
  for (let i = 0; i < 5; i++) await server.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': sessions[0]?.guid } })
  await server.inject({ method: 'HEAD', url: '/heartbeat' })
  await server.inject({ method: 'DELETE', url: '/heartbeat', headers: { 'x-challenger': sessions[1]?.guid } })
  await server.inject({ method: 'GET', url: '/nowhere' })
  await server.inject({ method: 'GET', url: '/nowhere/else' })
  await server.inject({ method: 'OPTIONS', url: '/nowhere' })
  await server.inject({ method: 'GET', url: `/challenger/${sessions[2]?.guid as string}` })
  // The metrics of the requests above; /metrics's own request counts once it is answered.
  const families = await scrape(server)

  t.equal(family(families, 'api_challenges_requests_total')?.type, 'COUNTER')
  t.equal(value(families, 'api_challenges_requests_total', { route: '/heartbeat', method: 'GET', status: '204' }), 5)
  t.equal(value(families, 'api_challenges_requests_total', { route: '/heartbeat', method: 'HEAD', status: '204' }), 1, 'the HEAD route Fastify adds, counted once')
  t.equal(value(families, 'api_challenges_requests_total', { route: '/heartbeat', method: 'DELETE', status: '405' }), 1)
  t.equal(value(families, 'api_challenges_requests_total', { route: '/challenger', method: 'POST', status: '201' }), 3)
  t.equal(value(families, 'api_challenges_requests_total', { route: '/secret/token', method: 'POST', status: '201' }), 3)
  t.equal(value(families, 'api_challenges_requests_total', { route: '/challenger/:guid', method: 'GET', status: '200' }), 1, 'the route as registered, not the URL')
  t.equal(value(families, 'api_challenges_requests_total', { route: 'unmatched', method: 'GET', status: '404' }), 2, 'every unknown path under one label')
  t.equal(value(families, 'api_challenges_requests_total', { route: 'unmatched', method: 'OPTIONS', status: '404' }), 1, 'OPTIONS on an unknown path too')
  t.notOk(JSON.stringify(family(families, 'api_challenges_requests_total')).includes(sessions[2]?.guid as string), 'no URL in a label')
  const total = family(families, 'api_challenges_requests_total')?.metrics.reduce((sum, m) => sum + Number(m.value), 0)
  t.equal(total, 17)

  const histogram = family(families, 'api_challenges_request_duration_seconds')
  t.equal(histogram?.type, 'HISTOGRAM')
  const durations = histogram?.metrics[0]
  t.equal(Number(durations?.count), 17, 'one duration per request')
  t.equal(durations?.buckets?.['+Inf'], '17')
  t.ok(Number(durations?.sum) > 0)
  const cumulative = DURATION_BUCKETS.map(bound => Number(durations?.buckets?.[String(bound)]))
  t.same(cumulative, [...cumulative].sort((a, b) => a - b), 'each bucket counts every answer up to its bound')

  t.equal(value(families, 'api_challenges_challenge_passes_total', { challenge: '1' }), 3)
  t.equal(value(families, 'api_challenges_challenge_passes_total', { challenge: '28' }), 1, 'a session passes 28 once, however many times it asks')
  t.equal(value(families, 'api_challenges_challenge_passes_total', { challenge: '25' }), 1)
  t.equal(value(families, 'api_challenges_challenge_passes_total', { challenge: '30' }), 3)
  t.equal(value(families, 'api_challenges_challenge_passes_total', { challenge: '31' }), 0, 'a challenge nobody passed is there, at 0')
  t.equal(family(families, 'api_challenges_challenge_passes_total')?.metrics.length, challenges.length)
  // The session gauges are the background count made when the app was ready, before these sessions (see below).
  t.equal(value(families, 'api_challenges_sessions_live'), 0)
  t.equal(value(families, 'api_challenges_sessions_active'), 0)
  t.equal(value(families, 'api_challenges_store_up'), 1)
  t.equal(value(families, 'api_challenges_store_errors_total'), 0)
  t.ok(family(families, 'process_cpu_seconds_total'), 'and the process\'s own metrics')
  t.ok(family(families, 'nodejs_eventloop_lag_seconds'))

  const again = await scrape(server)
  t.equal(value(again, 'api_challenges_requests_total', { route: '/metrics', method: 'GET', status: '200' }), 1, 'the scrape before, counted')
  t.equal(value(again, 'api_challenges_requests_total', { route: '/heartbeat', method: 'GET', status: '204' }), 5, 'a scrape does not add twice')
  t.equal(value(again, 'api_challenges_challenge_passes_total', { challenge: '1' }), 3)
  t.equal(Number(family(again, 'api_challenges_request_duration_seconds')?.metrics[0]?.count), 18)
})

t.test('a bug hunt\'s findings are counted by verdict: found (a hidden defect) and correct (a false alarm)', async t => {
  const store = new MemoryStore({})
  const server = await build(t, { adminToken: TOKEN, store })
  const before = await scrape(server)
  t.equal(value(before, 'api_challenges_hunt_findings_total', { verdict: 'found' }), 0, 'both series there from the start, at 0')
  t.equal(value(before, 'api_challenges_hunt_findings_total', { verdict: 'correct' }), 0)
  const { guid } = await store.create(undefined, 1, { hidden: ['note-write-201', 'no-www-authenticate', 'heartbeat-200'], found: [] })
  const report = async (): Promise<string> => {
    const entry = (await server.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json().requests[0].id as string
    return (await server.inject({ method: 'POST', url: `/challenger/${guid}/findings`, payload: { entry } })).json().verdict
  }
  // The hidden heartbeat-200 answers GET /heartbeat 200; GET /challenges is answered as it should be.
  t.equal((await server.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': guid } })).statusCode, 200)
  t.equal(await report(), 'found')
  await server.inject({ method: 'GET', url: '/challenges', headers: { 'x-challenger': guid } })
  t.equal(await report(), 'correct')
  const families = await scrape(server)
  t.equal(family(families, 'api_challenges_hunt_findings_total')?.type, 'COUNTER')
  t.equal(value(families, 'api_challenges_hunt_findings_total', { verdict: 'found' }), 1)
  t.equal(value(families, 'api_challenges_hunt_findings_total', { verdict: 'correct' }), 1)
  // A refused finding (not a hunt) counts as neither.
  const plain = await newSession(server)
  t.equal((await server.inject({ method: 'POST', url: `/challenger/${plain.guid}/findings`, payload: { entry: 'x' } })).statusCode, 400)
  const after = await scrape(server)
  t.same([value(after, 'api_challenges_hunt_findings_total', { verdict: 'found' }), value(after, 'api_challenges_hunt_findings_total', { verdict: 'correct' })], [1, 1])
})

t.test('the duration histogram has the documented buckets, 0.1 ms to 2.5 s, then +Inf', async t => {
  const server = await build(t, { adminToken: TOKEN })
  await server.inject({ method: 'GET', url: '/heartbeat' })
  const durations = family(await scrape(server), 'api_challenges_request_duration_seconds')?.metrics[0]
  // (An object's keys list "1" first, as an integer.)
  t.same(Object.keys(durations?.buckets ?? {}).sort(), ['0.0001', '0.00025', '0.0005', '0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '+Inf'].sort())
  t.same(DURATION_BUCKETS, [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5])
  t.equal(durations?.buckets?.['+Inf'], '1', 'the heartbeat, in +Inf as in every bucket up from its own')
})

t.test('in a host without a logger (Fastify does not time requests then), durations are still measured', async t => {
  const host = Fastify()
  t.teardown(() => host.close())
  await host.register(app, { adminToken: TOKEN })
  for (let i = 0; i < 3; i++) await host.inject({ method: 'GET', url: '/heartbeat' })
  const durations = family(parse((await host.inject({ method: 'GET', url: '/metrics', headers: admin })).body), 'api_challenges_request_duration_seconds')?.metrics[0]
  t.equal(Number(durations?.count), 3)
  t.ok(Number(durations?.sum) > 0, 'not the 0 that reply.elapsedTime gives there')
  t.ok(Number(durations?.sum) < 3, 'and not a clock\'s reading')
})

t.test('a store that fails: its errors are counted, it is reported down, and the session gauges, never counted, say NaN', async t => {
  let down = false
  class Flaky extends MemoryStore {
    override available (): boolean { return !down }
    override get (guid: string) {
      if (down) throw new StoreUnavailableError(new Error('gone'))
      return super.get(guid)
    }

    override async counts (): Promise<never> { throw new StoreUnavailableError(new Error('gone')) }
  }
  const server = await build(t, { adminToken: TOKEN, store: new Flaky() })
  const { guid, token } = await newSession(server)
  down = true
  for (let i = 0; i < 2; i++) {
    const res = await server.inject({ method: 'GET', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token } })
    t.equal(res.statusCode, 503)
  }
  const families = await scrape(server)
  t.equal(value(families, 'api_challenges_store_errors_total'), 2)
  t.equal(value(families, 'api_challenges_requests_total', { route: '/secret/note', method: 'GET', status: '503' }), 2)
  t.equal(value(families, 'api_challenges_store_up'), 0)
  t.ok(Number.isNaN(value(families, 'api_challenges_sessions_live')), 'NaN, no figure, rather than a wrong one')
  t.ok(Number.isNaN(value(families, 'api_challenges_sessions_active')))
  t.ok(Number.isNaN(value(families, 'api_challenges_store_counts_age_seconds')), 'and no age')
})

t.test('a store whose lookups reject with StoreUnavailableError: each 503 is a store error', async t => {
  const store = new Unreachable()
  const server = await build(t, { adminToken: TOKEN, store })
  const { guid, token } = await newSession(server)
  const up = await scrape(server)
  t.equal(value(up, 'api_challenges_store_up'), 1)
  store.down = true
  for (let i = 0; i < 3; i++) {
    const res = await server.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token }, payload: { note: 'x' } })
    t.equal(res.statusCode, 503)
  }
  const missing = await server.inject({ method: 'GET', url: '/secret/note', headers: { 'x-auth-token': token } })
  t.equal(missing.statusCode, 401, 'a request that never reached the store')
  const families = await scrape(server)
  t.equal(value(families, 'api_challenges_store_errors_total'), 3)
  t.equal(value(families, 'api_challenges_store_up'), 0)
})

t.test('the session gauges are the last background count, made when the app is ready, with its age', async t => {
  const store = new MemoryStore({})
  for (let i = 0; i < 4; i++) await store.create()
  const server = await build(t, { adminToken: TOKEN, store })
  const families = await scrape(server)
  t.equal(family(families, 'api_challenges_store_counts_age_seconds')?.type, 'GAUGE')
  t.equal(value(families, 'api_challenges_sessions_live'), 4)
  t.equal(value(families, 'api_challenges_sessions_active'), 4)
  const age = value(families, 'api_challenges_store_counts_age_seconds') as number
  t.ok(age >= 0 && age < COUNTS_EVERY_MS / 1000, `counted ${age} s ago, within one period`)
  t.equal(COUNTS_EVERY_MS, 5000, 'a new count every 5 s, as docs/classes.md says')
})

t.test('a scrape never waits on the store: with counts that never answer it answers at once, the gauges NaN', async t => {
  class Stuck extends MemoryStore {
    counted = 0
    override async counts (): Promise<never> {
      this.counted++
      return await new Promise<never>(() => {})
    }
  }
  const store = new Stuck()
  const server = await build(t, { adminToken: TOKEN, store })
  for (let i = 0; i < 3; i++) {
    const res = await server.inject({ method: 'GET', url: '/metrics', headers: admin })
    t.equal(res.statusCode, 200, `scrape ${i + 1} answered`)
    const families = parse(res.body)
    t.ok(Number.isNaN(value(families, 'api_challenges_sessions_live')))
    t.ok(Number.isNaN(value(families, 'api_challenges_store_counts_age_seconds')))
    t.equal(value(families, 'api_challenges_store_up'), 1)
  }
  t.equal(store.counted, 1, 'one count under way, not one per scrape')
})

t.test('the admin check of /metrics never asks a store known to be away, and counts in the process when a store that seemed up fails', async t => {
  let down = false
  let asked = 0
  class Failing extends MemoryStore {
    override available (): boolean { return !down }
    override async countCreation (): Promise<never> {
      asked++
      throw new StoreUnavailableError(new Error('gone'))
    }
  }
  const server = await build(t, { adminToken: TOKEN, store: new Failing() })
  const wrong = { authorization: 'Bearer not-the-instructor-token' }
  t.equal((await server.inject({ method: 'GET', url: '/metrics', headers: admin })).statusCode, 200, 'the right token: answered')
  t.equal(asked, 0, 'without asking the store: this process has seen no guesses from the address')
  t.equal((await server.inject({ method: 'GET', url: '/metrics', headers: wrong })).statusCode, 403, 'a wrong one: the store failed, this process counted it')
  t.equal(asked, 1)
  down = true
  t.equal((await server.inject({ method: 'GET', url: '/metrics', headers: wrong })).statusCode, 403)
  t.equal((await server.inject({ method: 'GET', url: '/metrics', headers: admin })).statusCode, 200)
  t.equal(asked, 1, 'the store, known to be away, was not asked')
})

t.test('two apps in one process keep their own metrics', async t => {
  const one = await build(t, { adminToken: TOKEN })
  const two = await build(t, { adminToken: TOKEN })
  await one.inject({ method: 'GET', url: '/heartbeat' })
  const count = async (server: typeof one) => value(await scrape(server), 'api_challenges_requests_total', { route: '/heartbeat', method: 'GET', status: '204' })
  t.equal(await count(one), 1)
  t.equal(await count(two), undefined)
})
