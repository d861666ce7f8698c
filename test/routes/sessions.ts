// Sessions that last and stay bounded: GET/PUT /challenger/{guid}, expiry, capacity, the creation
// rate limit and single-player mode, over inject.
import t from 'tap'
import { challenges, OTHER_REFERENCE_NAMES, paddedId } from '../../src/domain/challenges/catalogue.js'
import { SINGLE_PLAYER_GUID } from '../../src/domain/config/options.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { fakeTime } from '../clock.js'
import { BASES, baseName, basic, build, errorMessages, newSession, passed, storeOf } from '../helper.js'

const json = { 'content-type': 'application/json' }
const allIds = challenges.map(c => paddedId(c.id))

// Every test in this loop runs at both bases of the API, with the same expectations.
for (const base of BASES) {
  t.test(baseName(base), async t => {
    t.test('GET /challenger/{guid} is the whole session as JSON; HEAD the same without a body', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { 'x-challenger': me.guid, 'x-auth-token': me.token, ...json }, payload: { note: 'kept' } })
      const res = await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}` })
      t.equal(res.statusCode, 200)
      t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
      const body = res.json()
      t.same(Object.keys(body), ['xChallenger', 'xAuthToken', 'secretNote', 'challengeStatus'])
      t.equal(body.xChallenger, me.guid)
      t.equal(body.xAuthToken, me.token)
      t.equal(body.secretNote, 'kept')
      t.same(Object.keys(body.challengeStatus).sort(), allIds, 'every catalogue id')
      t.same(allIds.filter(id => body.challengeStatus[id]), ['01', '30', '34'])
      const head = await app.inject({ method: 'HEAD', url: `${base}/challenger/${me.guid}` })
      t.equal(head.statusCode, 200)
      t.equal(head.body, '')
      t.same(await passed(app, me.guid), [1, 30, 34], 'reading it passes nothing')
    })

    t.test('GET /challenger/{guid} for an unknown session is 404 with the error body', async t => {
      const app = await build(t)
      for (const guid of ['3f1e0d6c-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const res = await app.inject({ method: 'GET', url: `${base}/challenger/${guid}` })
        t.equal(res.statusCode, 404)
        t.same(errorMessages(res), [`No live session "${guid}"`])
      }
    })

    t.test('POST /challenger names the progress page in Location, 201 and 200 alike, as the reference does', async t => {
      const app = await build(t)
      const res = await app.inject({ method: 'POST', url: `${base}/challenger` })
      const guid = res.headers['x-challenger'] as string
      t.equal(res.headers.location, `/gui/challenges/${guid}`, 'the page, whatever base the POST came to')
      const known = await app.inject({ method: 'POST', url: `${base}/challenger`, headers: { 'x-challenger': guid } })
      t.equal(known.statusCode, 200)
      t.equal(known.headers.location, `/gui/challenges/${guid}`)
      const page = await app.inject({ method: 'GET', url: res.headers.location as string })
      t.equal(page.statusCode, 200, 'a page that is there')
      t.match(page.body, guid)
      t.equal((await app.inject({ method: 'POST', url: `${base}/challenger`, headers: { 'x-challenger': 'nobody' } })).headers.location, undefined, 'none for an unknown session')
    })

    t.test('a saved session restores into a fresh server: progress, token and note', async t => {
      const first = await build(t)
      const me = await newSession(first, base)
      const headers = { 'x-challenger': me.guid, 'x-auth-token': me.token }
      await first.inject({ method: 'POST', url: `${base}/secret/note`, headers: { ...headers, ...json }, payload: { note: 'before the restart' } })
      await first.inject({ method: 'DELETE', url: `${base}/heartbeat`, headers })
      const saved = (await first.inject({ method: 'GET', url: `${base}/challenger/${me.guid}` })).body

      const second = await build(t)
      const put = await second.inject({ method: 'PUT', url: `${base}/challenger/${me.guid}`, headers: json, payload: saved })
      t.equal(put.statusCode, 201, 'recreated')
      t.equal(put.headers.location, `${base}/challenger/${me.guid}`)
      t.same(put.json(), JSON.parse(saved), 'the answer is the JSON that was sent')
      t.same(await passed(second, me.guid), [1, 25, 30, 34, 46], 'and the recreation passed 46 (PUT … CREATE)')
      const note = await second.inject({ method: 'GET', url: `${base}/secret/note`, headers })
      t.equal(note.statusCode, 200, 'the old token works')
      t.same(note.json(), { note: 'before the restart' })
      t.same(await passed(second, me.guid), [1, 25, 30, 33, 34, 46], 'and progress goes on')

      const again = await second.inject({ method: 'PUT', url: `${base}/challenger/${me.guid}`, headers: json, payload: saved })
      t.equal(again.statusCode, 200, 'a live session is replaced')
      t.equal(again.headers.location, undefined)
      t.same(await passed(second, me.guid), [1, 25, 30, 34, 44], 'its state is the body\'s, and the restore passed 44 (PUT … RESTORE)')
    })

    t.test('a restored note is truncated like any note; status ids left out count as not passed', async t => {
      const app = await build(t)
      const guid = '6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b'
      const res = await app.inject({
        method: 'PUT',
        url: `${base}/challenger/${guid}`,
        headers: json,
        payload: { xChallenger: guid, xAuthToken: 'b'.repeat(32), secretNote: '😀'.repeat(150), challengeStatus: { 28: true, 30: false } }
      })
      t.equal(res.statusCode, 201)
      t.equal(res.json().secretNote, '😀'.repeat(100))
      t.same(await passed(app, guid), [28, 46])
      t.equal((await storeOf(app).get(guid))?.note, '😀'.repeat(100))
    })

    t.test('a bad PUT is 400 or 409 and changes nothing', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const good = JSON.parse((await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}` })).body)
      const before = await storeOf(app).get(me.guid)
      const other = '11111111-2222-4333-8444-555555555555'
      const cases: Array<[string, string, unknown, number, RegExp]> = [
        ['a guid that is not a UUID', 'not-a-uuid', { ...good, xChallenger: 'not-a-uuid' }, 400, /must be a UUID/],
        ['malformed JSON', me.guid, '{"xChallenger":', 400, /not valid JSON/],
        ['not an object', me.guid, '[]', 400, /body: Expected object/],
        ['a status name that is no challenge', me.guid, { ...good, challengeStatus: { NOT_A_CHALLENGE: true } }, 400, /body\/challengeStatus\/NOT_A_CHALLENGE/],
        ['a note of the wrong type', me.guid, { ...good, secretNote: 42 }, 400, /body\/secretNote: Expected string/],
        ['a status of the wrong type', me.guid, { ...good, challengeStatus: { ...good.challengeStatus, '01': 'yes' } }, 400, /body\/challengeStatus\/01/],
        ['a status that is not an object', me.guid, { ...good, challengeStatus: [] }, 400, /body\/challengeStatus/],
        ['a token not in the issued format', me.guid, { ...good, xAuthToken: 'ABC' }, 400, /body\/xAuthToken/],
        ['an uppercase token', me.guid, { ...good, xAuthToken: me.token.toUpperCase() }, 400, /body\/xAuthToken/],
        ['a status key that is no challenge', me.guid, { ...good, challengeStatus: { ...good.challengeStatus, 99: true } }, 400, /body\/challengeStatus\/99/],
        ['an unknown field', me.guid, { ...good, extra: 1 }, 400, /body\/extra/],
        ['a body for another session', me.guid, { ...good, xChallenger: other }, 409, /is not the session in the URL/],
        ['the URL of another session', other, good, 409, /is not the session in the URL/]
      ]
      for (const [name, guid, payload, status, message] of cases) {
        const res = await app.inject({ method: 'PUT', url: `${base}/challenger/${guid}`, headers: json, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) })
        t.equal(res.statusCode, status, name)
        t.match(errorMessages(res), [message], name)
      }
      const text = await app.inject({ method: 'PUT', url: `${base}/challenger/${me.guid}`, headers: { 'content-type': 'text/plain' }, payload: JSON.stringify(good) })
      t.equal(text.statusCode, 415)
      // The URL of another session with this one's JSON is the reference's 409 mismatch: challenge 45, for the body's session.
      t.same(await storeOf(app).get(me.guid), { ...before, progress: (before?.progress ?? 0) | 1 << 21 }, 'the session is as it was, but for challenge 45')
      t.equal(await storeOf(app).get(other), undefined, 'and no session was made')
    })

    t.test('OPTIONS and refused methods on /challenger/{guid}', async t => {
      const app = await build(t)
      const options = await app.inject({ method: 'OPTIONS', url: `${base}/challenger/anything` })
      t.equal(options.statusCode, 204)
      t.equal(options.headers.allow, 'GET, HEAD, PUT, PATCH, OPTIONS')
      for (const method of ['POST', 'DELETE', 'TRACE', 'MOVE']) {
        const res = await app.inject({ method: method as 'GET', url: `${base}/challenger/anything` })
        t.equal(res.statusCode, 405, method)
        t.equal(res.headers.allow, 'GET, HEAD, PUT, PATCH, OPTIONS')
        t.same(errorMessages(res), [`${method} is not allowed on ${base}/challenger/anything; allowed: GET, HEAD, PUT, PATCH, OPTIONS`])
      }
    })

    t.test('an idle session expires over HTTP; every request naming it keeps it alive', async t => {
      const time = fakeTime()
      const app = await build(t, { store: new MemoryStore({ idleMs: 1000, now: time.now, every: time.every }) })
      const me = await newSession(app, base)
      const headers = { 'x-challenger': me.guid, 'x-auth-token': me.token }
      time.advance(999)
      t.equal((await app.inject({ method: 'GET', url: `${base}/heartbeat`, headers })).statusCode, 204)
      time.advance(999)
      t.equal((await app.inject({ method: 'GET', url: `${base}/secret/note`, headers })).statusCode, 200, 'the heartbeat touched it')
      time.advance(1000)
      const note = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers })
      t.equal(note.statusCode, 401)
      t.equal((await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}` })).statusCode, 404)
      t.equal((await app.inject({ method: 'POST', url: `${base}/challenger`, headers })).statusCode, 404)
    })

    t.test('maxSessions bounds the sessions: the least recently used goes first', async t => {
      const app = await build(t, { maxSessions: 2, creationRateLimit: 0 })
      const a = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
      const b = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
      await app.inject({ method: 'GET', url: `${base}/heartbeat`, headers: { 'x-challenger': a } })
      await app.inject({ method: 'POST', url: `${base}/challenger` })
      t.equal((await app.inject({ method: 'GET', url: `${base}/challenger/${b}` })).statusCode, 404)
      t.equal((await app.inject({ method: 'GET', url: `${base}/challenger/${a}` })).statusCode, 200)
    })

    t.test('sessions are created at most creationRateLimit a minute per address: 429 with Retry-After', async t => {
      const app = await build(t, { creationRateLimit: 2 })
      for (let i = 0; i < 2; i++) t.equal((await app.inject({ method: 'POST', url: `${base}/challenger` })).statusCode, 201)
      const limited = await app.inject({ method: 'POST', url: `${base}/challenger` })
      t.equal(limited.statusCode, 429)
      t.match(limited.headers['retry-after'], /^[1-9]\d*$/)
      t.match(errorMessages(limited), [/^This address has created 2 sessions in the last minute: try again in \d+ s$/])
      const guid = '6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b'
      const put = await app.inject({ method: 'PUT', url: `${base}/challenger/${guid}`, headers: json, payload: { xChallenger: guid, xAuthToken: 'c'.repeat(32), secretNote: '', challengeStatus: {} } })
      t.equal(put.statusCode, 429, 'a recreating PUT is a creation too')
      t.equal(await storeOf(app).get(guid), undefined)
      const other = await app.inject({ method: 'POST', url: `${base}/challenger`, remoteAddress: '10.0.0.2' })
      t.equal(other.statusCode, 201, 'another address has its own allowance')
    })

    t.test('requests that create nothing are not limited; 0 turns the limit off', async t => {
      const limited = await build(t, { creationRateLimit: 1 })
      const me = await newSession(limited, base)
      const saved = (await limited.inject({ method: 'GET', url: `${base}/challenger/${me.guid}` })).body
      for (let i = 0; i < 3; i++) {
        t.equal((await limited.inject({ method: 'POST', url: `${base}/challenger`, headers: { 'x-challenger': me.guid } })).statusCode, 200)
        t.equal((await limited.inject({ method: 'PUT', url: `${base}/challenger/${me.guid}`, headers: json, payload: saved })).statusCode, 200)
      }
      const open = await build(t, { creationRateLimit: 0 })
      for (let i = 0; i < 100; i++) {
        const res = await open.inject({ method: 'POST', url: `${base}/challenger` })
        if (res.statusCode !== 201) t.fail(`creation ${i} was ${res.statusCode}`)
      }
      t.equal((await open.inject({ method: 'POST', url: `${base}/challenger` })).statusCode, 201)
      for (let i = 0; i < 3; i++) {
        const guid = `00000000-0000-4000-8000-0000000000a${i}`
        t.equal((await open.inject({ method: 'PUT', url: `${base}/challenger/${guid}`, headers: json, payload: {} })).statusCode, 201, 'and so do restores that make a session')
      }
    })

    t.test('single-player mode: one implicit session for every request, with or without X-CHALLENGER', async t => {
      const app = await build(t, { mode: 'single', maxSessions: 1 })
      const token = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { authorization: basic('admin', 'password') } })
      t.equal(token.statusCode, 201, 'the token step works without any session header')
      const auth = { 'x-auth-token': token.headers['x-auth-token'] as string }
      const write = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { ...auth, ...json }, payload: { note: 'solo' } })
      t.equal(write.statusCode, 200)
      const read = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: { ...auth, 'x-challenger': 'whatever' } })
      t.same(read.json(), { note: 'solo' }, 'any X-CHALLENGER names the same session')
      const created = await app.inject({ method: 'POST', url: `${base}/challenger` })
      t.equal(created.statusCode, 201)
      t.equal(created.headers['x-challenger'], SINGLE_PLAYER_GUID)
      t.equal(created.headers.location, '/gui/challenges', 'the page that shows the one session')
      const page = await app.inject({ method: 'GET', url: '/gui/challenges' })
      t.equal(page.statusCode, 200)
      t.match(page.body, SINGLE_PLAYER_GUID)
      const again = await app.inject({ method: 'POST', url: `${base}/challenger`, headers: { 'x-challenger': 'x' } })
      t.equal(again.statusCode, 200)
      t.equal(again.headers.location, '/gui/challenges')
      const list = await app.inject({ method: 'GET', url: `${base}/challenges` })
      t.equal(list.headers.location, '/gui/challenges')
      t.same(list.json().challenges.filter((c: { status: boolean }) => c.status).map((c: { id: number }) => c.id), [1, 2, 30, 33, 34])
      const saved = await app.inject({ method: 'GET', url: `${base}/challenger/${SINGLE_PLAYER_GUID}` })
      const savedJson = saved.json() as Record<string, unknown>
      t.equal(saved.json().secretNote, 'solo')
      const other = '6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b'
      const put = await app.inject({ method: 'PUT', url: `${base}/challenger/${other}`, headers: json, payload: { ...savedJson, xChallenger: other } })
      t.equal(put.statusCode, 409)
      t.same(errorMessages(put), [`In single-player mode the only session is ${SINGLE_PLAYER_GUID}`])
      const restore = await app.inject({ method: 'PUT', url: `${base}/challenger/${SINGLE_PLAYER_GUID}`, headers: json, payload: { ...savedJson, secretNote: 'restored' } })
      t.equal(restore.statusCode, 200)
      t.same((await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: auth })).json(), { note: 'restored' })
    })

    t.test('a guid longer than the router accepts is refused with the error body', async t => {
      const app = await build(t)
      const res = await app.inject({ method: 'GET', url: `${base}/challenger/${'a'.repeat(200)}`, headers: { 'x-challenger': 'x' } })
      t.equal(res.statusCode, 414)
      t.match(errorMessages(res), [/./])
      t.equal(res.headers['x-challenger'], 'x')
    })

    t.test('a request that names a session only in its URL keeps it alive, whatever its method or fate', async t => {
      const time = fakeTime()
      const app = await build(t, { store: new MemoryStore({ idleMs: 1000, now: time.now, every: time.every }) })
      const guid = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
      for (const [method, payload, status] of [['OPTIONS', undefined, 204], ['DELETE', undefined, 405], ['PUT', '{}', 200], ['HEAD', undefined, 200]] as const) {
        time.advance(999)
        const res = await app.inject({ method, url: `${base}/challenger/${guid}`, headers: json, payload })
        t.equal(res.statusCode, status, method)
      }
      time.advance(999)
      t.equal((await app.inject({ method: 'GET', url: `${base}/challenger/${guid}` })).statusCode, 200)
    })

    t.test('a session id in capitals names the same session', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const upper = me.guid.toUpperCase()
      const note = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: { 'x-challenger': upper, 'x-auth-token': me.token } })
      t.equal(note.statusCode, 200)
      t.equal(note.headers['x-challenger'], upper, 'the echo is what was sent')
      const saved = (await app.inject({ method: 'GET', url: `${base}/challenger/${upper}` })).json()
      t.equal(saved.xChallenger, me.guid)
      const put = await app.inject({ method: 'PUT', url: `${base}/challenger/${upper}`, headers: json, payload: { ...saved, xChallenger: upper } })
      t.equal(put.statusCode, 200, 'replaced, not a second session')
      t.equal(put.json().xChallenger, me.guid)
      t.equal(await storeOf(app).get(upper), undefined)
    })

    t.test('single-player mode makes its session on first use when the store was away at start-up', async t => {
      class LateStore extends MemoryStore {
        away = true
        override async restore (...args: Parameters<MemoryStore['restore']>): ReturnType<MemoryStore['restore']> {
          if (this.away) throw Object.assign(new Error('not yet'), { statusCode: 503 })
          return await super.restore(...args)
        }
      }
      const store = new LateStore()
      const app = await build(t, { mode: 'single', store })
      t.equal(await store.get(SINGLE_PLAYER_GUID), undefined, 'the start-up could not make it')
      store.away = false
      const created = await app.inject({ method: 'POST', url: `${base}/challenger` })
      t.equal(created.statusCode, 201)
      t.equal(created.headers['x-challenger'], SINGLE_PLAYER_GUID)
      t.ok(await store.get(SINGLE_PLAYER_GUID), 'it exists now')
    })

    t.test('GET /challenges with a known session says where its progress page is, under the host\'s prefix too', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const known = await app.inject({ method: 'GET', url: `${base}/challenges`, headers: { 'x-challenger': me.guid } })
      t.equal(known.statusCode, 200)
      t.equal(known.headers.location, `/gui/challenges/${me.guid}`)
      t.equal((await app.inject({ method: 'GET', url: `${base}/challenges` })).headers.location, undefined, 'none without a session')
      t.equal((await app.inject({ method: 'GET', url: `${base}/challenges`, headers: { 'x-challenger': 'nobody' } })).headers.location, undefined, 'none for an unknown one')
      const { default: Fastify } = await import('fastify')
      const { default: plugin } = await import('../../src/app.js')
      const host = Fastify()
      await host.register(plugin, { prefix: '/practice' })
      t.teardown(() => host.close())
      const created = await host.inject({ method: 'POST', url: `/practice${base}/challenger` })
      const guid = created.headers['x-challenger'] as string
      t.equal(created.headers.location, `/practice/gui/challenges/${guid}`, 'the pages are under the host\'s prefix')
      t.equal((await host.inject({ method: 'GET', url: `/practice${base}/challenges`, headers: { 'x-challenger': guid } })).headers.location, `/practice/gui/challenges/${guid}`)
      const restored = await host.inject({ method: 'PUT', url: `/practice${base}/challenger/6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b`, headers: json, payload: '{}' })
      t.equal(restored.statusCode, 201)
      t.equal(restored.headers.location, `/practice${base}/challenger/6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b`, 'a restored session is where the PUT was sent')
    })

    t.test('PUT /challenger/{guid} takes a partial body and fills in the rest, as the reference does', async t => {
      const app = await build(t)
      const guid = '6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b'
      const empty = await app.inject({ method: 'PUT', url: `${base}/challenger/${guid}`, headers: json, payload: '{}' })
      t.equal(empty.statusCode, 201, 'an empty object recreates the session')
      const made = empty.json()
      t.equal(made.xChallenger, guid)
      t.match(made.xAuthToken, /^[0-9a-f]{32}$/, 'a missing token is made anew')
      t.equal(made.secretNote, '', 'a missing note is empty')
      t.same(await passed(app, guid), [46], 'a missing status map passes nothing (but this PUT\'s own challenge)')
      t.equal((await storeOf(app).get(guid))?.token, made.xAuthToken, 'the new token is the session\'s')

      const partial = await app.inject({ method: 'PUT', url: `${base}/challenger/${guid}`, headers: json, payload: { secretNote: 'kept', challengeStatus: { 28: true } } })
      t.equal(partial.statusCode, 200, 'a live session is replaced')
      t.equal(partial.json().secretNote, 'kept')
      t.equal(partial.json().xAuthToken, made.xAuthToken, 'a live session keeps its token when none is sent')
      t.same(await passed(app, guid), [28, 44])

      const noType = await app.inject({ method: 'PUT', url: `${base}/challenger/${guid}`, payload: JSON.stringify({ xChallenger: guid, secretNote: 'no content type' }) })
      t.equal(noType.statusCode, 200, 'a body without Content-Type is read as JSON')
      t.equal(noType.json().secretNote, 'no content type')
      const fresh = '7d3c1b2a-0000-4000-8000-000000000042'
      t.not((await app.inject({ method: 'PUT', url: `${base}/challenger/${fresh}`, headers: json, payload: '{}' })).json().xAuthToken, made.xAuthToken, 'each recreated session gets its own')
      const other = await app.inject({ method: 'PUT', url: `${base}/challenger/${guid}`, headers: json, payload: { xChallenger: '11111111-2222-4333-8444-555555555555' } })
      t.equal(other.statusCode, 409, 'xChallenger, when present, must be the URL\'s')
    })

    t.test('a session saved from the reference app restores here: challenge names and its UUID token', async t => {
      const app = await build(t)
      const guid = '0f6cbc4d-3a6b-4c2b-8f3e-2b1d0c9e8a7f'
      // As the reference saves it: every challenge of its enum by name, most of them this service's.
      const status: Record<string, boolean> = Object.fromEntries([...challenges.map(c => c.referenceName), ...OTHER_REFERENCE_NAMES].map(name => [name, false]))
      Object.assign(status, { CREATE_NEW_CHALLENGER: true, GET_HEARTBEAT_204: true, POST_SECRET_NOTE_401: true, OVERRIDE_TRACE_HEARTBEAT_501: true, GET_TODOS: true })
      const saved = { xAuthToken: '7b1c8328-fa41-4ec8-a606-11c9e5f6b13c', xChallenger: guid, secretNote: 'from the reference', challengeStatus: status }
      const res = await app.inject({ method: 'PUT', url: `${base}/challenger/${guid}`, headers: json, payload: saved })
      t.equal(res.statusCode, 201)
      t.same(await passed(app, guid), [1, 28, 35, 42, 46], 'names map to ids; the todo challenges are ignored')
      const read = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: { 'x-challenger': guid, 'x-auth-token': saved.xAuthToken } })
      t.equal(read.statusCode, 200, 'the reference\'s token works')
      t.same(read.json(), { note: 'from the reference' })
      const again = (await app.inject({ method: 'GET', url: `${base}/challenger/${guid}` })).json()
      t.same(Object.keys(again.challengeStatus).sort(), challenges.map(c => paddedId(c.id)).sort(), 'GET keeps writing ids')
      t.equal(again.challengeStatus['28'], true)
      t.equal(new Set(challenges.map(c => c.referenceName)).size, challenges.length, 'every challenge has its own name')
      t.equal(OTHER_REFERENCE_NAMES.filter(name => challenges.some(c => c.referenceName === name)).length, 0, 'the other names are not ours')
    })

    t.test('the creation limit counts an IPv6 client by its /64, and an IPv4-mapped address as the IPv4 one', async t => {
      const app = await build(t, { creationRateLimit: 2 })
      const create = async (remoteAddress: string) => (await app.inject({ method: 'POST', url: `${base}/challenger`, remoteAddress })).statusCode
      t.equal(await create('2001:db8::1'), 201)
      t.equal(await create('2001:db8::2'), 201)
      t.equal(await create('2001:db8::ffff:3'), 429, 'a third address of the same /64 is the same client')
      t.equal(await create('2001:db8:0:1::1'), 201, 'the next /64 is another client')
      t.equal(await create('192.0.2.7'), 201)
      t.equal(await create('::ffff:192.0.2.7'), 201)
      t.equal(await create('192.0.2.7'), 429, 'the IPv4-mapped form counted toward the IPv4 address')
    })
  })
}

t.test('single-player mode keeps a session its store already has', async t => {
  const store = new MemoryStore()
  const pinned = { guid: SINGLE_PLAYER_GUID, token: 'd'.repeat(32), note: 'from before', progress: 1 }
  await store.restore(pinned, { pinned: true })
  const app = await build(t, { mode: 'single', store })
  t.same(await storeOf(app).get(SINGLE_PLAYER_GUID), pinned)
})
