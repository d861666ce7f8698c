// A bug hunt played over HTTP: a session with hidden defects, findings that reveal them or say
// why an answer was right, bad findings refused without changing anything, and a hunt restored.
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { HUNT_SIZE } from '../../src/domain/defects/catalogue.js'
import { huntCode, huntFrom, whyCorrect } from '../../src/domain/defects/hunt.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { basic, build, errorMessages, storeOf } from '../helper.js'

const HIDDEN = ['note-write-201', 'no-www-authenticate', 'heartbeat-200']

/** A hunt whose defects the test knows: made in the store, its token earned over HTTP. */
async function knownHunt (t: Parameters<typeof build>[0], hidden = HIDDEN): Promise<{ app: FastifyInstance, guid: string, token: string }> {
  const store = new MemoryStore({})
  const app = await build(t, { store })
  const { guid } = await store.create(undefined, 1, { hidden, found: [] })
  const issued = await app.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': guid, authorization: basic('admin', 'password') } })
  return { app, guid, token: issued.headers['x-auth-token'] as string }
}

interface View { id: string, method: string, path: string, status: number }

async function journal (app: FastifyInstance, guid: string): Promise<View[]> {
  return (await app.inject({ url: `/challenger/${guid}/requests` })).json().requests
}

async function report (app: FastifyInstance, guid: string, entry: unknown) {
  return await app.inject({ method: 'POST', url: `/challenger/${guid}/findings`, payload: { entry } })
}

t.test('POST /challenger {"hunt": true} hides three defects; the session JSON carries them as a code', async t => {
  const app = await build(t)
  const made = await app.inject({ method: 'POST', url: '/challenger', payload: { hunt: true, name: 'Ada' } })
  t.equal(made.statusCode, 201)
  const guid = made.headers['x-challenger'] as string
  const session = await storeOf(app).get(guid)
  t.equal(session?.hunt?.hidden.length, HUNT_SIZE)
  t.same(session?.hunt?.found, [])
  t.equal(session?.name, 'Ada')
  const json = (await app.inject({ url: `/challenger/${guid}` })).json()
  t.same(json.hunt, { defects: huntCode(session?.hunt?.hidden ?? []), found: [] })
  t.notMatch(JSON.stringify(json), /note-write|www-authenticate|heartbeat-200|swap|foreign/, 'the ids are not readable in the JSON')
  // A plain session has no hunt, and its JSON none.
  const plain = await app.inject({ method: 'POST', url: '/challenger', payload: { hunt: false } })
  t.notOk('hunt' in (await app.inject({ url: `/challenger/${plain.headers['x-challenger'] as string}` })).json())
  const bad = await app.inject({ method: 'POST', url: '/challenger', payload: { hunt: 'yes' } })
  t.equal(bad.statusCode, 400)
  t.same(errorMessages(bad), ['Invalid request: hunt must be true or false, got "yes"'])
})

t.test('a finding on a mutated answer reveals its defect, once; on a correct answer it says why', async t => {
  const { app, guid, token } = await knownHunt(t)
  const headers = { 'x-challenger': guid, 'x-auth-token': token }
  const written = await app.inject({ method: 'POST', url: '/secret/note', headers, payload: { note: 'hi' } })
  t.equal(written.statusCode, 201, 'the hidden defect changed the answer')
  const beat = await app.inject({ method: 'PATCH', url: '/heartbeat', headers })
  t.equal(beat.statusCode, 500, 'a defect not hidden here changes nothing')
  const [patch, write] = await journal(app, guid) as [View, View]
  t.same([write.method, write.path, write.status], ['POST', '/secret/note', 201])
  t.notOk('defect' in write, 'the journal does not tell')

  const found = await report(app, guid, write.id)
  t.equal(found.statusCode, 200)
  t.same(found.json(), {
    verdict: 'found',
    defect: {
      id: 'note-write-201',
      name: 'POST /secret/note answers 201',
      breaks: 'A note written is answered 201 Created instead of 200 OK.',
      why: 'The status is part of the contract: clients and gateways branch on it, and 201 promises a new resource (and a Location) that is not there.'
    },
    found: 1,
    hidden: 3
  })
  t.same((await storeOf(app).get(guid))?.hunt?.found, ['note-write-201'])
  // Found again: still found, counted once.
  t.equal((await report(app, guid, write.id)).json().found, 1)
  t.same((await storeOf(app).get(guid))?.hunt?.found, ['note-write-201'])

  const alarm = await report(app, guid, patch.id)
  t.equal(alarm.statusCode, 200)
  t.same(alarm.json(), {
    verdict: 'correct',
    explanation: 'Nothing hidden changed this answer: PATCH /heartbeat answered 500, as the service\'s rules say. PATCH /heartbeat answers 500: the heartbeat fails on purpose there.',
    found: 1,
    hidden: 3
  })
  // The page's JSON keeps the found one by id.
  t.same((await app.inject({ url: `/challenger/${guid}` })).json().hunt.found, ['note-write-201'])
})

