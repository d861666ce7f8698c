// A bug hunt played over HTTP: a session with hidden defects that no answer names, findings that reveal
// them or say why an answer was right, bad findings refused without changing anything, a restore that
// never sets a hunt, no hunt in single-player mode, and a hunt found in full that says so.
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { HUNT_SIZE } from '../../src/domain/defects/catalogue.js'
import { whyCorrect } from '../../src/domain/defects/hunt.js'
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

/** Every way an answer could spell a defect's id: as it is, and in base64 or base64url (whole or within a longer run). */
function spellings (id: string): string[] {
  return [id, ...['base64', 'base64url'].flatMap(encoding => [0, 1, 2].map(shift =>
    Buffer.from('xx'.slice(0, shift) + id, 'utf8').toString(encoding as BufferEncoding).slice(4, -4)))]
}

t.test('POST /challenger {"hunt": true} hides three defects; no answer names them: the session JSON and XML count them', async t => {
  const app = await build(t)
  const made = await app.inject({ method: 'POST', url: '/challenger', payload: { hunt: true, name: 'Ada' } })
  t.equal(made.statusCode, 201)
  const guid = made.headers['x-challenger'] as string
  const session = await storeOf(app).get(guid)
  t.equal(session?.hunt?.hidden.length, HUNT_SIZE)
  t.same(session?.hunt?.found, [])
  t.equal(session?.name, 'Ada')
  const answers = [
    await app.inject({ url: `/challenger/${guid}` }),
    await app.inject({ url: `/challenger/${guid}`, headers: { accept: 'application/xml' } }),
    await app.inject({ url: `/challenger/${guid}/requests` }),
    await app.inject({ url: `/challenger/${guid}/requests?format=curl` }),
    await app.inject({ url: `/gui/challenges/${guid}` }),
    await app.inject({ url: `/gui/challenges/${guid}/hunt` }),
    await app.inject({ url: `/gui/challenges/${guid}/session` })
  ]
  t.same(answers.map(res => res.statusCode), answers.map(() => 200))
  t.same(answers[0]?.json().hunt, { hidden: HUNT_SIZE, found: [], complete: false }, 'the JSON counts the hidden defects')
  t.match(answers[1]?.body, `<hunt><hidden>${HUNT_SIZE}</hidden><found></found><complete>false</complete></hunt>`, 'and so does the XML')
  // No answer spells a hidden id, plainly or in base64: nothing there to decode.
  for (const id of session?.hunt?.hidden ?? []) {
    for (const [i, res] of answers.entries()) t.notOk(spellings(id).some(spelled => res.body.includes(spelled)), `answer ${i} does not spell ${id}`)
  }
  t.ok(spellings('heartbeat-200').some(spelled => Buffer.from('a,heartbeat-200,b').toString('base64url').includes(spelled)), 'the spellings would see a code like the old one')
  // The API's own description shows a hunt as the answers do: counted, with no code.
  const doc = (await app.inject({ url: '/docs/json' })).json()
  const hunt = doc.paths['/challenger/{guid}'].get.responses['200'].content['application/json'].schema.properties.hunt
  t.same(Object.keys(hunt.properties), ['hidden', 'found', 'complete'])
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
    hidden: 3,
    complete: false
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
    hidden: 3,
    complete: false
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

t.test('a restore never sets a hunt: a live session keeps its own, found or not; one made again has none', async t => {
  const { app, guid, token } = await knownHunt(t)
  await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token }, payload: { note: 'hi' } })
  const [write] = await journal(app, guid) as [View]
  await report(app, guid, write.id)
  const saved = (await app.inject({ url: `/challenger/${guid}` })).json()
  const kept = { hidden: HIDDEN, found: ['note-write-201'] }
  // Whatever the body says of the hunt (the old code of other defects, every one found, no hunt at all), the hunt stays as it was.
  const oldCode = Buffer.from('swap-401-403,any-password,lost-write', 'utf8').toString('base64url')
  for (const hunt of [saved.hunt, { defects: oldCode, found: ['swap-401-403', 'any-password', 'lost-write'] }, { hidden: 3, found: HIDDEN, complete: true }, 'solved', undefined]) {
    const res = await app.inject({ method: 'PUT', url: `/challenger/${guid}`, payload: { ...saved, secretNote: 'restored', hunt } })
    t.equal(res.statusCode, 200, JSON.stringify(hunt))
    t.same(res.json().hunt, { hidden: 3, found: ['note-write-201'], complete: false }, 'the answer shows the hunt kept')
    t.same((await storeOf(app).get(guid))?.hunt, kept)
  }
  t.equal((await storeOf(app).get(guid))?.note, 'restored', 'the rest is restored')
  const again = await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token }, payload: { note: 'hi' } })
  t.equal(again.statusCode, 201, 'the defects are still hidden')
  // A session that is no hunt does not become one.
  const plain = (await app.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
  const made = await app.inject({ method: 'PUT', url: `/challenger/${plain}`, payload: { xChallenger: plain, hunt: { defects: oldCode, found: [] } } })
  t.equal(made.statusCode, 200)
  t.notOk('hunt' in made.json())
  t.equal((await storeOf(app).get(plain))?.hunt, undefined)

  // The session ends (here: a fresh server), and the learner puts it back: without its hunt, whose defects only the server knew.
  const fresh = await build(t)
  const restored = await fresh.inject({ method: 'PUT', url: `/challenger/${guid}`, payload: { ...saved, hunt: { defects: oldCode, found: [] } } })
  t.equal(restored.statusCode, 201)
  t.notOk('hunt' in restored.json())
  t.equal((await storeOf(fresh).get(guid))?.hunt, undefined)
  t.equal((await fresh.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token }, payload: { note: 'hi' } })).statusCode, 200, 'no defect in its answers')
})

