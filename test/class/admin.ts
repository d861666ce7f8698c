// The class board's API and learners' names (issue 17): admin auth, names on every route that
// carries them, the listing's order and paging, CSV read back by a CSV parser (split on , and on ;,
// issue 34), the summary; the projector's view and the landing page's QR code (issue 49).
import { parse } from 'csv-parse/sync'
import Fastify, { type FastifyInstance } from 'fastify'
import QRCode from 'qrcode'
import t from 'tap'
import app from '../../src/app.js'
import { challenges } from '../../src/domain/challenges/catalogue.js'
import { configFromEnv } from '../../src/domain/config/config.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { landing, QR_MAX_URL } from '../../src/domain/pages/admin-page.js'
import { StoreUnavailableError } from '../../src/domain/sessions/store.js'
import { defects } from '../../src/domain/defects/catalogue.js'
import { AdminSessionPage } from '../../src/domain/http/schemas.js'
import { build, errorMessages, newSession, passed, storeOf } from '../helper.js'

const TOKEN = 'instructor-token-0123456789'
const admin = { authorization: `Bearer ${TOKEN}` }
const json = { 'content-type': 'application/json' }

const withBoard = async (tt: Parameters<typeof build>[0], options: Parameters<typeof build>[1] = {}): Promise<FastifyInstance> =>
  await build(tt, { adminToken: TOKEN, creationRateLimit: 0, ...options })

t.test('without an admin token the admin routes do not exist', async t => {
  const server = await build(t)
  for (const url of ['/admin/sessions', '/admin/summary']) {
    const res = await server.inject({ method: 'GET', url, headers: admin })
    t.equal(res.statusCode, 404, url)
  }
})

t.test('an admin token shorter than 16 characters, or with spaces, fails registration and start-up in one line without the value', async t => {
  const host = Fastify()
  t.teardown(() => host.close())
  host.register(app, { adminToken: 'short-secret' })
  await t.rejects(async () => { await host.ready() }, { message: 'api-challenges: option adminToken must be 16 to 1,000 visible ASCII characters (no spaces), got 12 characters' })
  t.throws(() => configFromEnv({ ADMIN_TOKEN: 'a secret with spaces' }), { message: 'ADMIN_TOKEN must be 16 to 1,000 visible ASCII characters (no spaces), got 20 characters with spaces' })
  t.throws(() => configFromEnv({ ADMIN_TOKEN: '' }), { message: /^ADMIN_TOKEN must be .*, got 0 characters$/ })
  t.equal(configFromEnv({ ADMIN_TOKEN: TOKEN }).app.adminToken, TOKEN)
  t.equal(configFromEnv({}).app.adminToken, undefined)
  const numbered = Fastify()
  t.teardown(() => numbered.close())
  numbered.register(app, { adminToken: 1234567890123456 as unknown as string })
  await t.rejects(async () => { await numbered.ready() }, { message: 'api-challenges: option adminToken must be 16 to 1,000 visible ASCII characters (no spaces), got number' })
})

t.test('admin auth: none is 401 with WWW-Authenticate: Bearer, a wrong one 403, the right one 200; the token is never logged', async t => {
  const lines: string[] = []
  const host = Fastify({ logger: { level: 'trace', stream: { write: (line: string) => { lines.push(line) } } } })
  t.teardown(() => host.close())
  await host.register(app, { adminToken: TOKEN })
  for (const url of ['/admin/sessions', '/admin/summary']) {
    const none = await host.inject({ method: 'GET', url })
    t.equal(none.statusCode, 401, `${url}: none`)
    t.equal(none.headers['www-authenticate'], 'Bearer realm="api-challenges admin"')
    t.same(none.json(), { errorMessages: ['This is an admin route: send Authorization: Bearer <ADMIN_TOKEN>'] })
    const basic = await host.inject({ method: 'GET', url, headers: { authorization: `Basic ${Buffer.from(`admin:${TOKEN}`).toString('base64')}` } })
    t.equal(basic.statusCode, 401, 'another scheme is none')
    for (const wrong of [`${TOKEN}x`, TOKEN.slice(1), TOKEN.toUpperCase(), 'x']) {
      const res = await host.inject({ method: 'GET', url, headers: { authorization: `Bearer ${wrong}` } })
      t.equal(res.statusCode, 403, `${url}: ${wrong}`)
      t.same(res.json(), { errorMessages: ['That is not the admin token'] })
    }
    t.equal((await host.inject({ method: 'GET', url, headers: { authorization: `bearer ${TOKEN}` } })).statusCode, 200, 'the scheme in any case')
    // Before anything else: an unacceptable Accept, a method not allowed, OPTIONS, all want the token first.
    t.equal((await host.inject({ method: 'GET', url, headers: { accept: 'text/html' } })).statusCode, 401)
    t.equal((await host.inject({ method: 'DELETE', url })).statusCode, 401)
    t.equal((await host.inject({ method: 'OPTIONS', url })).statusCode, 401)
    const options = await host.inject({ method: 'OPTIONS', url, headers: admin })
    t.equal(options.statusCode, 204)
    t.equal(options.headers.allow, 'GET, HEAD, OPTIONS')
    t.equal((await host.inject({ method: 'DELETE', url, headers: admin })).statusCode, 405)
  }
  t.ok(lines.length > 0, 'the log was written')
  t.notOk(lines.some(line => line.includes(TOKEN) || line.includes(TOKEN.slice(1))), 'no line holds the token')
})

