// The journal (issue 16): the near-miss rules of the catalogue, and GET /challenger/{guid}/requests
// over the app: what is recorded and what never is. The journal module's own: test/journal/journal-entries.ts.
import t from 'tap'
import { bitFor, challenges, MISSPELT_SESSION_HINT, nearMiss, nearMissSays, progressFrom, resourceOf, routeBase, routeResource, type RequestFacts } from '../../src/domain/challenges/catalogue.js'
import { authorizationOf } from '../../src/domain/challenges/near-miss-rules.js'
import { JOURNAL_TEXT_BYTES, journalText, MAX_JOURNAL_TEXT, type JournalEntry } from '../../src/domain/journal/journal.js'
import { RedisStore, sessionId } from '../../src/domain/sessions/redis-store.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { StoreUnavailableError, type SessionChange } from '../../src/domain/sessions/store.js'
import { basic, build, newSession } from '../helper.js'
import { fakeTime } from '../clock.js'
import { redisMissing, redisServer } from '../redis-server.js'

const base: RequestFacts = { method: 'GET', status: 200, contentType: null, override: null, authorization: 'none', namedSession: true }

/** The progress of a session that has passed `ids`. */
function passing (...ids: number[]): number {
  return progressFrom(Object.fromEntries(ids.map(id => [String(id).padStart(2, '0'), true])))
}

/** The sentence for a request to `resource` that passed nothing, with `ids` passed before. */
function hint (resource: string, facts: Partial<RequestFacts>, ids: number[] = []): string | null {
  const request = { ...base, ...facts }
  return nearMissSays(nearMiss(resource, request, passing(...ids)), { method: request.method, contentType: request.contentType, ...(request.tokenSource === undefined ? {} : { tokenSource: request.tokenSource }) })
}