t.test('a hunt found 3 of 3 says so: in the finding that completes it, the session\'s JSON and XML, and the progress page', async t => {
  const { app, guid, token } = await knownHunt(t)
  const headers = { 'x-challenger': guid }
  await app.inject({ url: '/heartbeat', headers })
  await app.inject({ method: 'POST', url: '/secret/token', headers: { ...headers, authorization: basic('admin', 'nope') } })
  await app.inject({ method: 'POST', url: '/secret/note', headers: { ...headers, 'x-auth-token': token }, payload: { note: 'hi' } })
  const [write, refused, beat] = await journal(app, guid) as [View, View, View]
  const answers = []
  for (const entry of [beat, refused, write]) answers.push((await report(app, guid, entry.id)).json())
  t.same(answers.map(answer => [answer.found, answer.complete]), [[1, false], [2, false], [3, true]], 'the third finding completes it')
  const xml = await app.inject({ method: 'POST', url: `/challenger/${guid}/findings`, headers: { accept: 'application/xml' }, payload: { entry: write.id } })
  t.match(xml.body, '<found>3</found><hidden>3</hidden><complete>true</complete></finding>', 'found again: still complete')
  t.same((await app.inject({ url: `/challenger/${guid}` })).json().hunt, { hidden: 3, found: ['heartbeat-200', 'no-www-authenticate', 'note-write-201'], complete: true })
  t.match((await app.inject({ url: `/challenger/${guid}`, headers: { accept: 'application/xml' } })).body, '<complete>true</complete></hunt>')
  const page = (await app.inject({ url: `/gui/challenges/${guid}` })).body
  t.match(page, '<h2 id="hunt-title">Bug hunt complete: 3 of 3 found</h2>')
  t.match(page, '<p id="hunt-complete"><strong>Every defect hidden in this session is found: the hunt is over.</strong>')
  // A false alarm after it is over: still complete.
  const alarm = (await report(app, guid, (await journal(app, guid)).at(-1)?.id)).json()
  t.same([alarm.verdict, alarm.found, alarm.complete], ['correct', 3, true])
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

t.test('single-player mode has no bug hunt: POST /challenger {"hunt": true} is a 409 that says why, and changes nothing', async t => {
  const app = await build(t, { mode: 'single' })
  const one = (await app.inject({ method: 'POST', url: '/challenger', payload: { name: 'Ada' } })).headers['x-challenger'] as string
  const refused = await app.inject({ method: 'POST', url: '/challenger', payload: { hunt: true, name: 'Bob' } })
  t.equal(refused.statusCode, 409)
  t.same(errorMessages(refused), ['No bug hunt in single-player mode: its one session is everyone\'s who uses this server, so a hunt\'s hidden defects would change all their answers. ' +
    'Hunt on a multi-player server (MODE=multi, the default), where each hunt is its own session\'s'])
  const session = await storeOf(app).get(one)
  t.same([session?.hunt, session?.name], [undefined, 'Ada'], 'no hunt, and the name unchanged')
  t.equal((await app.inject({ url: '/heartbeat', headers: { 'x-challenger': one } })).statusCode, 204, 'the answers are the correct ones')
  t.equal((await app.inject({ method: 'POST', url: '/challenger', payload: { hunt: false } })).statusCode, 201, '{"hunt": false} is a plain hand-out')
  t.equal((await app.inject({ method: 'POST', url: '/challenger', payload: { hunt: 'yes' } })).statusCode, 400, 'a hunt that is no boolean is still a 400')
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
})
