// A session that expired: every request that names it is told so, with how long sessions last and
// the restore command, at the statuses it had (401 on /secret, 404 on /challenger…); the progress
// page says it too, and offers the browser's copy back. Over inject, with a hand-moved clock.
import t from 'tap'
import { duration, NAME_A_SESSION } from '../../src/domain/challenges/messages.js'
import { SINGLE_PLAYER_GUID } from '../../src/domain/config/options.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { fakeTime } from '../clock.js'
import { BASES, baseName, basic, build, errorMessages, newSession } from '../helper.js'

const json = { 'content-type': 'application/json' }
const IDLE = 60_000
const NEVER = '3f1e0d6c-0000-4000-8000-000000000000'

/** What a request naming `guid`, expired, is told under `base`. */
function expired (guid: string, base: string, idle = '1 minute'): string {
  return `Session "${guid}" has expired: a session ends after ${idle} without a request (sooner, when the server is full). ` +
    `Restore it with PUT ${base}/challenger/${guid} and the JSON saved from GET ${base}/challenger/${guid} ` +
    `(its progress page, /gui/challenges/${guid}, keeps that JSON in the browser and restores it with one click), ` +
    `or create a new session with POST ${base}/challenger`
}

/** A memory store that counts how often it is asked whether a session expired. */
class CountingStore extends MemoryStore {
  asked = 0
  override async expiredRecently (guid: string): Promise<boolean> {
    this.asked++
    return await super.expiredRecently(guid)
  }
}

t.test('durations read as a learner reads them', async t => {
  t.same([600_000, 60_000, 90_000, 1000, 3_600_000, 7_200_000, 5_400_000, 1500].map(duration),
    ['10 minutes', '1 minute', '90 seconds', '1 second', '1 hour', '2 hours', '90 minutes', '1500 ms'])
})

