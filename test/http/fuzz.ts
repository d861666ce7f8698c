// Property-based tests: generated requests of every kind against the app, with invariants checked
// on each answer. `npm test` runs a few hundred with a fixed seed; `npm run fuzz` runs 100,000
// (FUZZ_RUNS and FUZZ_SEED change that).
import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { METHODS } from 'node:http'
import t from 'tap'
import { basic, build, newSession, storeOf, type Session } from '../helper.js'

const RUNS = Number(process.env.FUZZ_RUNS ?? 400)
const SEED = Number(process.env.FUZZ_SEED ?? 20261122)

interface Generated {
  method: string
  path: string
  headers: Record<string, string>
  payload?: string | Buffer
}

const ALL = METHODS.filter(m => m !== 'CONNECT')

/** The statuses the service documents for a method on a path (docs/api.md, the OpenAPI document). */
function documented (method: string, path: string): number[] {
  // As the request line arrives after URL normalisation: `/challenger/..` is `/`.
  const route = new URL(path, 'http://x').pathname
  const guard = (table: Record<string, number[]>): number[] => table[method] ?? (method === 'OPTIONS' ? [204] : [405])
  if (route === '/heartbeat') return guard({ GET: [204], HEAD: [204], PATCH: [500], TRACE: [501], POST: [405, 500, 501] })
  if (route === '/challenger') return guard({ POST: [200, 201, 400, 404, 413, 415, 429] })
  if (/^\/challenger\/[^/]*$/.test(route)) return guard({ GET: [200, 404, 406], HEAD: [200, 404, 406], PUT: [200, 201, 400, 406, 409, 413, 415, 429], PATCH: [200, 400, 404, 406, 413, 415] })
  if (route === '/challenges') return guard({ GET: [200, 406], HEAD: [200, 406] })
  if (route === '/secret/token') return guard({ POST: [201, 401, 413, 415, 429] })
  if (route === '/secret/note') return guard({ GET: [200, 401, 403, 406], HEAD: [200, 401, 403, 406], POST: [200, 400, 401, 403, 406, 413, 415] })
  if (route === '/' || route === '/gui/style.css' || route === '/gui/refresh.js' || route === '/gui/icon.svg' || /^\/gui\/challenges\/[^/]*$/.test(route)) return guard({ GET: [200], HEAD: [200] })
  if (route === '/gui/challenges') return guard({ GET: [200, 303], HEAD: [200, 303] })
  return [404]
}

function arbitraries (a: Session, b: Session) {
  const text = fc.string({ maxLength: 40 })
  const challenger = fc.option(fc.oneof(
    fc.constantFrom(a.guid, b.guid, a.guid.toUpperCase(), '11111111-2222-4333-8444-555555555555', '', 'x'.repeat(101), '__proto__'),
    text
  ), { nil: undefined })
  const token = fc.option(fc.oneof(fc.constantFrom(a.token, b.token, '', a.token.toUpperCase()), text), { nil: undefined })
  const authorization = fc.option(fc.oneof(
    fc.constantFrom(basic('admin', 'password'), basic('admin', 'nope'), `Bearer ${a.token}`, `Bearer ${b.token}`, 'Bearer', 'Basic', 'Basic !!!'),
    text
  ), { nil: undefined })
  const contentType = fc.option(fc.oneof(
    fc.constantFrom('application/json', 'application/xml', 'text/xml', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-8', ';;;'),
    text
  ), { nil: undefined })
  const accept = fc.option(fc.oneof(
    fc.constantFrom('*/*', 'application/xml', 'text/xml', 'image/png', 'application/xml;q=0.9, application/json;q=0.5', 'application/*;q=0'),
    text
  ), { nil: undefined })
  const override = fc.option(fc.constantFrom('DELETE', 'patch', ' TRACE ', 'GET', 'nonsense'), { nil: undefined })
  const path = fc.oneof(
    fc.constantFrom('/heartbeat', '/challenger', '/challenges', '/secret/token', '/secret/note', '/', '/secret', '/heartbeat/',
      `/gui/challenges/${a.guid}`, '/gui/challenges?guid=<b>', '/gui/style.css',
      `/challenger/${a.guid}`, `/challenger/${b.guid.toUpperCase()}`, '/challenger/not-a-uuid', '/secret/note?x=1', '/%zz', '/challenges/..%2f'),
    text.map(s => '/' + encodeURIComponent(s)),
    text.map(s => `/challenger/${encodeURIComponent(s)}`)
  )
  const sessionJson = (s: Session, note: unknown, token: unknown) =>
    JSON.stringify({ xChallenger: s.guid, xAuthToken: token, secretNote: note, challengeStatus: { '01': true, 99: false } })
  const payload = fc.option(fc.oneof(
    fc.string({ maxLength: 200 }).map(note => JSON.stringify({ note })),
    fc.anything({ maxDepth: 3 }).map(value => JSON.stringify({ note: value })),
    fc.jsonValue({ maxDepth: 4 }).map(value => JSON.stringify(value)),
    fc.constantFrom(
      '{"note":"x","__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}},"note":"x"}',
      '['.repeat(5000) + ']'.repeat(5000),
      JSON.stringify({ note: 'x'.repeat(17_000) }),
      '<secretnote><note>x &amp; y</note></secretnote>',
      '<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]><secretnote><note>&b;</note></secretnote>',
      '<secretnote><note>' + '<a>'.repeat(40) + '</note></secretnote>'
    ),
    fc.constantFrom(a, b).chain(s => fc.tuple(fc.oneof(fc.string(), fc.integer()), fc.constantFrom(s.token, 'f'.repeat(32), 'bad')).map(([note, token]) => sessionJson(s, note, token))),
    fc.uint8Array({ maxLength: 300 }).map(bytes => Buffer.from(bytes))
  ), { nil: undefined })
  return fc.record({
    // inject takes only the methods Node knows, in capitals; lower-case ones (which Node's parser
    // refuses with 400) are tried on a real socket in test/http/server.ts.
    method: fc.constantFrom(...ALL),
    path,
    challenger,
    token,
    authorization,
    contentType,
    accept,
    override,
    payload
  }).map(({ method, path, payload, ...h }): Generated => {
    const headers: Record<string, string> = {}
    if (h.challenger !== undefined) headers['x-challenger'] = h.challenger
    if (h.token !== undefined) headers['x-auth-token'] = h.token
    if (h.authorization !== undefined) headers.authorization = h.authorization
    if (h.contentType !== undefined) headers['content-type'] = h.contentType
    if (h.accept !== undefined) headers.accept = h.accept
    if (h.override !== undefined) headers['x-http-method-override'] = h.override
    return { method, path, headers, payload }
  })
}

// A stack frame (`at fn (file:1:2)`), a file of the service, or an error's own name.
const SECRETS = /\bat \S+ \([^)]*:\d+:\d+\)|node_modules|\/work\/|\.[jt]s:\d+|\b[A-Z]\w*Error:/