t.test('admin requests pass no challenge and are in no learner\'s journal, even with X-CHALLENGER', async t => {
  const server = await withBoard(t)
  const { guid } = await newSession(server)
  const before = await server.inject({ method: 'GET', url: `/challenger/${guid}/requests` })
  const progress = await passed(server, guid)
  for (const url of ['/admin/sessions', '/admin/summary', '/admin/nothing']) {
    await server.inject({ method: 'GET', url, headers: { ...admin, 'x-challenger': guid } })
  }
  await server.inject({ method: 'GET', url: '/admin/sessions', headers: { 'x-challenger': guid } })
  t.same(await passed(server, guid), progress, 'nothing passed')
  const after = await server.inject({ method: 'GET', url: `/challenger/${guid}/requests` })
  t.same(after.json().requests.filter((r: { path: string }) => r.path.startsWith('/admin/s')), [], 'no /admin request recorded')
  t.equal(after.json().requests.length, before.json().requests.length + 1, 'only the 404 of /admin/nothing, which is no admin route')
})

t.test('names: given to POST /challenger, changed and cleared by PATCH, in GET, PUT and XML', async t => {
  const server = await withBoard(t)
  const created = await server.inject({ method: 'POST', url: '/challenger', headers: json, payload: { name: '  Ada Lovelace  ' } })
  t.equal(created.statusCode, 201)
  const guid = created.headers['x-challenger'] as string
  t.equal((await server.inject({ method: 'GET', url: `/challenger/${guid}` })).json().name, 'Ada Lovelace', 'trimmed')
  // Any other body is ignored, as before: the reference's tutorials send all sorts.
  for (const [headers, payload] of [[{ 'content-type': 'application/x-www-form-urlencoded' }, 'name='], [json, 'not json'], [json, '[1]'], [json, '{"nom": "x"}'], [{}, '']] as const) {
    const res = await server.inject({ method: 'POST', url: '/challenger', headers, payload })
    t.equal(res.statusCode, 201, `${JSON.stringify(payload)} is ignored`)
    t.equal((await server.inject({ method: 'GET', url: `/challenger/${res.headers['x-challenger'] as string}` })).json().name, undefined, 'and gives no name')
  }
  const plain = await server.inject({ method: 'POST', url: '/challenger', headers: { 'content-type': 'text/plain' }, payload: 'hello' })
  t.equal(plain.statusCode, 201)
  // No Content-Type: read as JSON, as the reference reads bodies.
  const untyped = await server.inject({ method: 'POST', url: '/challenger', payload: '{"name": "Grace"}' })
  t.equal((await server.inject({ method: 'GET', url: `/challenger/${untyped.headers['x-challenger'] as string}` })).json().name, 'Grace')

  const patched = await server.inject({ method: 'PATCH', url: `/challenger/${guid}`, headers: json, payload: { name: 'Ada 🚀' } })
  t.equal(patched.statusCode, 200)
  t.equal(patched.json().name, 'Ada 🚀')
  t.equal(patched.json().xChallenger, guid, 'the whole session, as GET gives it')
  const xml = await server.inject({ method: 'GET', url: `/challenger/${guid}`, headers: { accept: 'application/xml' } })
  t.match(xml.body, /<name>Ada 🚀<\/name><\/challenger>$/)
  const cleared = await server.inject({ method: 'PATCH', url: `/challenger/${guid}`, headers: json, payload: { name: null } })
  t.equal(cleared.statusCode, 200)
  t.notOk('name' in cleared.json(), 'no name: no key, as the reference\'s JSON has none')
  t.notMatch((await server.inject({ method: 'GET', url: `/challenger/${guid}`, headers: { accept: 'application/xml' } })).body, /<name>/)

  const restored = await server.inject({ method: 'PUT', url: `/challenger/${guid}`, headers: json, payload: { name: ' Restored ' } })
  t.equal(restored.statusCode, 200)
  t.equal(restored.json().name, 'Restored')
  t.equal((await server.inject({ method: 'GET', url: `/challenger/${guid}` })).json().name, 'Restored')
  const unnamed = await server.inject({ method: 'PUT', url: `/challenger/${guid}`, headers: json, payload: {} })
  t.notOk('name' in unnamed.json(), 'a restore without a name has none')
})