t.test('each defect of a hunt is found where it shows, under /api too', async t => {
  const { app, guid, token } = await knownHunt(t)
  await app.inject({ url: '/api/heartbeat', headers: { 'x-challenger': guid } })
  await app.inject({ method: 'POST', url: '/api/secret/token', headers: { 'x-challenger': guid, authorization: basic('admin', 'nope') } })
  const [refused, beat] = await journal(app, guid) as [View, View]
  t.same([beat.status, refused.status], [200, 401])
  t.equal((await report(app, guid, beat.id)).json().defect.id, 'heartbeat-200')
  const last = (await app.inject({ method: 'POST', url: `/api/challenger/${guid}/findings`, payload: { entry: refused.id } })).json()
  t.same([last.defect.id, last.found], ['no-www-authenticate', 2])
  t.ok(token.length === 32)
})

t.test('bad findings get a clear 400 and change nothing', async t => {
  const { app, guid, token } = await knownHunt(t)
  await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token }, payload: { note: 'hi' } })
  const [write] = await journal(app, guid) as [View]
  const other = (await app.inject({ method: 'POST', url: '/challenger', payload: { hunt: true } })).headers['x-challenger'] as string
  await app.inject({ url: '/heartbeat', headers: { 'x-challenger': other } })
  const [theirs] = await journal(app, other) as [View]
  const at = write.id.split('-')[0] as string
  const cases: Array<[string, unknown, RegExp]> = [
    ['no entry', undefined, /entry/],
    ['an entry that is no id', 'the third one', /^Invalid request: entry must be an entry's id from GET \/challenger\/.+\/requests, such as "1763806530123-[0-9a-f]{8}"; got "the third one"$/],
    ['a number', 3, /entry/],
    ['another session\'s entry', theirs.id, /^Entry ".+" is another session's: report it on the session whose journal holds it$/],
    ['an entry not in the journal', `${Number(at) - 100_000}-${guid.slice(0, 8)}`, /^No entry ".+" in this session's journal, which keeps its last requests: GET \/challenger\/.+\/requests lists them$/]
  ]
  for (const [name, entry, message] of cases) {
    const res = await app.inject({ method: 'POST', url: `/challenger/${guid}/findings`, payload: entry === undefined ? {} : { entry } })
    t.equal(res.statusCode, 400, name)
    t.match((errorMessages(res) as string[])[0], message, name)
  }
  t.same((await storeOf(app).get(guid))?.hunt?.found, [], 'nothing found')
  // Not a hunt; no session; not JSON.
  const plain = (await app.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
  const notHunt = await report(app, plain, write.id)
  t.same([notHunt.statusCode, errorMessages(notHunt)], [400, ['This session is not a bug hunt: make one with POST /challenger and the body {"hunt": true}']])
  t.equal((await report(app, '00000000-0000-4000-8000-00000000beef', write.id)).statusCode, 404)
  const text = await app.inject({ method: 'POST', url: `/challenger/${guid}/findings`, headers: { 'content-type': 'text/plain' }, payload: write.id })
  t.equal(text.statusCode, 415)
})

t.test('a hunt survives a restore; a restore without one ends it; a bad hunt is refused', async t => {
  const { app, guid, token } = await knownHunt(t)
  await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token }, payload: { note: 'hi' } })
  const [write] = await journal(app, guid) as [View]
  await report(app, guid, write.id)
  const saved = (await app.inject({ url: `/challenger/${guid}` })).json()
  // The session expires (here: it is removed), and the learner puts it back.
  const fresh = await build(t)
  const restored = await fresh.inject({ method: 'PUT', url: `/challenger/${guid}`, payload: saved })
  t.equal(restored.statusCode, 201)
  t.same((await storeOf(fresh).get(guid))?.hunt, { hidden: HIDDEN, found: ['note-write-201'] })
  const again = await fresh.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token }, payload: { note: 'hi' } })
  t.equal(again.statusCode, 201, 'the defects are hidden again')

  for (const [hunt, message] of [
    [{ defects: 'bm9wZQ' }, 'Invalid request: hunt.defects is not a hunt\'s code (copy it, unchanged, from GET /challenger/{guid})'],
    [{ defects: huntCode(['created-200']) }, 'Invalid request: hunt.defects is not a hunt\'s code (copy it, unchanged, from GET /challenger/{guid})'],
    [{ defects: huntCode(['heartbeat-200', 'heartbeat-200']) }, 'Invalid request: hunt.defects is not a hunt\'s code (copy it, unchanged, from GET /challenger/{guid})'],
    [{ defects: '!!' }, 'Invalid request: hunt.defects is not a hunt\'s code (copy it, unchanged, from GET /challenger/{guid})'],
    [{ defects: saved.hunt.defects, found: ['swap-401-403'] }, 'Invalid request: hunt.found names "swap-401-403", which this hunt does not hide']
  ] as const) {
    const res = await fresh.inject({ method: 'PUT', url: `/challenger/${guid}`, payload: { ...saved, hunt } })
    t.same([res.statusCode, errorMessages(res)], [400, [message]])
  }
  t.same((await storeOf(fresh).get(guid))?.hunt?.found, ['note-write-201'], 'the refused restores changed nothing')
  const { hunt: _, ...withoutHunt } = saved
  t.equal((await fresh.inject({ method: 'PUT', url: `/challenger/${guid}`, payload: withoutHunt })).statusCode, 200)
  t.equal((await storeOf(fresh).get(guid))?.hunt, undefined)
})