/** Every invariant of one answer; the message says which one broke. */
function check (request: Generated, res: LightMyRequestResponse): string | undefined {
  const method = request.method.toUpperCase()
  const long = (request.headers['x-challenger']?.length ?? 0) > 100
  const allowed = new Set([...documented(method, request.path), ...(long ? [431] : []), 400])
  if (!allowed.has(res.statusCode)) return `status ${res.statusCode} is not documented for ${method} ${request.path}`
  if (res.statusCode >= 500 && !(request.path.split('?')[0] === '/heartbeat' && ['PATCH', 'TRACE', 'POST'].includes(method))) return `a ${res.statusCode}`
  if (SECRETS.test(res.body)) return 'a stack trace or internal path in the body'
  const type = String(res.headers['content-type'] ?? '')
  if (res.statusCode >= 400 && res.body !== '') {
    if (type.startsWith('application/json')) {
      const body = JSON.parse(res.body)
      if (Object.keys(body).join() !== 'errorMessages' || !Array.isArray(body.errorMessages) || body.errorMessages.some((m: unknown) => typeof m !== 'string')) return `error body ${res.body}`
    } else if (/xml/.test(type)) {
      if (!/^<\?xml[^>]*\?><errorMessages>(<errorMessage>[^<]*<\/errorMessage>)+<\/errorMessages>$/.test(res.body)) return `XML error body ${res.body}`
    } else return `error content type ${type}`
  }
  return undefined
}

t.test(`${RUNS} generated requests keep every invariant (seed ${SEED})`, { timeout: Math.max(60_000, RUNS * 5) }, async t => {
  const app = await build(t, { creationRateLimit: 5 })
  const store = storeOf(app)
  const a = await newSession(app)
  const b = await newSession(app)
  const protoKeys = Object.getOwnPropertyNames(Object.prototype).join()
  let requests = 0
  await fc.assert(fc.asyncProperty(arbitraries(a, b), async request => {
    const before = await Promise.all([a, b].map(s => store.get(s.guid)))
    const res = await app.inject({ method: request.method as 'GET', url: request.path, headers: request.headers, payload: request.payload })
    requests++
    const broken = check(request, res)
    if (broken !== undefined) throw new Error(`${broken}\n${res.statusCode} ${res.body.slice(0, 300)}`)
    const after = await Promise.all([a, b].map(s => store.get(s.guid)))
    const method = request.method.toUpperCase()
    const route = request.path.split('?')[0] as string
    for (const [i, s] of [a, b].entries()) {
      const was = before[i]
      const is = after[i]
      const named = request.headers['x-challenger']?.toLowerCase() === s.guid
      const restored = method === 'PUT' && route.toLowerCase() === `/challenger/${s.guid}` && (res.statusCode === 200 || res.statusCode === 201)
      if (is === undefined) throw new Error(`session ${i} is gone`)
      if (is.note !== was?.note && !restored && !(named && method === 'POST' && route === '/secret/note' && res.statusCode === 200)) throw new Error(`session ${i}'s note changed`)
      if (is.progress !== was?.progress && !restored && !named) throw new Error(`session ${i}'s progress changed`)
      if (is.token !== was?.token && !restored) throw new Error(`session ${i}'s token changed`)
    }
    if (Object.getOwnPropertyNames(Object.prototype).join() !== protoKeys || ({} as { polluted?: unknown }).polluted !== undefined) {
      throw new Error('Object.prototype was polluted')
    }
  }), { seed: SEED, numRuns: RUNS, endOnFailure: true })
  t.equal(requests, RUNS, `${requests} requests, every invariant held`)
  const alive = await app.inject({ method: 'GET', url: '/heartbeat' })
  t.equal(alive.statusCode, 204, 'and the service still answers')
})