t.test('names in single-player mode: POST /challenger with a name names the one session', async t => {
  const server = await withBoard(t, { mode: 'single' })
  const created = await server.inject({ method: 'POST', url: '/challenger', headers: json, payload: { name: 'Solo' } })
  t.equal(created.statusCode, 201)
  const guid = created.headers['x-challenger'] as string
  t.equal((await server.inject({ method: 'GET', url: `/challenger/${guid}` })).json().name, 'Solo')
  const again = await server.inject({ method: 'POST', url: '/challenger', headers: json, payload: {} })
  t.equal(again.headers['x-challenger'], guid, 'the same session')
  t.equal((await server.inject({ method: 'GET', url: `/challenger/${guid}` })).json().name, 'Solo', 'a POST without a name keeps it')
})

t.test('names: the limits, on POST, PATCH and PUT, with nothing changed by a refusal', async t => {
  const server = await withBoard(t)
  const { guid } = await newSession(server)
  await server.inject({ method: 'PATCH', url: `/challenger/${guid}`, headers: json, payload: { name: 'Kept' } })
  const forty = '😀'.repeat(40)
  const cases: Array<[unknown, number, string?]> = [
    [forty, 200],
    [` ${'n'.repeat(40)} `, 200],
    [`${forty}a`, 400, 'name must be at most 40 characters, got 41'],
    ['', 400, 'name must not be empty (or only spaces)'],
    ['   ', 400, 'name must not be empty (or only spaces)'],
    ['a\tb', 400, 'name must not contain control characters (tabs, line breaks, …)'],
    ['a\nb', 400, 'name must not contain control characters (tabs, line breaks, …)'],
    ['a\u0085b', 400, 'name must not contain control characters (tabs, line breaks, …)'],
    ['\ud800x', 400, 'name must not contain lone surrogates'],
    // Bidirectional controls (issue 34): "Ada\u202E" turned the board's short id after it around.
    ...['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C'].map((control): [string, number, string] =>
      [`Ada${control}`, 400, 'name must not contain bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069)']),
    ['\u05E2\u05D3\u05D4 Ada', 200],
    [42, 400]
  ]
  for (const [name, status, message] of cases) {
    const sessionBefore = await storeOf(server).get(guid)
    const patch = await server.inject({ method: 'PATCH', url: `/challenger/${guid}`, headers: json, payload: JSON.stringify({ name }) })
    t.equal(patch.statusCode, status, `PATCH ${JSON.stringify(name)}`)
    const post = await server.inject({ method: 'POST', url: '/challenger', headers: json, payload: JSON.stringify({ name }) })
    t.equal(post.statusCode, status === 200 ? 201 : 400, `POST ${JSON.stringify(name)}`)
    if (status === 400) {
      if (message !== undefined) {
        t.same(errorMessages(patch), [`Invalid request: ${message}`])
        t.same(errorMessages(post), [`Invalid request: ${message}`])
      }
      t.same(await storeOf(server).get(guid), sessionBefore, 'a refused name changes nothing')
      const put = await server.inject({ method: 'PUT', url: `/challenger/${guid}`, headers: json, payload: JSON.stringify({ name }) })
      t.equal(put.statusCode, 400, `PUT ${JSON.stringify(name)}`)
      t.same(await storeOf(server).get(guid), sessionBefore, 'nor does a refused restore')
    }
  }
  t.same(errorMessages(await server.inject({ method: 'POST', url: '/challenger', headers: json, payload: { name: null } })), ['Invalid request: name must be a string of 1 to 40 characters, got null'])
  const extra = await server.inject({ method: 'PATCH', url: `/challenger/${guid}`, headers: json, payload: { name: 'x', note: 'y' } })
  t.equal(extra.statusCode, 400, 'an unknown key')
  t.equal((await server.inject({ method: 'PATCH', url: `/challenger/${guid}`, headers: json, payload: {} })).statusCode, 400, 'no name key')
  t.equal((await server.inject({ method: 'PATCH', url: `/challenger/${guid}`, headers: { 'content-type': 'text/plain' }, payload: 'x' })).statusCode, 415)
  const gone = await server.inject({ method: 'PATCH', url: '/challenger/11111111-2222-4333-8444-555555555555', headers: json, payload: { name: 'x' } })
  t.equal(gone.statusCode, 404)
  t.equal((await server.inject({ method: 'PATCH', url: `/challenger/${guid}`, headers: { ...json, accept: 'text/html' }, payload: { name: 'x' } })).statusCode, 406)
})