// [resource, the request, passed before, the challenge named, words of the sentence]
const NEAR_MISSES: Array<[string, Partial<RequestFacts>, number[], number, RegExp]> = [
  ['/challenger', { method: 'POST', status: 200 }, [], 1, /without an X-CHALLENGER header; this one named a session/],
  ['/challenger', { method: 'GET', status: 405 }, [], 1, /needs POST \/challenger; GET is not allowed there/],
  ['/challenges', { method: 'HEAD' }, [], 2, /^HEAD passes nothing: challenge 2 needs GET$/],
  ['/challenges', { method: 'POST', status: 405 }, [], 2, /needs GET \/challenges; POST is not allowed/],
  ['/heartbeat', { method: 'POST', status: 405, override: 'DELETE' }, [40], 25, /the DELETE method itself; POST with X-HTTP-Method-Override: DELETE is challenge 40/],
  ['/heartbeat', { method: 'PUT', status: 405 }, [], 25, /needs DELETE \/heartbeat; PUT is refused too/],
  ['/heartbeat', { method: 'POST', status: 500, override: 'PATCH' }, [41], 26, /the PATCH method itself/],
  ['/heartbeat', { method: 'POST', status: 501, override: 'TRACE' }, [42], 27, /the TRACE method itself/],
  ['/heartbeat', { method: 'HEAD', status: 204 }, [], 28, /^HEAD passes nothing: challenge 28 needs GET$/],
  ['/heartbeat', { method: 'POST', status: 405 }, [], 40, /X-HTTP-Method-Override: DELETE on the POST; this request had none/],
  ['/heartbeat', { method: 'POST', status: 405, override: 'PUT' }, [], 40, /a method the heartbeat does not stand in for/],
  ['/heartbeat', { method: 'DELETE', status: 405 }, [25], 40, /POST with X-HTTP-Method-Override: DELETE; this request was DELETE itself/],
  ['/heartbeat', { method: 'POST', status: 405 }, [40], 41, /X-HTTP-Method-Override: PATCH on the POST/],
  ['/heartbeat', { method: 'PATCH', status: 500 }, [26], 41, /this request was PATCH itself/],
  ['/heartbeat', { method: 'POST', status: 405 }, [40, 41], 42, /X-HTTP-Method-Override: TRACE on the POST/],
  ['/heartbeat', { method: 'TRACE', status: 501 }, [27], 42, /this request was TRACE itself/],
  ['/secret/token', { method: 'POST', status: 401 }, [], 29, /^Challenge 29 needs an Authorization header with wrong Basic credentials; this request had none$/],
  ['/secret/token', { method: 'GET', status: 405 }, [], 29, /needs POST \/secret\/token/],
  ['/secret/token', { method: 'POST', status: 401, authorization: 'basic' }, [29], 30, /the Basic credentials the server accepts/],
  ['/secret/token', { method: 'GET', status: 405 }, [29], 30, /needs POST \/secret\/token; GET is not allowed/],
  ['/secret/note', { status: 403, token: 'wrong', tokenSource: 'bearer' }, [], 31, /^Challenge 31 needs a wrong X-AUTH-TOKEN; a wrong Bearer token does not count$/],
  ['/secret/note', { method: 'HEAD', status: 403, token: 'wrong', tokenSource: 'x-auth-token' }, [], 31, /HEAD passes nothing: challenge 31/],
  ['/secret/note', { method: 'POST', status: 403, token: 'wrong', tokenSource: 'x-auth-token' }, [36], 31, /needs GET \/secret\/note; this was POST/],
  ['/secret/note', { method: 'HEAD', status: 401, token: 'missing' }, [], 32, /HEAD passes nothing: challenge 32/],
  ['/secret/note', { method: 'POST', status: 401, token: 'missing' }, [35], 32, /needs GET \/secret\/note; this was POST/],
  ['/secret/note', { token: 'valid', tokenSource: 'bearer' }, [37], 33, /needs your token in X-AUTH-TOKEN; this one came as a Bearer token/],
  ['/secret/note', { method: 'HEAD', token: 'valid', tokenSource: 'x-auth-token' }, [], 33, /HEAD passes nothing: challenge 33/],
  ['/secret/note', { method: 'POST', token: 'valid', tokenSource: 'x-auth-token' }, [34], 33, /Challenge 33 needs GET/],
  ['/secret/note', { method: 'POST', status: 415, token: 'valid', tokenSource: 'x-auth-token', contentType: 'application/x-www-form-urlencoded' }, [], 34,
    /^Challenge 34 needs a JSON body such as \{"note": "hi"\}; this one had Content-Type application\/x-www-form-urlencoded$/],
  ['/secret/note', { method: 'POST', status: 415, token: 'valid', tokenSource: 'x-auth-token' }, [], 34, /this one had no Content-Type/],
  ['/secret/note', { method: 'POST', status: 400, token: 'valid', tokenSource: 'x-auth-token', contentType: 'application/json' }, [], 34, /was not a JSON object with a string "note"/],
  ['/secret/note', { method: 'POST', status: 400, token: 'valid', tokenSource: 'x-auth-token', contentType: 'text/xml' }, [], 34,
    /^Challenge 34 needs a note such as \{"note": "hi"\}; this XML body was not <secretnote><note>hi<\/note><\/secretnote>, the note as text$/],
  ['/secret/note', { method: 'POST', token: 'valid', tokenSource: 'bearer' }, [38], 34, /Challenge 34 needs your token in X-AUTH-TOKEN/],
  ['/secret/note', { token: 'valid', tokenSource: 'x-auth-token' }, [33], 34, /Challenge 34 needs POST \/secret\/note; this was GET/],
  ['/secret/note', { status: 401, token: 'missing' }, [32], 35, /Challenge 35 needs POST \/secret\/note; this was GET/],
  ['/secret/note', { method: 'POST', status: 403, token: 'wrong', tokenSource: 'bearer' }, [], 36, /^Challenge 36 needs a wrong X-AUTH-TOKEN; a wrong Bearer token does not count$/],
  ['/secret/note', { status: 403, token: 'wrong', tokenSource: 'x-auth-token' }, [31], 36, /Challenge 36 needs POST/],
  ['/secret/note', { token: 'valid', tokenSource: 'x-auth-token' }, [33, 34], 37, /^Challenge 37 needs your token as Authorization: Bearer <token>; this one came in X-AUTH-TOKEN$/],
  ['/secret/note', { method: 'HEAD', token: 'valid', tokenSource: 'bearer' }, [33], 37, /HEAD passes nothing: challenge 37/],
  ['/secret/note', { method: 'POST', token: 'valid', tokenSource: 'x-auth-token' }, [33, 34], 38, /Challenge 38 needs your token as Authorization: Bearer/],
  ['/secret/note', { method: 'POST', status: 415, token: 'valid', tokenSource: 'bearer', contentType: 'text/plain' }, [], 38, /Challenge 38 needs a JSON body .*had Content-Type text\/plain/],
  ['/secret/note', { token: 'valid', tokenSource: 'bearer' }, [33, 37], 38, /Challenge 38 needs POST/],
  // A token in Authorization without its scheme (issue 49): the Bearer challenge, not the other method's.
  ['/secret/note', { status: 401, token: 'missing', authorization: 'bare' }, [32], 37, /^Challenge 37 needs Authorization: Bearer <token>; this request's Authorization had no scheme/],
  ['/secret/note', { method: 'POST', status: 401, token: 'missing', authorization: 'bare' }, [35], 38, /^Challenge 38 needs Authorization: Bearer <token>; this request's Authorization had no scheme/]
]

t.test('every challenge has near misses in the catalogue, and each rule names its challenge', async t => {
  const named = new Set<number>()
  for (const [resource, facts, before, id, words] of NEAR_MISSES) {
    const challenge = challenges.find(c => c.id === id)
    t.equal(resource, resourceOf(challenge?.trigger ?? 'GET /heartbeat'), `${id} is on ${resource}`)
    const sentence = hint(resource, facts, before)
    t.match(sentence, words, `${facts.method ?? 'GET'} ${resource} ${JSON.stringify(facts)} after ${before.join(',')}`)
    t.match(sentence, new RegExp(`hallenge ${id}\\b`), `names challenge ${id}`)
    named.add(id)
  }
  // The first nineteen's near misses are tested here; a new challenge's, in its own test.
  t.same([...named].sort((a, b) => a - b), [1, 2, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 40, 41, 42], 'each has a tested near miss')
  t.ok(challenges.every(c => c.nearMisses.length > 0 && c.hint.length > 0))
  for (const c of challenges) {
    for (const rule of c.nearMisses) t.match(rule.says({ method: 'GET', contentType: null, base: '' }), new RegExp(`hallenge ${c.id}\\b`), `a near miss of ${c.id} names it`)
  }
})

t.test('a token without its scheme is not taken for another challenge\'s near miss', async t => {
  t.equal(hint('/secret/note', { status: 401, token: 'missing', authorization: 'bare' }, [32, 37]), null, 'GET: 37 passed, and 35 is not what was meant')
  t.equal(hint('/secret/note', { method: 'POST', status: 401, token: 'missing', authorization: 'bare' }, [35, 38]), null, 'POST: 38 passed, and 32 is not what was meant')
  t.match(hint('/secret/note', { method: 'POST', status: 401, token: 'missing', authorization: 'other' }, [35]), /^Challenge 32 needs GET \/secret\/note; this was POST$/)
})

t.test('what an Authorization header holds', async t => {
  const cases: Array<[string | undefined, string]> = [
    [undefined, 'none'], ['Basic YWRtaW46cGFzc3dvcmQ=', 'basic'], ['basic x', 'basic'], ['0123456789abcdef0123456789abcdef', 'bare'],
    ['deadbeef', 'bare'], ['Bearer', 'other'], ['basic', 'other'], ['Bearer abc', 'other'], ['Token abc', 'other'], ['a b', 'other']
  ]
  for (const [header, kind] of cases) t.equal(authorizationOf(header), kind, String(header))
})

t.test('a hint\'s code: a near miss\'s place, and its base; the misspelt header\'s own', async t => {
  const facts: RequestFacts = { ...base, method: 'GET', status: 405 }
  const root = nearMiss('/challenger', facts, 0)
  const api = nearMiss('/challenger', { ...facts, base: '/api' }, 0)
  t.equal(api, root + 128, 'under /api: the same place, 128 on')
  t.equal(nearMiss('/challenger', { ...facts, base: '' }, 0), root)
  t.equal(nearMissSays(root, { method: 'GET', contentType: null }), 'Challenge 1 needs POST /challenger; GET is not allowed there')
  t.equal(nearMissSays(api, { method: 'GET', contentType: null }), 'Challenge 1 needs POST /api/challenger; GET is not allowed there')
  t.equal(nearMissSays(MISSPELT_SESSION_HINT, { method: 'GET', contentType: null }), 'This request named your session in a header that is not X-CHALLENGER (misspelt?), so it counted for no session and passed nothing')
  t.equal(nearMissSays(126, { method: 'GET', contentType: null }), null, 'a place no near miss has')
  t.equal(routeBase('/practice/api/secret/note', '/practice'), '/api')
  t.equal(routeBase('/practice/secret/note', '/practice'), '')
  t.equal(routeBase('/apiary', ''), '')
})

t.test('a route\'s resource for the near misses: under /api, the root\'s (issue 35)', async t => {
  t.equal(routeResource('/heartbeat', ''), '/heartbeat')
  t.equal(routeResource('/api/heartbeat', ''), '/heartbeat')
  t.equal(routeResource('/practice/api/secret/note', '/practice'), '/secret/note')
  t.equal(routeResource('/practice/challenger/:guid', '/practice'), '/challenger/:guid')
  t.equal(routeResource('/api', ''), '')
  t.equal(routeResource('/apiary', ''), '/apiary')
})

t.test('no hint once the challenge is passed, on another resource, or for a request that is simply right', async t => {
  t.equal(hint('/challenges', { method: 'HEAD' }, [2]), null, 'challenge 2 passed already')
  t.equal(hint('/heartbeat', { method: 'HEAD' }, [28]), null)
  t.equal(hint('/secret/note', { method: 'HEAD' }), null, 'HEAD /secret/note without a token verdict matches nothing')
  t.equal(hint('/challenger/:guid/requests', { method: 'GET' }), null, 'a resource without challenges')
  t.equal(hint('/secret/note', { method: 'POST', status: 200, token: 'valid', tokenSource: 'x-auth-token' }, challenges.map(c => c.id)), null, 'everything passed')
  t.equal(nearMissSays(-1, { method: 'GET', contentType: null }), null)
})

const entry = (overrides: Partial<JournalEntry> = {}): JournalEntry => ({
  at: Date.UTC(2026, 10, 22, 10, 15, 30, 123),
  method: 'POST',
  path: '/secret/note',
  status: 415,
  token: 'valid',
  tokenSource: 'x-auth-token',
  contentType: 'application/x-www-form-urlencoded',
  passed: 0,
  hint: nearMiss('/secret/note', { ...base, method: 'POST', status: 415, token: 'valid', tokenSource: 'x-auth-token', contentType: 'application/x-www-form-urlencoded' }, 0),
  suggestion: null,
  ...overrides
})

/** A stranger's text: `length` characters, unique for `n`. */
const hostile = (start: string, n: number, length = 200): string => `${start}${n}-`.padEnd(length, 'abcdefghijklmnopqrstuvwxyz0123456789')

/**
 * The UTF-8 bytes a journal's text area spends on the texts of `entries`, each with its length
 * byte: all but none, "…" (a text pushed out) and the `known` ones, which take none.
 */
function textBytes (entries: JournalEntry[], known: string[] = []): number {
  const own = entries.flatMap(e => [e.path, e.contentType]).filter(text => text !== null && text !== '…' && !known.includes(text)) as string[]
  return own.reduce((sum, text) => sum + Buffer.byteLength(text) + 1, 0)
}

t.test('with Redis, a stranger\'s entries are kept cut, whoever records them', { skip: redisMissing }, async t => {
  const redis = await redisServer()
  t.teardown(() => redis.remove())
  const store = new RedisStore({ url: redis.url, prefix: 'journal:', idleMs: 600_000, maxSessions: 100 })
  t.teardown(() => store.close())
  await store.connected()
  const { guid } = await store.create()
  for (let n = 0; n < 25; n++) await store.record(guid, entry({ path: hostile('/', n, 5000), contentType: hostile('application/x-', n, 5000) }))
  const list = await store.journal(guid) as JournalEntry[]
  t.equal(list.length, 20)
  t.same([list[0]?.path, list[0]?.contentType], [journalText(hostile('/', 24, 5000)), journalText(hostile('application/x-', 24, 5000))])
  const kept = await store.client.lrange(`journal:j:${sessionId(guid)}`, 0, -1)
  t.ok(kept.length <= 25 && kept.every(text => text.length < 2 * MAX_JOURNAL_TEXT + 100), `${kept.length} entries in Redis, the longest ${Math.max(...kept.map(text => text.length))} characters`)
})

t.test('over a socket, a stranger\'s journals stay within their area, and a learner\'s typos read as sent', async t => {
  const app = await build(t, { creationRateLimit: 0 })
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const create = async (): Promise<string> => {
    const res = await fetch(`${address}/challenger`, { method: 'POST' })
    await res.arrayBuffer()
    return res.headers.get('x-challenger') as string
  }
  const send = async (guid: string, path: string, contentType?: string): Promise<number> => {
    const res = await fetch(`${address}${path}`, { headers: { 'x-challenger': guid, ...(contentType === undefined ? {} : { 'content-type': contentType }) } })
    await res.arrayBuffer()
    return res.status
  }
  const journal = async (guid: string): Promise<JournalEntry[]> => (await (await fetch(`${address}/challenger/${guid}/requests`)).json()).requests

  for (let s = 0; s < 3; s++) {
    const guid = await create()
    for (let n = 0; n < 20; n++) t.equal(await send(guid, hostile(`/${s}-`, n), hostile(`application/x-${s}-`, n)), 404)
    const list = await journal(guid)
    t.equal(list.length, 20)
    t.ok(list.every(e => e.path.length <= MAX_JOURNAL_TEXT && (e.contentType?.length ?? 0) <= MAX_JOURNAL_TEXT), 'each text cut')
    t.ok(textBytes(list) <= 20 * JOURNAL_TEXT_BYTES, `${textBytes(list)} bytes of texts kept, at most ${20 * JOURNAL_TEXT_BYTES}`)
    t.same([list[0]?.path, list[0]?.contentType], [journalText(hostile(`/${s}-`, 19)), journalText(hostile(`application/x-${s}-`, 19))], 'the newest, as the journal cuts it')
    // The stranger's own typo after all that: kept as sent.
    t.equal(await send(guid, '/secret/notes'), 404)
    t.equal((await journal(guid))[0]?.path, '/secret/notes')
  }

  // A learner's twenty requests: typos, odd types, the session's own URL, all read back as sent.
  const learner = await create()
  const sent: Array<[string, string | null]> = []
  const typos = ['/secret/notes', '/heartbeats', '/challenge', '/secret/note/1', '/Challenges', '/secret/token/', '/challenger/']
  for (let n = 0; n < 20; n++) {
    const [path, type] = n % 3 === 0 ? [typos[n / 3] as string, 'application/vnd.api+json'] : n % 3 === 1 ? [`/challenger/${learner}`, undefined] : ['/heartbeat', undefined]
    await send(learner, path, type)
    sent.unshift([path, type ?? null])
  }
  const list = await journal(learner)
  t.same(list.map(e => [e.path, e.contentType]), sent)
  t.equal(textBytes(list, [`/challenger/${learner}`, '/heartbeat']), typos.reduce((sum, typo) => sum + typo.length + 1 + 'application/vnd.api+json'.length + 1, 0), 'the session\'s own URL takes no room')
})

const json = { 'content-type': 'application/json' }

t.test('GET /challenger/{guid}/requests over the app', async t => {
  const app = await build(t, { creationRateLimit: 0 })
  const { guid, token } = await newSession(app)
  const requests = async (headers: Record<string, string> = {}) => await app.inject({ method: 'GET', url: `/challenger/${guid}/requests`, headers })

  t.test('the learner of issue 16: a form-encoded note is 415, passes nothing, and points at challenge 34', async t => {
    const res = await app.inject({ method: 'POST', url: '/secret/note?x=1', headers: { 'x-challenger': guid, 'x-auth-token': token, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'note=hi' })
    t.equal(res.statusCode, 415)
    const [last] = (await requests()).json().requests
    t.match(last, {
      method: 'POST',
      path: '/secret/note',
      status: 415,
      token: 'valid',
      tokenSource: 'x-auth-token',
      contentType: 'application/x-www-form-urlencoded',
      passed: [],
      hint: 'Challenge 34 needs a JSON body such as {"note": "hi"}; this one had Content-Type application/x-www-form-urlencoded'
    })
    t.ok(Math.abs(Date.parse(last.at) - Date.now()) < 60_000, 'at is an ISO time of now')
    t.equal(last.at, new Date(Date.parse(last.at)).toISOString())
  })

  t.test('each request, newest first, with what it passed', async t => {
    await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid } })
    await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token, ...json }, payload: { note: 'hi' } })
    await app.inject({ method: 'GET', url: '/secret/note', headers: { 'x-challenger': guid, authorization: 'Bearer nope' } })
    await app.inject({ method: 'GET', url: '/nowhere?q=1', headers: { 'x-challenger': guid } })
    const list = (await requests()).json().requests
    t.same(list.slice(0, 4).map((r: { method: string, path: string, status: number, passed: number[] }) => [r.method, r.path, r.status, r.passed]), [
      ['GET', '/nowhere', 404, []],
      ['GET', '/secret/note', 403, []],
      ['POST', '/secret/note', 200, [34]],
      ['POST', '/secret/note', 401, [35]]
    ])
    t.equal(list[1].hint, 'Challenge 31 needs a wrong X-AUTH-TOKEN; a wrong Bearer token does not count')
    t.same([list[1].token, list[1].tokenSource], ['wrong', 'bearer'])
    t.equal(list[3].token, 'missing')
    t.notOk('tokenSource' in list[3])
    t.notOk('token' in list[0], 'no token on a route that takes none')
    t.equal(list[0].contentType, null)
    // Earlier: the token (30) and the creation (1), which the created session records.
    t.same(list.slice(-2).map((r: { path: string, passed: number[] }) => [r.path, r.passed]), [['/secret/token', [30]], ['/challenger', [1]]])
  })

  t.test('never recorded: the journal\'s own reads, the page\'s refreshes; the token, the credentials and the note never', async t => {
    const before = (await requests()).json().requests.length
    await requests()
    await app.inject({ method: 'HEAD', url: `/challenger/${guid}/requests` })
    await app.inject({ method: 'GET', url: '/challenges', headers: { 'x-challenger': guid, 'x-challenges-page': '1' } })
    t.equal((await requests()).json().requests.length, before)
    await app.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': guid, authorization: basic('admin', 'hunter2-secret') } })
    await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, authorization: `Bearer ${token}`, ...json }, payload: { note: 'my-private-words' } })
    await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': 'wrong-token-value', ...json }, payload: { note: 'other-words' } })
    const all = [(await requests()).body, (await requests({ accept: 'application/xml' })).body]
    for (const text of all) {
      for (const secret of [token, 'hunter2-secret', Buffer.from('admin:hunter2-secret').toString('base64'), 'my-private-words', 'other-words', 'wrong-token-value']) {
        t.notOk(text.includes(secret), `${secret} is not in the journal`)
      }
    }
    t.same((await requests()).json().requests.slice(0, 3).map((r: { passed: number[] }) => r.passed), [[36], [38], [29]])
  })

  t.test('XML, HEAD, OPTIONS, 405 and 404', async t => {
    const xml = await requests({ accept: 'application/xml' })
    t.equal(xml.statusCode, 200)
    t.match(xml.headers['content-type'], /^application\/xml/)
    t.match(xml.body, /^<\?xml version="1.0" encoding="UTF-8"\?><requests><request><id>\d+-[0-9a-f]{8}<\/id><at>[^<]+<\/at><method>POST<\/method><path>\/secret\/note<\/path><status>403<\/status><token>wrong<\/token><tokenSource>x-auth-token<\/tokenSource><contentType>application\/json<\/contentType><passed><id>36<\/id><\/passed><body>note<\/body><\/request>/)
    t.match(xml.body, /<passed\/>/)
    const head = await app.inject({ method: 'HEAD', url: `/challenger/${guid}/requests` })
    t.equal(head.statusCode, 200)
    t.equal(head.body, '')
    const options = await app.inject({ method: 'OPTIONS', url: `/challenger/${guid}/requests` })
    t.equal(options.statusCode, 204)
    t.equal(options.headers.allow, 'GET, HEAD, OPTIONS')
    const del = await app.inject({ method: 'DELETE', url: `/challenger/${guid}/requests` })
    t.equal(del.statusCode, 405)
    t.equal(del.headers.allow, 'GET, HEAD, OPTIONS')
    const unknown = await app.inject({ method: 'GET', url: '/challenger/6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b/requests' })
    t.equal(unknown.statusCode, 404)
    t.same(unknown.json(), { errorMessages: ['No live session "6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b"'] })
    t.equal((await app.inject({ method: 'GET', url: `/challenger/${guid.toUpperCase()}/requests` })).statusCode, 200, 'the id in capitals names it too')
  })

  t.test('a restore keeps the journal, and records itself', async t => {
    const saved = (await app.inject({ method: 'GET', url: `/challenger/${guid}` })).json()
    const before = (await requests()).json().requests.length
    const put = await app.inject({ method: 'PUT', url: `/challenger/${guid}`, headers: json, payload: saved })
    t.equal(put.statusCode, 200)
    const after = (await requests()).json().requests
    t.equal(after.length, Math.min(before + 1, 20))
    t.match(after[0], { method: 'PUT', status: 200, path: `/challenger/${guid}` })
  })

  t.test('a request that names the session in its URL is recorded there', async t => {
    const other = await newSession(app)
    await app.inject({ method: 'GET', url: `/challenger/${other.guid}` })
    const [last] = (await app.inject({ method: 'GET', url: `/challenger/${other.guid}/requests` })).json().requests
    t.match(last, { method: 'GET', path: `/challenger/${other.guid}`, status: 200, passed: [], hint: 'Challenge 43 needs your session id in X-CHALLENGER too, the same as in the URL; this request had none' })
  })
})