for (const base of BASES) {
  t.test(baseName(base), async t => {
    t.test('every request naming an expired session says it expired and how to restore it, at the status it had', async t => {
      const time = fakeTime()
      const store = new CountingStore({ idleMs: IDLE, now: time.now, every: time.every })
      const app = await build(t, { store, sessionIdleMs: IDLE })
      const me = await newSession(app, base)
      const auth = { 'x-challenger': me.guid, 'x-auth-token': me.token }
      t.equal((await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { ...auth, ...json }, payload: { note: 'kept' } })).statusCode, 200)
      const saved = (await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}` })).json()
      t.equal(store.asked, 0, 'requests that find their session never ask')
      time.advance(IDLE)

      const said = expired(me.guid, base)
      const answers = [
        ['GET /secret/note', await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: auth }), 401],
        ['POST /secret/note', await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { ...auth, ...json }, payload: { note: 'lost' } }), 401],
        ['POST /secret/token', await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { 'x-challenger': me.guid, authorization: basic('admin', 'password') } }), 401],
        ['POST /challenger', await app.inject({ method: 'POST', url: `${base}/challenger`, headers: { 'x-challenger': me.guid } }), 404],
        ['GET /challenger/{guid}', await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}` }), 404],
        ['PATCH /challenger/{guid}', await app.inject({ method: 'PATCH', url: `${base}/challenger/${me.guid}`, headers: json, payload: { name: 'Ada' } }), 404],
        ['GET /challenger/{guid}/requests', await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}/requests` }), 404],
        ['POST /challenger/{guid}/findings', await app.inject({ method: 'POST', url: `${base}/challenger/${me.guid}/findings`, headers: json, payload: { entry: `1-${me.guid.slice(0, 8)}` } }), 404],
        ['the id in capitals', await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: { ...auth, 'x-challenger': me.guid.toUpperCase() } }), 401]
      ] as const
      for (const [what, res, status] of answers) {
        t.equal(res.statusCode, status, `${what}: ${status}, as before`)
        t.same(errorMessages(res), [said], `${what}: expired, and the restore command`)
      }
      // The note asks for its Bearer token on every 401 (the reference's 2026 answer); the token route, whose session is gone, for no credentials.
      t.equal(answers[0][1].headers['www-authenticate'], 'Bearer', 'the note: Bearer, as on every 401 of it')
      t.equal(answers[2][1].headers['www-authenticate'], undefined, 'no Basic challenge for a session that expired')

      // Wrong credentials are judged before the session, as before.
      const refused = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { 'x-challenger': me.guid, authorization: basic('admin', 'nope') } })
      t.equal(refused.statusCode, 401)
      t.match(errorMessages(refused), [/^Send Basic credentials/])

      // Restored with the saved JSON: the same token and note, and the requests work again.
      const put = await app.inject({ method: 'PUT', url: `${base}/challenger/${me.guid}`, headers: json, payload: saved })
      t.equal(put.statusCode, 201)
      const note = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: auth })
      t.equal(note.statusCode, 200)
      t.same(note.json(), { note: 'kept' })
    })

    t.test('a session that never was, or no header at all, is answered as before', async t => {
      const time = fakeTime()
      const app = await build(t, { store: new MemoryStore({ idleMs: IDLE, now: time.now, every: time.every }), sessionIdleMs: IDLE })
      const auth = { 'x-challenger': NEVER, 'x-auth-token': 'a'.repeat(32) }
      t.same(errorMessages(await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: auth })), [NAME_A_SESSION])
      t.same(errorMessages(await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: { 'x-auth-token': 'a'.repeat(32) } })), [NAME_A_SESSION])
      t.same(errorMessages(await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { 'x-challenger': NEVER, authorization: basic('admin', 'password') } })), [NAME_A_SESSION])
      t.same(errorMessages(await app.inject({ method: 'POST', url: `${base}/challenger`, headers: { 'x-challenger': NEVER } })),
        [`No session "${NEVER}": send POST /challenger without X-CHALLENGER to create one`])
      t.same(errorMessages(await app.inject({ method: 'GET', url: `${base}/challenger/${NEVER}` })), [`No live session "${NEVER}"`])
    })

    t.test('a session pushed out at capacity is told the same, with the idle time the server runs with', async t => {
      const app = await build(t, { maxSessions: 1, creationRateLimit: 0 })
      // Made and named once, not at work: the next session takes its room.
      const first = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
      await app.inject({ method: 'GET', url: `${base}/heartbeat`, headers: { 'x-challenger': first } })
      await newSession(app, base)
      const res = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: { 'x-challenger': first, 'x-auth-token': 'a'.repeat(32) } })
      t.equal(res.statusCode, 401)
      t.same(errorMessages(res), [expired(first, base, '10 minutes')])
    })
  })
}

t.test('the progress page of an expired session says so, keeps its restore offer, and reads the session out of the journal', async t => {
  const time = fakeTime()
  const app = await build(t, { store: new MemoryStore({ idleMs: IDLE, now: time.now, every: time.every }), sessionIdleMs: IDLE })
  const me = await newSession(app)
  const live = await app.inject({ method: 'GET', url: `/gui/challenges/${me.guid}` })
  t.match(live.body, '<script type="module" src="/gui/restore.js"></script><script type="module" src="/gui/refresh.js"></script></head>', 'the keeper runs beside the refresh')
  t.match(live.body, '<p id="kept" hidden>Your progress is also kept in this browser', 'the page says (once the script has kept it) that the browser keeps it')
  t.match(live.body, '<div id="restore" hidden>')
  t.match(live.body, '<button id="restore-button" type="button">Restore my session</button>')
  t.match(live.body, 'data-live="1"')
  t.notMatch(live.body, 'session-gone')

  // The page's copy: the JSON of GET /challenger/{guid}, read without a journal entry.
  const copy = await app.inject({ method: 'GET', url: `/gui/challenges/${me.guid}/session` })
  t.equal(copy.statusCode, 200)
  t.same(copy.json(), { session: (await app.inject({ method: 'GET', url: `/challenger/${me.guid}` })).json(), expired: false }, 'the same JSON as GET /challenger/{guid}')
  t.match(copy.headers['content-security-policy'], "default-src 'none'", 'under the pages\' policy')
  const journal = (await app.inject({ method: 'GET', url: `/challenger/${me.guid}/requests` })).json().requests as Array<{ path: string }>
  t.same(journal.map(entry => entry.path), [`/challenger/${me.guid}`, '/secret/token', '/challenger'], 'the page\'s read is not in the journal')
  t.same((await app.inject({ method: 'OPTIONS', url: `/gui/challenges/${me.guid}/session` })).headers.allow, 'GET, HEAD, OPTIONS')
  t.equal((await app.inject({ method: 'PUT', url: `/gui/challenges/${me.guid}/session` })).statusCode, 405)

  time.advance(IDLE)
  const gone = await app.inject({ method: 'GET', url: `/gui/challenges/${me.guid}/session` })
  t.equal(gone.statusCode, 200, 'a 200 that says so: the page reads it every 2 s, and a 404 would be a console error each time')
  t.same(gone.json(), { session: null, expired: true })
  const page = (await app.inject({ method: 'GET', url: `/gui/challenges/${me.guid}` })).body
  t.match(page, `<p>Session <code class="guid">${me.guid}</code></p>\n<p id="session-gone" class="warning"><strong>This session has expired</strong>: a session ends after 1 minute without a request.`)
  t.match(page, 'Restore it with the button below when this browser kept it, or with <code>PUT /challenger/&lt;id&gt;</code>')
  t.match(page, 'data-live=""')
  t.match(page, '<div id="restore" hidden>', 'the offer, for restore.js to show')
  t.notMatch(page, 'no live session by this id')

  const never = (await app.inject({ method: 'GET', url: `/gui/challenges/${NEVER}` })).body
  t.match(never, `<code class="guid">${NEVER}</code> (no live session by this id: create one with POST /challenger)</p>`)
  t.notMatch(never, 'session-gone')
  for (const url of [`/gui/challenges/${NEVER}/session`, '/gui/challenges//session']) {
    t.same((await app.inject({ method: 'GET', url })).json(), { session: null, expired: false }, url)
  }
  t.notMatch((await app.inject({ method: 'GET', url: '/gui/challenges' })).body, /restore\.js|id="kept"|id="restore"/, 'the page without a session keeps nothing')
})

t.test('the single-player page keeps nothing in the browser: its one session never expires', async t => {
  const app = await build(t, { mode: 'single' })
  for (const url of ['/gui/challenges', `/gui/challenges/${NEVER}`]) {
    const html = (await app.inject({ method: 'GET', url })).body
    t.notMatch(html, /restore\.js|id="kept"|id="restore"/, url)
    t.match(html, '<script type="module" src="/gui/refresh.js"></script></head>')
  }
  const copy = await app.inject({ method: 'GET', url: `/gui/challenges/${NEVER}/session` })
  t.equal(copy.json().session.xChallenger, SINGLE_PLAYER_GUID, 'its session route answers the one session')
})
