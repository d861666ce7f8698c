// The auth headers of the reference's 2026 tests (issue 58): every 401 of /secret/note says
// WWW-Authenticate: Bearer; a refused Basic login says WWW-Authenticate: Basic realm=…, but not to a
// request with X-API-Challenges-Live-Widget: true (a browser would show its login dialog); and the
// 401's words name the default credentials only where they are the server's.
import t from 'tap'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { fakeTime } from '../clock.js'
import { BASES, baseName, basic, build, errorMessages, newSession } from '../helper.js'

const json = { 'content-type': 'application/json' }

for (const base of BASES) {
  t.test(baseName(base), async t => {
    t.test('every 401 of /secret/note, GET and POST, carries WWW-Authenticate: Bearer', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const cases: Array<[string, Record<string, string>]> = [
        ['no token', { 'x-challenger': me.guid }],
        ['an empty token', { 'x-challenger': me.guid, 'x-auth-token': '' }],
        ['a token without its scheme', { 'x-challenger': me.guid, authorization: me.token }],
        ['an unknown X-CHALLENGER', { 'x-challenger': 'nobody', 'x-auth-token': me.token }],
        ['no X-CHALLENGER', { 'x-auth-token': me.token }]
      ]
      for (const method of ['GET', 'POST'] as const) {
        for (const [name, headers] of cases) {
          const res = await app.inject({ method, url: `${base}/secret/note`, headers: { ...headers, ...json }, payload: method === 'POST' ? { note: 'n' } : undefined })
          t.equal(res.statusCode, 401, `${method}, ${name}`)
          t.equal(res.headers['www-authenticate'], 'Bearer', `${method}, ${name}: Bearer`)
        }
        const wrong = await app.inject({ method, url: `${base}/secret/note`, headers: { 'x-challenger': me.guid, 'x-auth-token': 'wrong', ...json }, payload: method === 'POST' ? { note: 'n' } : undefined })
        t.equal(wrong.statusCode, 403)
        t.equal(wrong.headers['www-authenticate'], undefined, `${method}: a 403 asks for nothing`)
      }
      const time = fakeTime()
      const expired = await build(t, { store: new MemoryStore({ idleMs: 60_000, now: time.now, every: time.every }), sessionIdleMs: 60_000 })
      const gone = await newSession(expired, base)
      time.advance(60_000)
      const late = await expired.inject({ method: 'GET', url: `${base}/secret/note`, headers: { 'x-challenger': gone.guid, 'x-auth-token': gone.token } })
      t.equal(late.statusCode, 401)
      t.equal(late.headers['www-authenticate'], 'Bearer', 'an expired session too')
    })

    t.test('a refused Basic login says WWW-Authenticate: Basic, but not to the live widget\'s request', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const wrong = { 'x-challenger': me.guid, authorization: basic('admin', 'wrong') }
      const plain = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: wrong })
      t.equal(plain.statusCode, 401)
      t.equal(plain.headers['www-authenticate'], 'Basic realm="User Visible Realm"')
      for (const value of ['true', 'TRUE', ' true ']) {
        const widget = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { ...wrong, 'x-api-challenges-live-widget': value } })
        t.equal(widget.statusCode, 401, value)
        t.equal(widget.headers['www-authenticate'], undefined, `${JSON.stringify(value)}: no WWW-Authenticate, so no browser dialog`)
      }
      const other = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { ...wrong, 'x-api-challenges-live-widget': 'false' } })
      t.equal(other.headers['www-authenticate'], 'Basic realm="User Visible Realm"', 'any other value changes nothing')
      const right = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { 'x-challenger': me.guid, authorization: basic('admin', 'password'), 'x-api-challenges-live-widget': 'true' } })
      t.equal(right.statusCode, 201, 'the right credentials work the same')
    })

    t.test('the 401 names admin:password only when they are the server\'s', async t => {
      const byDefault = await build(t)
      const me = await newSession(byDefault, base)
      const refused = await byDefault.inject({ method: 'POST', url: `${base}/secret/token`, headers: { 'x-challenger': me.guid, authorization: basic('a', 'b') } })
      t.same(errorMessages(refused), ['Send Basic credentials that the server accepts (by default admin:password) in the Authorization header'])
      const custom = await build(t, { username: 'teacher', password: 'room-42-secret' })
      const guid = (await custom.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
      const told = await custom.inject({ method: 'POST', url: `${base}/secret/token`, headers: { 'x-challenger': guid, authorization: basic('admin', 'password') } })
      t.equal(told.statusCode, 401)
      t.same(errorMessages(told), ['Send the Basic credentials this server was given (its username is "teacher"; ask whoever runs it for the password) in the Authorization header'])
      t.notMatch(told.body, /admin:password|room-42-secret/)
    })
  })
}
