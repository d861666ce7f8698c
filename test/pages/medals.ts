// Medals (issue 58): the reference's rail scaled to this catalogue, worked out from what the session
// keeps, on the progress page and the class board, and restored with the session's JSON.
import t from 'tap'
import { challenges } from '../../src/domain/challenges/catalogue.js'
import { MEDALS, medalsOf } from '../../src/domain/challenges/medals.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { build, newSession } from '../helper.js'

const ADMIN = 'an-instructor-token-0123'
const admin = { authorization: `Bearer ${ADMIN}` }
const json = { 'content-type': 'application/json' }
const SECRET = [29, 30, 31, 32, 33, 34, 35, 36, 37, 38]

/** The rail as the page drew it: each medal's id and whether it says it is earned. */
function rail (html: string): Array<[string, boolean]> {
  return [...html.matchAll(/<li class="medal (earned|locked)" data-medal="([a-z0-9-]+)"[^>]*>[^]*?<span class="medal-state">(earned|not yet)<\/span>/g)]
    .map(match => [match[2] as string, match[1] === 'earned' && match[3] === 'earned'])
}

t.test('the medals: a milestone every 5 passed, Clearance Granted, Completist, and a hunt found in full', async t => {
  t.same(MEDALS.map(medal => medal.name), ['5 passed', '10 passed', '15 passed', '20 passed', 'Clearance Granted', 'Completist', 'Bug Hunter'])
  t.equal(Math.floor(challenges.length / 5), 4, 'scaled to this catalogue: the reference has one every 10 of its ~100')
  t.same(MEDALS.find(medal => medal.id === 'clearance-granted')?.rule, { all: SECRET }, 'the secret token and note, 29 to 38')
  t.same(medalsOf({ passed: [] }), [])
  t.same(medalsOf({ passed: [1, 2, 25, 26, 27] }), ['passed-5'])
  t.same(medalsOf({ passed: SECRET }), ['passed-5', 'passed-10', 'clearance-granted'])
  t.same(medalsOf({ passed: challenges.map(c => c.id) }), ['passed-5', 'passed-10', 'passed-15', 'passed-20', 'clearance-granted', 'completist'])
  t.same(medalsOf({ passed: [], hunt: { found: 3, hidden: 3 } }), ['hunter'])
  t.same(medalsOf({ passed: [], hunt: { found: 2, hidden: 3 } }), [])
  t.same(medalsOf({ passed: [], hunt: { found: 0, hidden: 0 } }), [], 'a hunt with nothing hidden has nothing to find')
})

t.test('the progress page shows the rail, each medal earned or not yet in words; the board lists them per learner', async t => {
  const app = await build(t, { adminToken: ADMIN })
  const me = await newSession(app)
  const fresh = (await app.inject({ method: 'GET', url: `/gui/challenges/${me.guid}` })).body
  const plain = MEDALS.length - 1
  t.match(fresh, `<h2 id="medals-title">Medals: <span id="medals-count">0 of ${plain}</span></h2>`, 'no hunt: no hunt medal')
  t.same(rail(fresh).map(([, has]) => has), Array(plain).fill(false))
  const auth = { 'x-challenger': me.guid, 'x-auth-token': me.token }
  for (const [method, url, headers, payload] of [
    ['GET', '/secret/note', auth], ['POST', '/secret/note', { ...auth, ...json }, { note: 'n' }], ['GET', '/secret/note', { 'x-challenger': me.guid }],
    ['POST', '/secret/note', { 'x-challenger': me.guid, ...json }, { note: 'n' }], ['GET', '/secret/note', { 'x-challenger': me.guid, 'x-auth-token': 'wrong' }],
    ['POST', '/secret/note', { 'x-challenger': me.guid, 'x-auth-token': 'wrong', ...json }, { note: 'n' }],
    ['GET', '/secret/note', { 'x-challenger': me.guid, authorization: `Bearer ${me.token}` }],
    ['POST', '/secret/note', { 'x-challenger': me.guid, authorization: `Bearer ${me.token}`, ...json }, { note: 'n' }],
    ['POST', '/secret/token', { 'x-challenger': me.guid, authorization: 'Basic d3Jvbmc6d3Jvbmc=' }]
  ] as Array<['GET' | 'POST', string, Record<string, string>, object | undefined]>) {
    await app.inject({ method, url, headers, payload })
  }
  const page = (await app.inject({ method: 'GET', url: `/gui/challenges/${me.guid}` })).body
  t.same(rail(page).filter(([, has]) => has).map(([id]) => id), ['passed-5', 'passed-10', 'clearance-granted'])
  t.match(page, `<span id="medals-count">3 of ${plain}</span>`)
  t.match(page, 'data-medal="clearance-granted" data-all="29,30,31,32,33,34,35,36,37,38" title="Pass every challenge of the secret token and note (29, 30, 31, 32, 33, 34, 35, 36, 37, 38)"')
  const board = (await app.inject({ method: 'GET', url: '/admin/sessions', headers: admin })).json()
  t.same(board.sessions[0].medals, [{ id: 'passed-5', name: '5 passed' }, { id: 'passed-10', name: '10 passed' }, { id: 'clearance-granted', name: 'Clearance Granted' }])
  t.match((await app.inject({ method: 'GET', url: '/admin', headers: admin })).body, '<th>medals</th>')
})

t.test('medals are kept with the session: its JSON restores them on a fresh server, and a hunt found in full earns Bug Hunter', async t => {
  const first = await build(t, { adminToken: ADMIN })
  const created = await first.inject({ method: 'POST', url: '/challenger', headers: json, payload: {} })
  const guid = created.headers['x-challenger'] as string
  const saved = (await first.inject({ method: 'GET', url: `/challenger/${guid}` })).json()
  const all = Object.fromEntries(challenges.map(c => [String(c.id).padStart(2, '0'), true]))
  const store = new MemoryStore()
  const second = await build(t, { adminToken: ADMIN, store })
  const put = await second.inject({ method: 'PUT', url: `/challenger/${guid}`, headers: json, payload: { ...saved, challengeStatus: all } })
  t.equal(put.statusCode, 201)
  const restored = (await second.inject({ method: 'GET', url: `/gui/challenges/${guid}` })).body
  t.same(rail(restored).map(([id, has]) => has ? id : ''), MEDALS.filter(medal => !('hunt' in medal.rule)).map(medal => medal.id), 'every medal a restore can bring back (a hunt\'s is not on a plain session\'s page)')
  // A hunt found in full, as findings find it (a restore cannot set a hunt): Bug Hunter too.
  const hunter = await store.create(undefined, 0, { hidden: ['heartbeat-200', 'lost-write'], found: [] })
  await store.restore({ ...hunter, progress: (await store.get(guid))?.progress ?? 0 })
  for (const found of ['heartbeat-200', 'lost-write']) await store.update(hunter.guid, { found })
  const page = (await second.inject({ method: 'GET', url: `/gui/challenges/${hunter.guid}` })).body
  t.same(rail(page).map(([id, has]) => has ? id : ''), MEDALS.map(medal => medal.id), 'every medal, Bug Hunter and Completist included')
  t.match(page, `<span id="medals-count">${MEDALS.length} of ${MEDALS.length}</span>`)
  const board = (await second.inject({ method: 'GET', url: '/admin/sessions', headers: admin })).json()
  t.same(board.sessions.find((s: { guid: string }) => s.guid === hunter.guid).medals.map((m: { id: string }) => m.id), MEDALS.map(medal => medal.id))
})