t.test('the board and the progress page isolate a name\'s direction, in their own stylesheets (the pages\' CSP allows no inline style)', async t => {
  const server = await withBoard(t)
  // A name from before names with bidirectional controls were refused, kept by the store as it was.
  const store = storeOf(server) as MemoryStore
  const { guid } = await newSession(server)
  await store.setName(guid, 'Ada\u202E')
  const page = await server.inject({ method: 'GET', url: `/gui/challenges/${guid}` })
  t.match(page.body, '<strong id="current-name">Ada\u202E</strong>')
  t.notMatch(page.body, /style=/, 'no inline style')
  t.match((await server.inject({ method: 'GET', url: '/gui/style.css' })).body, /^#current-name \{ unicode-bidi: isolate; \}$/m)
  t.match((await server.inject({ method: 'GET', url: '/gui/admin.css' })).body, /^#learners \.name \{ unicode-bidi: isolate; \}$/m)
  // The board's script puts each name in a strong of class "name" inside the #learners table.
  const board = await server.inject({ method: 'GET', url: '/admin' })
  t.match(board.body, /<table id="learners"/)
  t.match((await server.inject({ method: 'GET', url: '/gui/admin.js' })).body, "element(who, 'strong', s.name).className = 'name'")
})

t.test('GET /admin/sessions: newest activity first, paged with a cursor that holds across a change, names and passes', async t => {
  const server = await withBoard(t)
  const made: string[] = []
  for (let i = 0; i < 7; i++) {
    const res = await server.inject({ method: 'POST', url: '/challenger', headers: json, payload: { name: `learner ${i}` } })
    made.push(res.headers['x-challenger'] as string)
  }
  // Learner 2 passes the heartbeat (28): that is activity, so it is listed first.
  await server.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': made[2] } })
  const first = await server.inject({ method: 'GET', url: '/admin/sessions?limit=3', headers: admin })
  t.equal(first.statusCode, 200)
  t.equal(first.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(first.headers['x-total-count'], '7')
  const body = first.json()
  t.equal(body.total, 7)
  t.same(body.sessions.map((s: { name: string }) => s.name), ['learner 2', 'learner 6', 'learner 5'])
  t.same(body.sessions[0].passed, [1, 28])
  t.same(Object.keys(body.sessions[0]), ['guid', 'name', 'createdAt', 'lastSeen', 'passed', 'hunt', 'medals', 'grade'])
  t.equal(body.sessions[0].hunt, null, 'no hunt')
  t.match(body.sessions[0].lastSeen, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  t.equal(first.headers.link, `</admin/sessions?limit=3&cursor=${body.next as string}>; rel="next"`)
  // Between pages: learner 5 (the cursor's own) and learner 0 (not yet listed) are active.
  await server.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': made[5] } })
  await server.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': made[0] } })
  const second = (await server.inject({ method: 'GET', url: `/admin/sessions?limit=3&cursor=${body.next as string}`, headers: admin })).json()
  t.same(second.sessions.map((s: { name: string }) => s.name), ['learner 4', 'learner 3', 'learner 1'], 'the page after, as it was')
  t.equal(second.next, null, 'learner 0 moved ahead: learner 1 is the last')
  const all = (await server.inject({ method: 'GET', url: '/admin/sessions', headers: admin })).json()
  t.same(all.sessions.map((s: { name: string }) => s.name), [0, 5, 2, 6, 4, 3, 1].map(i => `learner ${i}`), 'a fresh listing has them in their new places')
  t.equal(all.next, null)
  t.equal((await server.inject({ method: 'HEAD', url: '/admin/sessions', headers: admin })).statusCode, 200)

  for (const query of ['limit=0', 'limit=1001', 'limit=x', 'limit=-1', 'limit=1.5']) {
    const res = await server.inject({ method: 'GET', url: `/admin/sessions?${query}`, headers: admin })
    t.equal(res.statusCode, 400, query)
    t.match(errorMessages(res), [/^Invalid request: limit must be a whole number from 1 to 1000, got /])
  }
  t.equal((await server.inject({ method: 'GET', url: '/admin/sessions?limit=1000', headers: admin })).statusCode, 200)
  const bad = await server.inject({ method: 'GET', url: '/admin/sessions?cursor=abc', headers: admin })
  t.equal(bad.statusCode, 400)
  t.same(errorMessages(bad), ['The cursor is not one that GET /admin/sessions gave: start again without it'])
  t.equal((await server.inject({ method: 'GET', url: '/admin/sessions', headers: { ...admin, accept: 'text/html' } })).statusCode, 406)
})

t.test('the board\'s times are as true as they are kept: createdAt to the second, lastSeen to the millisecond, the same in JSON and CSV', async t => {
  let now = 0
  // The store began at 09:00:32.550 by the wall clock; its own clock starts at 0.
  const store = new MemoryStore({ now: () => now, wallClock: () => Date.parse('2026-11-22T09:00:32.550Z') })
  const server = await withBoard(t, { store })
  await server.inject({ method: 'POST', url: '/challenger', headers: json, payload: { name: 'first' } })
  now = 1500 // 09:00:34.050
  const second = (await server.inject({ method: 'POST', url: '/challenger', headers: json, payload: { name: 'second' } })).headers['x-challenger'] as string
  now = 1723 // 09:00:34.273
  await server.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': second } })
  const expected = [
    { name: 'second', createdAt: '2026-11-22T09:00:34Z', lastSeen: '2026-11-22T09:00:34.273Z' },
    { name: 'first', createdAt: '2026-11-22T09:00:32Z', lastSeen: '2026-11-22T09:00:32.550Z' }
  ]
  const body = (await server.inject({ method: 'GET', url: '/admin/sessions', headers: admin })).json()
  t.same(body.sessions.map(({ name, createdAt, lastSeen }: Record<string, string>) => ({ name, createdAt, lastSeen })), expected, 'JSON')
  const csv = (await server.inject({ method: 'GET', url: '/admin/sessions', headers: { ...admin, accept: 'text/csv' } })).body
  const rows = parse(csv, { columns: true }) as Array<Record<string, string>>
  t.same(rows.map(({ name, createdAt, lastSeen }) => ({ name, createdAt, lastSeen })), expected, 'CSV')
})

t.test('GET /admin/sessions as CSV: RFC 4180, read back by a CSV parser, formulas defused', async t => {
  const server = await withBoard(t)
  const names = ['Ada, "the first"', '=HYPERLINK("http://x")', 'plain']
  const guids: string[] = []
  for (const name of names) guids.push((await server.inject({ method: 'POST', url: '/challenger', headers: json, payload: { name } })).headers['x-challenger'] as string)
  await server.inject({ method: 'POST', url: '/challenger' })
  await server.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': guids[0] } })
  const res = await server.inject({ method: 'GET', url: '/admin/sessions', headers: { ...admin, accept: 'text/csv' } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'text/csv; charset=utf-8')
  t.equal(res.headers['content-disposition'], 'attachment; filename="sessions.csv"')
  t.ok(res.body.endsWith('\r\n') && !/[^\r]\n/.test(res.body), 'CRLF after every line')
  const rows = parse(res.body, { columns: true }) as Array<Record<string, string>>
  t.equal(rows.length, 4, 'one row per session')
  t.same(Object.keys(rows[0] as object), ['guid', 'name', 'createdAt', 'lastSeen', 'passed', 'huntFound', 'huntHidden', ...challenges.map(c => `challenge ${String(c.id).padStart(2, '0')}`)])
  // Newest activity first: the first learner (the heartbeat), the unnamed one, then the rest.
  t.same(rows.map(r => r.name), [names[0], '', 'plain', `'${names[1] as string}`], 'names as given; a formula gets a quote in front')
  t.equal(rows[0]?.guid, guids[0])
  t.equal(rows[0]?.passed, '2')
  t.equal(rows[0]?.['challenge 28'], 'true')
  t.equal(rows[0]?.['challenge 02'], 'false')
  t.equal(new Date(rows[0]?.lastSeen as string).toISOString(), rows[0]?.lastSeen)
  const paged = await server.inject({ method: 'GET', url: '/admin/sessions?limit=2', headers: { ...admin, accept: 'text/csv' } })
  t.equal((parse(paged.body, { columns: true }) as unknown[]).length, 2)
  t.match(paged.headers.link, /^<\/admin\/sessions\?limit=2&cursor=[\w-]+>; rel="next"$/, 'the next page in Link')
})

t.test('CSV split on , or on ; (as spreadsheets in de, fr, it… do), by a strict or a lenient reader: no cell starts a formula', async t => {
  const server = await withBoard(t)
  const hostile = ["x;=cmd|' /C calc'!A0", '+1;-2', '=HYPERLINK("http://x")', '@SUM(1+1)', '-2+3', 'a,=1+1', 'a; =1+1', 'a;"=1+1', '"=1+1"', 'a;;@x', 'ok;fine, thanks']
  for (const name of hostile) t.equal((await server.inject({ method: 'POST', url: '/challenger', headers: json, payload: { name } })).statusCode, 201, name)
  const body = (await server.inject({ method: 'GET', url: '/admin/sessions', headers: { ...admin, accept: 'text/csv' } })).body
  t.ok(body.split('\r\n').slice(0, -1).every(line => /^"(?:[^"]|"")*"(?:,"(?:[^"]|"")*")*$/.test(line)), 'every field quoted')
  // Read as it was written: each name, with a ' before each character that could start a formula.
  const rows = parse(body, { columns: true }) as Array<Record<string, string>>
  t.same(rows.map(r => r.name).reverse(), ["x;'=cmd|' /C calc'!A0", "'+1;'-2", '\'=HYPERLINK("http://x")', "'@SUM(1+1)", "'-2+3", "a,'=1+1", "a; '=1+1", 'a;"\'=1+1', '"\'=1+1"', "a;;'@x", 'ok;fine, thanks'])
  // A spreadsheet may split on either separator, honour quotes or not, and drop leading spaces or quotes.
  const formula = /^[=+\-@\t\r]/
  for (const delimiter of [',', ';']) {
    for (const options of [{ relax_quotes: true }, { relax_quotes: true, ltrim: true }, { quote: false }]) {
      const cells = (parse(body, { delimiter, relax_column_count: true, ...options }) as string[][]).flat()
      const bad = cells.filter(cell => formula.test(cell) || formula.test(cell.replace(/^[\p{White_Space}"]+/u, '')))
      t.same(bad, [], `split on ${delimiter} ${JSON.stringify(options)}`)
    }
  }
})

t.test('the board\'s bug hunt: found of hidden for a hunt, null (empty cells in CSV) for a session that is no hunt, never which defects', async t => {
  const store = new MemoryStore({})
  const server = await withBoard(t, { store })
  const hunter = await store.create('Hunter', 1, { hidden: ['note-write-201', 'no-www-authenticate', 'heartbeat-200'], found: ['heartbeat-200'] })
  await server.inject({ method: 'POST', url: '/challenger', headers: json, payload: { name: 'Plain' } })
  await server.inject({ method: 'POST', url: '/challenger', headers: json, payload: { name: 'Fresh', hunt: true } })
  const hunts = async (): Promise<Record<string, unknown>> => {
    const res = await server.inject({ method: 'GET', url: '/admin/sessions', headers: admin })
    for (const defect of defects) t.notMatch(res.body, defect.id, `${defect.id} is not named`)
    return Object.fromEntries(res.json().sessions.map((s: { name: string, hunt: unknown }) => [s.name, s.hunt]))
  }
  t.same(await hunts(), { Fresh: { found: 0, hidden: 3 }, Plain: null, Hunter: { found: 1, hidden: 3 } })

  // Hunter finds another: the hidden note-write-201 answered the note's write 201.
  t.equal((await server.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': hunter.guid, 'x-auth-token': hunter.token }, payload: { note: 'x' } })).statusCode, 201)
  const entry = (await server.inject({ method: 'GET', url: `/challenger/${hunter.guid}/requests` })).json().requests[0].id as string
  t.equal((await server.inject({ method: 'POST', url: `/challenger/${hunter.guid}/findings`, payload: { entry } })).json().verdict, 'found')
  t.same((await hunts()).Hunter, { found: 2, hidden: 3 })

  const csv = (await server.inject({ method: 'GET', url: '/admin/sessions', headers: { ...admin, accept: 'text/csv' } })).body
  const rows = parse(csv, { columns: true }) as Array<Record<string, string>>
  t.same(rows.map(({ name, huntFound, huntHidden }) => [name, huntFound, huntHidden]), [['Hunter', '2', '3'], ['Fresh', '0', '3'], ['Plain', '', '']],
    'two columns of numbers, empty for no hunt')
  const documented = AdminSessionPage.properties.sessions.items.properties.hunt
  t.match(documented.description, /^A bug hunt: how many of its hidden defects are found \(never which\); null/, 'the schema says what hunt is')
})

t.test('GET /admin/summary: live, active in the last 10 minutes, passes per challenge', async t => {
  let now = 0
  const store = new MemoryStore({ idleMs: 60 * 60 * 1000, now: () => now })
  const server = await withBoard(t, { store })
  const a = await newSession(server)
  const b = await newSession(server)
  await server.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': a.guid } })
  now += 11 * 60 * 1000
  await newSession(server)
  await server.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': b.guid } })
  const res = await server.inject({ method: 'GET', url: '/admin/summary', headers: admin })
  t.equal(res.statusCode, 200)
  const summary = res.json()
  t.equal(summary.live, 3)
  t.equal(summary.activeLast10Minutes, 2, 'a has been idle 11 minutes')
  t.equal(summary.challenges.length, challenges.length)
  t.same(summary.challenges[0], { id: 1, name: challenges[0]?.name, passedBy: 3 })
  t.same(summary.challenges.find((c: { id: number }) => c.id === 28), { id: 28, name: challenges.find(c => c.id === 28)?.name, passedBy: 2 })
  t.equal(summary.challenges.find((c: { id: number }) => c.id === 2).passedBy, 0)
  const xml = await server.inject({ method: 'GET', url: '/admin/summary', headers: { ...admin, accept: 'application/xml' } })
  t.equal(xml.statusCode, 406, 'JSON only')
})

t.test('a store that fails: 503, and a session gone before its name is changed: 404', async t => {
  class Broken extends MemoryStore {
    override async list (): Promise<never> { throw new StoreUnavailableError(new Error('down')) }
    override async setName (): Promise<undefined> { return undefined }
  }
  const other = await withBoard(t, { store: new Broken() })
  t.equal((await other.inject({ method: 'GET', url: '/admin/sessions', headers: admin })).statusCode, 503)
  const named = (await other.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
  const lost = await other.inject({ method: 'PATCH', url: `/challenger/${named}`, headers: json, payload: { name: 'Ada' } })
  t.equal(lost.statusCode, 404, 'a session that went between the lookup and the change')
})

t.test('under a prefix, the Link header has it', async t => {
  const host = Fastify()
  t.teardown(() => host.close())
  await host.register(app, { prefix: '/class', adminToken: TOKEN, creationRateLimit: 0 })
  await host.inject({ method: 'POST', url: '/class/challenger' })
  await host.inject({ method: 'POST', url: '/class/challenger' })
  const res = await host.inject({ method: 'GET', url: '/class/admin/sessions?limit=1', headers: admin })
  t.match(res.headers.link, /^<\/class\/admin\/sessions\?limit=1&cursor=/)
})

// The projector's view and the landing page's QR code (issue 49): the page itself, like the board's, needs no token.
const PAGE_CSP = "default-src 'none';style-src 'self';script-src 'self';connect-src 'self';img-src 'self';form-action 'self';base-uri 'none';frame-ancestors 'none'"

/** The page's QR code as qrcode draws it (without the name the page gives it), and that name. */
function qrIn (html: string): { svg: string, label: string } {
  const svg = /<svg [^]*?<\/svg>/.exec(html)?.[0] ?? ''
  const label = /^<svg role="img" aria-label="([^"]*)" /.exec(svg)?.[1] ?? ''
  return { svg: svg.replace(/role="img" aria-label="[^"]*" /, ''), label }
}

const qrOf = async (url: string): Promise<string> => (await QRCode.toString(url, { type: 'svg', margin: 2 })).trim()

t.test('GET /admin?view=projector is the projector\'s page: no token, no learner\'s data, the strict CSP, its own files, the QR code of the landing page as reached', async t => {
  const server = await withBoard(t)
  const guid = (await server.inject({ method: 'POST', url: '/challenger', headers: json, payload: { name: 'Ada Lovelace' } })).headers['x-challenger'] as string
  const res = await server.inject({ method: 'GET', url: '/admin?view=projector', headers: { host: 'class.example:3000' } })
  t.equal(res.statusCode, 200, 'no token needed: the page asks for it')
  t.equal(res.headers['content-type'], 'text/html; charset=utf-8')
  t.equal(res.headers['content-security-policy'], PAGE_CSP)
  t.equal(res.headers['x-frame-options'], 'DENY')
  t.notMatch(res.body, /Ada Lovelace/, 'no learner\'s data in the page itself')
  t.notMatch(res.body, guid.slice(0, 8), 'not even a short id')
  t.notMatch(res.body, TOKEN, 'nor the token')
  t.match(res.body, '<div id="admin" data-base="" data-token-key="api-challenges admin token" data-refresh-ms="5000" data-page="250" data-cap="1000" data-view="projector">')
  t.match(res.body, '<script type="module" src="/gui/admin.js"></script>')
  t.match(res.body, '<link rel="stylesheet" href="/gui/style.css"><link rel="stylesheet" href="/gui/projector.css">')
  t.notMatch(res.body, 'admin.css')
  t.notMatch(res.body, /<script>|<script [^>]*>[^<]/, 'no inline script')
  t.notMatch(res.body, /\sstyle=|<style/, 'no inline style, in the QR code neither')
  t.match(res.body, '<p id="start">Start at <a href="http://class.example:3000/">http://class.example:3000/</a></p>')
  t.match(res.body, '<a id="to-board" href="/admin">Board</a>')
  t.notMatch(res.body, 'this machine\'s own address', 'a class address: no warning')
  const qr = qrIn(res.body)
  t.equal(qr.svg, await qrOf('http://class.example:3000/'), 'the QR code of the landing page, as qrcode makes it')
  t.equal(qr.label, 'QR code of http://class.example:3000/', 'named for screen readers')
  t.ok(res.body.indexOf('id="challenge-bars"') < res.body.indexOf('id="learner-grid"'), 'the bars before the learners')

  const board = await server.inject({ method: 'GET', url: '/admin', headers: { host: '10.1.2.3:3000' } })
  t.equal(qrIn(board.body).svg, await qrOf('http://10.1.2.3:3000/'), 'the board has the QR code too')
  t.match(board.body, '<p id="start">Learners start at <a href="http://10.1.2.3:3000/">http://10.1.2.3:3000/</a> (or scan the QR code).</p>')
  t.match(board.body, '<a id="to-projector" href="/admin?view=projector">Projector view</a>', 'and a link to the projector\'s view')
  t.equal((await server.inject({ method: 'GET', url: '/admin?view=board', headers: { host: '10.1.2.3:3000' } })).body, board.body, '?view=board is the board')

  t.equal((await server.inject({ method: 'HEAD', url: '/admin?view=projector' })).statusCode, 200)
  t.equal((await server.inject({ method: 'GET', url: '/admin/sessions' })).statusCode, 401, 'the data behind it still wants the token')
})

t.test('opened at a loopback address, the board and the projector\'s view say that learners cannot use it', async t => {
  const server = await withBoard(t)
  for (const host of ['localhost:3000', 'LOCALHOST', '127.0.0.1:3000', '127.8.9.10', '[::1]:3000']) {
    for (const url of ['/admin', '/admin?view=projector']) {
      const res = await server.inject({ method: 'GET', url, headers: { host } })
      t.match(res.body, '<p class="warning">This is this machine\'s own address: the learners\' machines cannot reach it.', `${host} ${url}`)
      t.equal(qrIn(res.body).svg, await qrOf(`http://${host}/`), 'the code is there all the same')
    }
  }
  for (const host of ['192.168.1.20:3000', 'localhost.example', '127.0.0.1.example', 'exa mple', '[fe80::1]']) {
    t.notMatch((await server.inject({ method: 'GET', url: '/admin?view=projector', headers: { host } })).body, 'this machine\'s own address', host)
  }
})

t.test(`a landing page's address over ${QR_MAX_URL} characters gets no QR code, and the page says so`, async t => {
  const server = await withBoard(t)
  const fits = 'h'.repeat(QR_MAX_URL - 'http://'.length - 1)
  const res = await server.inject({ method: 'GET', url: '/admin?view=projector', headers: { host: fits } })
  t.equal(qrIn(res.body).svg, await qrOf(`http://${fits}/`), `${QR_MAX_URL} characters: a code`)
  for (const url of ['/admin', '/admin?view=projector']) {
    const long = await server.inject({ method: 'GET', url, headers: { host: `${fits}h` } })
    t.equal(long.statusCode, 200, url)
    t.notMatch(long.body, '<svg', 'one more: none')
    t.match(long.body, '<figure id="join"><p class="no-qr">(this address is too long for a QR code)</p></figure>')
    t.match(long.body, `<a href="http://${fits}h/">`, 'the address is there to read')
  }
  const parts = await landing('http://a.example', '/p')
  t.same([parts.url, parts.loopback, parts.qr?.startsWith('<svg role="img" aria-label="QR code of http://a.example/p/" ')], ['http://a.example/p/', false, true])
})

t.test('GET /admin wants a view it has: board or projector', async t => {
  const server = await withBoard(t)
  for (const [url, message] of [
    ['/admin?view=nope', 'Invalid request: view must be "board" or "projector", not "nope"'],
    ['/admin?view=', 'Invalid request: view must be "board" or "projector", not ""'],
    ['/admin?view=Projector', 'Invalid request: view must be "board" or "projector", not "Projector"'],
    ['/admin?view=projector&view=board', 'Invalid request: querystring/view: Expected string']
  ] as const) {
    const res = await server.inject({ method: 'GET', url })
    t.equal(res.statusCode, 400, url)
    t.same(errorMessages(res), [message])
  }
})

t.test('the projector\'s view, its script and stylesheet exist only with an admin token, and under a prefix are under it', async t => {
  const without = await build(t)
  for (const url of ['/admin?view=projector', '/gui/projector.js', '/gui/projector.css']) {
    t.equal((await without.inject({ method: 'GET', url })).statusCode, 404, `${url} without an admin token`)
  }
  const host = Fastify()
  t.teardown(() => host.close())
  await host.register(app, { prefix: '/class', adminToken: TOKEN })
  const res = await host.inject({ method: 'GET', url: '/class/admin?view=projector', headers: { host: 'room.example' } })
  t.equal(res.statusCode, 200)
  t.match(res.body, '<div id="admin" data-base="/class" ')
  t.match(res.body, 'src="/class/gui/admin.js"')
  t.match(res.body, 'href="/class/gui/projector.css"')
  t.match(res.body, '<a id="to-board" href="/class/admin">Board</a>')
  t.equal(qrIn(res.body).svg, await qrOf('http://room.example/class/'), 'the landing page under the prefix')
  for (const file of ['projector.js', 'projector.css']) t.equal((await host.inject({ method: 'GET', url: `/class/gui/${file}` })).statusCode, 200, file)
})

t.test('behind a trusted proxy the QR code is of the address the proxy passes on, as the landing page\'s commands are', async t => {
  const host = Fastify({ trustProxy: true })
  t.teardown(() => host.close())
  await host.register(app, { adminToken: TOKEN })
  const headers = { host: 'inner:3000', 'x-forwarded-host': 'class.example', 'x-forwarded-proto': 'https' }
  const res = await host.inject({ method: 'GET', url: '/admin?view=projector', headers })
  t.equal(qrIn(res.body).svg, await qrOf('https://class.example/'))
  t.match(res.body, '<p id="start">Start at <a href="https://class.example/">https://class.example/</a></p>')
  t.match((await host.inject({ method: 'GET', url: '/', headers })).body, '<span>https://class.example/challenger</span>', 'the landing page says the same address')
})