t.test('the explanations of correct answers name the rule', async t => {
  const { app, guid, token } = await knownHunt(t, ['swap-401-403', 'any-password', 'override-ignored'])
  const headers = { 'x-challenger': guid }
  const sent = [
    { method: 'GET' as const, url: '/nowhere', headers },
    { method: 'DELETE' as const, url: '/heartbeat', headers },
    { method: 'GET' as const, url: '/secret/note', headers: { ...headers, 'x-auth-token': token } },
    { method: 'POST' as const, url: '/secret/note', headers: { ...headers, 'x-auth-token': token }, payload: { nope: 1 } },
    { method: 'POST' as const, url: '/challenger', headers },
    { method: 'DELETE' as const, url: '/secret/token', headers }
  ]
  for (const request of sent) await app.inject(request)
  const entries = (await journal(app, guid)).reverse()
  const said = []
  for (const entry of entries) said.push((await report(app, guid, entry.id)).json().explanation.replace(/^Nothing hidden changed this answer: [^.]+\. /, ''))
  // One entry a request: POST /challenger's answer was once recorded twice.
  t.same(said, [
    'Good Basic credentials and a live session earn the token: 201, with X-AUTH-TOKEN.',
    '/nowhere is not a path of this API, or names no live session: it is answered 404 (with a "did you mean" in the journal when a path is near).',
    'Methods the heartbeat does not list are answered 405 Method Not Allowed, with Allow.',
    'GET /secret/note with the session\'s own token answers 200 and the note, as JSON or, when Accept asks for it, XML.',
    'A body that is not a JSON object with a string "note" is refused with 400, once the session and its token are good.',
    'POST /challenger naming a live session in X-CHALLENGER answers 200: it exists already.',
    '/secret/token does not take DELETE: 405 Method Not Allowed, with the methods it does take in Allow.'
  ])
})

t.test('single-player mode: a hunt starts on the one session', async t => {
  const app = await build(t, { mode: 'single' })
  const made = await app.inject({ method: 'POST', url: '/challenger', payload: { hunt: true } })
  t.equal(made.statusCode, 201)
  const guid = made.headers['x-challenger'] as string
  t.equal((await storeOf(app).get(guid))?.hunt?.hidden.length, HUNT_SIZE)
})

t.test('why an answer was correct: by method, path and status, then by path and status, then by status', async t => {
  const why = (method: string, path: string, status: number, known = true): string => whyCorrect({ method, path, status, known }).replace(/^Nothing hidden changed this answer: [^.]+\. /, '')
  t.equal(why('GET', '/heartbeat', 503), 'The heartbeat answers 503 while the server is shutting down or its store cannot be reached.')
  t.equal(why('GET', '/secret/note', 406), 'An Accept header that allows neither JSON nor XML gets 406 Not Acceptable.')
  t.equal(why('POST', '/heartbeat', 501), 'POST /heartbeat answers 405 with Allow, unless X-HTTP-Method-Override makes it DELETE (405), PATCH (500) or TRACE (501).')
  t.equal(why('GET', '/challenger/abc', 404, false), '/challenger/abc is not a path of this API, or names no live session: it is answered 404 (with a "did you mean" in the journal when a path is near).')
  t.equal(why('PUT', '/secret/note', 405), '/secret/note does not take PUT: 405 Method Not Allowed, with the methods it does take in Allow.')
  t.equal(why('PUT', '/challenger/abc', 201), 'That is the status the specification gives this request.')
  t.equal(whyCorrect({ method: 'GET', path: '/heartbeat', status: 204, known: true }), 'Nothing hidden changed this answer: GET /heartbeat answered 204, as the service\'s rules say. GET /heartbeat answers 204 No Content: the server is running, and has nothing to say.')
  t.same(huntFrom({ defects: huntCode(['heartbeat-200']) }), { hidden: ['heartbeat-200'], found: [] }, 'a hunt restored with no found ones')
})