t.test('the journal holds JOURNAL_SIZE entries, 0 turns it off, and it goes with its session', async t => {
  const time = fakeTime()
  const store = new MemoryStore({ idleMs: 60_000, now: time.now, every: time.every, journalSize: 3 })
  const app = await build(t, { store, creationRateLimit: 0 })
  const { guid } = await newSession(app)
  for (let i = 0; i < 5; i++) await app.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': guid } })
  const list = (await app.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json().requests
  t.equal(list.length, 3)
  t.same(list.map((r: { path: string }) => r.path), ['/heartbeat', '/heartbeat', '/heartbeat'])
  time.advance(60_000)
  t.equal((await app.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).statusCode, 404, 'expired with its session')
  t.equal(await store.journal(guid), undefined)
  await store.record(guid, entry())
  t.equal(await store.journal(guid), undefined, 'a session that is gone gets no entry')
  const live = await store.create()
  await store.record(live.guid, entry())
  t.same((await store.journal(live.guid))?.map(e => e.status), [415], 'the promise form records too')

  const none = new MemoryStore({ journalSize: 0 })
  const kept = await none.create()
  none.record(kept.guid, entry())
  t.same(await none.journal(kept.guid), [], 'a store with journalSize 0 keeps nothing')

  const off = await build(t, { journalSize: 0, creationRateLimit: 0 })
  const session = await newSession(off)
  await off.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': session.guid } })
  t.same((await off.inject({ method: 'GET', url: `/challenger/${session.guid}/requests` })).json(), { requests: [] })
  const page = await off.inject({ method: 'GET', url: `/gui/challenges/${session.guid}` })
  t.notOk(page.body.includes('Your last requests'), 'no section on the page with the journal off')
})

t.test('what the journal records at the edges', async t => {
  const app = await build(t, { creationRateLimit: 0 })
  const { guid, token } = await newSession(app)
  const newest = async () => (await app.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json().requests[0]

  // Refused before the token is judged (406): the entry still says whether the token was right.
  const refused = await app.inject({ method: 'GET', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token, accept: 'image/png' } })
  t.equal(refused.statusCode, 406)
  t.match(await newest(), { status: 406, token: 'valid', tokenSource: 'x-auth-token', passed: [] })
  await app.inject({ method: 'GET', url: '/secret/note', headers: { 'x-challenger': guid, authorization: `Bearer ${token}x`, accept: 'image/png' } })
  t.match(await newest(), { status: 406, token: 'wrong', tokenSource: 'bearer' })
  await app.inject({ method: 'GET', url: '/secret/note', headers: { 'x-challenger': guid, accept: 'image/png' } })
  t.match(await newest(), { status: 406, token: 'missing' })

  // Content types: parameters dropped, lowercase, an empty one is none, a long one cut.
  await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token, 'content-type': 'Application/Vnd.Custom+JSON; charset=utf-8' }, payload: '{}' })
  t.equal((await newest()).contentType, 'application/vnd.custom+json')
  await app.inject({ method: 'PATCH', url: '/heartbeat', headers: { 'x-challenger': guid, 'content-type': '' } })
  t.equal((await newest()).contentType, null)
  await app.inject({ method: 'PATCH', url: '/heartbeat', headers: { 'x-challenger': guid, 'content-type': `text/${'x'.repeat(300)}` } })
  t.equal((await newest()).contentType.length, MAX_JOURNAL_TEXT)
  const long = await app.inject({ method: 'GET', url: `/${'p'.repeat(300)}`, headers: { 'x-challenger': guid } })
  t.equal(long.statusCode, 404)
  t.match(await newest(), { status: 404, path: new RegExp(`^/p{${MAX_JOURNAL_TEXT - 2}}…$`), hint: null })

  // An unknown session on an unknown path: nobody's journal.
  const before = (await app.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json().requests
  t.equal((await app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-challenger': '6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b' } })).statusCode, 404)
  t.equal((await app.inject({ method: 'GET', url: '/nowhere' })).statusCode, 404)
  t.same((await app.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json().requests, before)

  // HEAD on the note passes nothing and says so.
  await app.inject({ method: 'HEAD', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token } })
  t.match(await newest(), { method: 'HEAD', status: 200, token: 'valid', passed: [], hint: 'HEAD passes nothing: challenge 33 needs GET' })
})

t.test('single-player mode: the one session records every request, a stray path too', async t => {
  const app = await build(t, { mode: 'single' })
  await app.inject({ method: 'GET', url: '/nowhere' })
  await app.inject({ method: 'GET', url: '/heartbeat' })
  const list = (await app.inject({ method: 'GET', url: '/challenger/00000000-0000-4000-8000-000000000001/requests' })).json().requests
  t.same(list.map((r: { path: string, status: number }) => [r.path, r.status]), [['/heartbeat', 204], ['/nowhere', 404]])
})

t.test('a store that fails to keep an entry alone fails nothing; with the request\'s change, the request fails', async t => {
  // An entry with no change to write (a heartbeat after the first) is only for learning.
  class Failing extends MemoryStore {
    override async record (guid: string, entry: JournalEntry, change?: SessionChange): Promise<boolean> {
      if (change === undefined) throw new Error('the journal store is away')
      return await super.record(guid, entry, change)
    }
  }
  const kept = new Failing()
  const other = await build(t, { store: kept, creationRateLimit: 0 })
  const session = await newSession(other)
  const first = await other.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': session.guid } })
  t.equal(first.statusCode, 204, 'the first heartbeat passes its challenge, its entry with it')
  const res = await other.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': session.guid } })
  t.equal(res.statusCode, 204, 'answered as usual')
  // Kept: the token's entry and the first heartbeat's, each with its change; not the creation's, nor the second heartbeat's.
  t.same((await kept.journal(session.guid))?.map(entry => entry.passed), [bitFor('GET /heartbeat'), bitFor('POST /secret/token issued')], 'the entries without a change are not kept')

  // The change and its entry go together: a store that cannot keep them answers 503, and nothing passed.
  class Away extends MemoryStore {
    override async record (): Promise<boolean> { throw new StoreUnavailableError(new Error('away')) }
  }
  const away = new Away()
  const third = await build(t, { store: away, creationRateLimit: 0 })
  const learner = await newSession(third)
  const refused = await third.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': learner.guid } })
  t.equal(refused.statusCode, 503)
  // Only the creation's challenge, which create() stores with the session (the token's write failed too).
  t.equal((await away.get(learner.guid))?.progress, bitFor('POST /challenger created'), 'the heartbeat\'s challenge is not passed')
})
