// The web pages: escaping, statuses, progress figures, the CSP, the bearer-secret warning, that
// looking passes nothing, the learner's name on the progress page, and the class board's page
// (GET /admin, only with an admin token).
import t from 'tap'
import { MAX_PAGE } from '../src/domain/admin-csv.js'
import { ADMIN_SCRIPT, ADMIN_STYLESHEET, adminPage, BOARD_CAP, BOARD_PAGE, BOARD_REFRESH_MS, TOKEN_KEY } from '../src/domain/admin-page.js'
import { BEARER_WARNING, challengesPage, escapeHtml, landingPage, progressText, REFRESH_SCRIPT } from '../src/domain/pages.js'
import { build, newSession, passed } from './helper.js'

const rows = [
  { id: 1, name: 'POST /challenger (201)', description: 'Create <a session>', hint: 'POST /challenger <no header>', status: true },
  { id: 28, name: 'GET /heartbeat (204)', description: 'x & y', hint: 'GET /heartbeat', status: false }
]

t.test('rendering escapes every value and shows status as text', async t => {
  t.equal(escapeHtml('<script>"x" & \'y\'</script>'), '&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;')
  const html = challengesPage('/p', '"><script>alert(1)</script>', false, rows)
  t.notMatch(html, /<script>alert/)
  t.match(html, /data-guid="&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;"/)
  t.match(html, /<code>&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/code> \(no live session/)
  t.match(html, /<tr data-id="1" class="done"><td>01<\/td><td>POST \/challenger \(201\)<\/td><td>Create &lt;a session&gt;<details><summary>How to pass it<\/summary><pre>POST \/challenger &lt;no header&gt;<\/pre><\/details><\/td><td class="status">done<\/td><\/tr>/)
  t.match(html, /<tr data-id="28" class="todo">[^]*<td>x &amp; y<details>[^]*<\/details><\/td><td class="status">not done<\/td>/)
  t.notMatch(html, /Your last requests/, 'no journal section without a journal')
  const requests = [
    { at: '2026-11-22T10:15:30.123Z', method: 'POST', path: '/secret/<b>', status: 415, contentType: 'text/<i>', passed: [], hint: 'Challenge 34 needs <json>' },
    { at: '2026-11-22T10:15:29.000Z', method: 'GET', path: '/heartbeat', status: 204, contentType: null, passed: [28], hint: null }
  ]
  const withJournal = challengesPage('/p', 'g', true, rows, true, requests)
  t.match(withJournal, /data-journal="1"/)
  t.match(withJournal, /<tr class="near"><td><time datetime="2026-11-22T10:15:30.123Z">10:15:30<\/time><\/td><td><code>POST \/secret\/&lt;b&gt;<\/code><\/td><td>415<\/td><td><\/td><td>Challenge 34 needs &lt;json&gt;<\/td><\/tr>/)
  t.match(withJournal, /<tr class="passed">[^]*<td>28<\/td><td><\/td><\/tr>/)
  t.match(withJournal, /<p id="requests-empty" hidden>/)
  t.match(challengesPage('/p', 'g', true, rows, true, []), /<p id="requests-empty">No requests yet/)
  t.match(html, /<progress id="progress" value="1" max="2"><\/progress> <span id="progress-text">1 of 2 done<\/span>/)
  t.match(html, /<script src="\/p\/gui\/refresh.js" defer><\/script>/)
  t.notMatch(challengesPage('', null, false, rows), /refresh\.js/, 'no script without a session')
  t.equal(progressText([]), '0 of 0 done')
  const landing = { base: '/p', origin: 'http://h:1', username: 'admin', password: 'password', docs: true }
  t.match(landingPage(landing), /<form action="\/p\/gui\/challenges" method="get">/)
  t.match(landingPage(landing), /<a href="\/p\/docs">/)
  t.notMatch(landingPage({ ...landing, docs: false }), /\/docs/, 'no docs link when docs are off')
  t.match(landingPage(landing), /curl -i -X POST http:\/\/h:1\/p\/challenger/)
  t.match(landingPage({ ...landing, username: 'teacher', password: 'course-secret' }), /-u 'teacher:&lt;the password you were given&gt;'/, 'another password is not shown')
  t.notMatch(landingPage({ ...landing, username: 'teacher', password: 'course-secret' }), /course-secret/)
  t.match(landingPage({ ...landing, origin: 'http://"><script>x' }), /http:\/\/&quot;&gt;&lt;script&gt;x\/p\/challenger/, 'the Host is escaped')
  t.match(challengesPage('/p', null, false, rows), /<a href="\/p\/docs">/)
  t.notMatch(challengesPage('/p', null, false, rows, false), /\/docs/, 'no docs link when docs are off')
})

t.test('the pages over HTTP: HTML, a strict CSP, statuses, and no challenge passed by looking', async t => {
  const app = await build(t)
  const me = await newSession(app)
  await app.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': me.guid } })
  const landing = await app.inject({ method: 'GET', url: '/' })
  t.equal(landing.statusCode, 200)
  t.equal(landing.headers['content-type'], 'text/html; charset=utf-8')
  t.equal(landing.headers['content-security-policy'],
    "default-src 'none';style-src 'self';script-src 'self';connect-src 'self';img-src 'self';form-action 'self';base-uri 'none';frame-ancestors 'none'")
  t.equal(landing.headers['x-frame-options'], 'DENY')
  t.match(landing.body, /curl -i -X POST http:\/\/localhost:80\/challenger/, 'the commands name the server as the request reached it')
  const named = await app.inject({ method: 'GET', url: '/', headers: { host: 'practice.example:8080' } })
  t.match(named.body, /curl -i -X POST http:\/\/practice\.example:8080\/secret\/token -u 'admin:password'/)
  const mine = await app.inject({ method: 'GET', url: `/gui/challenges/${me.guid}` })
  t.equal(mine.statusCode, 200)
  t.match(mine.body, /3 of 19 done/)
  t.match(mine.body, /<tr data-id="28" class="done">/)
  t.match(mine.body, /<tr data-id="25" class="todo">/)
  const anyone = await app.inject({ method: 'GET', url: '/gui/challenges' })
  t.match(anyone.body, /0 of 19 done/)
  const go = await app.inject({ method: 'GET', url: `/gui/challenges?guid=${me.guid}` })
  t.equal(go.statusCode, 303)
  t.equal(go.headers.location, `/gui/challenges/${me.guid}`)
  const refresh = await app.inject({ method: 'GET', url: '/challenges', headers: { 'x-challenger': me.guid, 'x-challenges-page': '1' } })
  t.equal(refresh.statusCode, 200)
  t.same(await passed(app, me.guid), [1, 28, 30], 'neither the page nor its refresh passed a challenge')
  for (const [url, type] of [['/gui/style.css', 'text/css; charset=utf-8'], ['/gui/refresh.js', 'text/javascript; charset=utf-8'], ['/gui/icon.svg', 'image/svg+xml']]) {
    const res = await app.inject({ method: 'GET', url: url as string })
    t.equal(res.headers['content-type'], type)
  }
  t.equal((await app.inject({ method: 'POST', url: '/gui/challenges' })).statusCode, 405)
})

t.test('the landing page and a session\'s challenges page say the session id is like a password', async t => {
  t.equal(BEARER_WARNING, 'Your session id is like a password: share your progress link and you share your session.')
  const app = await build(t)
  const me = await newSession(app)
  const landing = (await app.inject({ method: 'GET', url: '/' })).body
  const progress = landing.slice(landing.indexOf('<h2>Your progress</h2>'))
  t.match(progress, `<strong>${BEARER_WARNING}</strong>`, 'in the landing page\'s "Your progress" section')
  t.match(progress, /read your token and your secret note \(<code>GET \/challenger\/&lt;id&gt;<\/code>\)/, 'with what the id gives away')
  const mine = (await app.inject({ method: 'GET', url: `/gui/challenges/${me.guid}` })).body
  t.match(mine, new RegExp(`<p>Session <code>${me.guid}</code></p>\n<p class="warning"><strong>${BEARER_WARNING}</strong>`), 'right after the session id')
  t.match((await app.inject({ method: 'GET', url: '/gui/challenges/not-a-live-one' })).body, BEARER_WARNING, 'an id with no live session too')
  t.notMatch((await app.inject({ method: 'GET', url: '/gui/challenges' })).body, BEARER_WARNING, 'not where no session id is shown')
})

t.test('under a prefix every link and script is under it', async t => {
  const { default: Fastify } = await import('fastify')
  const { default: app } = await import('../src/app.js')
  const host = Fastify()
  await host.register(app, { prefix: '/practice' })
  t.teardown(() => host.close())
  t.match((await host.inject({ method: 'GET', url: '/practice/', headers: { host: 'h' } })).body, /curl -i -X POST http:\/\/h\/practice\/challenger/)
  const page = await host.inject({ method: 'GET', url: '/practice/gui/challenges/abc' })
  t.match(page.body, /href="\/practice\/gui\/style.css"/)
  t.match(page.body, /src="\/practice\/gui\/refresh.js"/)
  t.match(page.body, /data-base="\/practice"/)
})

t.test('with docs off, no page links to /docs; a custom username is shown', async t => {
  const app = await build(t, { docs: false, username: 'teacher', password: 'course-secret' })
  const landing = await app.inject({ method: 'GET', url: '/' })
  t.notMatch(landing.body, /\/docs/)
  t.match(landing.body, /-u 'teacher:&lt;the password you were given&gt;'/)
  t.notMatch(landing.body, /course-secret/, 'the password is not on the page')
  t.notMatch((await app.inject({ method: 'GET', url: '/gui/challenges' })).body, /\/docs/)
  t.equal((await app.inject({ method: 'GET', url: '/docs' })).statusCode, 404)
})

t.test('the progress page shows the learner\'s name as text, and a form to change it', async t => {
  const app = await build(t)
  const me = await newSession(app)
  const unnamed = (await app.inject({ method: 'GET', url: `/gui/challenges/${me.guid}` })).body
  t.match(unnamed, '<p id="name-line" hidden>You are <strong id="current-name"></strong> on the class board.</p>', 'no name yet: the line is hidden')
  t.match(unnamed, '<input id="name" maxlength="40" required autocomplete="nickname" value="">', 'an empty input of at most 40 characters, with no name= (nothing for a URL)')
  t.match(unnamed, '<button type="submit">Save the name</button>')
  t.notMatch((await app.inject({ method: 'GET', url: '/gui/challenges/not-a-live-one' })).body, 'name-form', 'no form without a live session')
  t.notMatch((await app.inject({ method: 'GET', url: '/gui/challenges' })).body, 'name-form', 'nor without a session')

  for (const name of ['<img src=x onerror=alert(1)>', '"><script>alert(1)</script>', 'Zoë & Ada\'s']) {
    const patched = await app.inject({ method: 'PATCH', url: `/challenger/${me.guid}`, payload: { name } })
    t.equal(patched.statusCode, 200)
    const html = (await app.inject({ method: 'GET', url: `/gui/challenges/${me.guid}` })).body
    const escaped = escapeHtml(name)
    t.match(html, `<p id="name-line">You are <strong id="current-name">${escaped}</strong> on the class board.</p>`, `${name}: shown as text`)
    t.match(html, `value="${escaped}">`, `${name}: in the input, escaped`)
    t.notMatch(html, name, `${name}: never as it is`)
  }
  t.same(await passed(app, me.guid), [1, 30], 'naming passes nothing')
})

t.test('GET /admin, its script and stylesheet exist only with an admin token', async t => {
  const app = await build(t)
  for (const url of ['/admin', '/gui/admin.js', '/gui/admin.css']) {
    t.equal((await app.inject({ method: 'GET', url })).statusCode, 404, `${url} without an admin token`)
  }
})

t.test('with an admin token, GET /admin is the board\'s page: no token needed, no data, a strict CSP, its own files', async t => {
  const token = 'a-board-token-for-the-test'
  const app = await build(t, { adminToken: token })
  await app.inject({ method: 'POST', url: '/challenger', payload: { name: 'Ada Lovelace' } })
  const board = await app.inject({ method: 'GET', url: '/admin' })
  t.equal(board.statusCode, 200, 'the page needs no token: it asks for it')
  t.equal(board.headers['content-type'], 'text/html; charset=utf-8')
  t.equal(board.headers['content-security-policy'],
    "default-src 'none';style-src 'self';script-src 'self';connect-src 'self';img-src 'self';form-action 'self';base-uri 'none';frame-ancestors 'none'")
  t.equal(board.headers['x-frame-options'], 'DENY')
  t.equal(board.headers['referrer-policy'], 'no-referrer')
  t.match(board.body, '<script src="/gui/admin.js" defer></script>')
  t.match(board.body, '<link rel="stylesheet" href="/gui/style.css"><link rel="stylesheet" href="/gui/admin.css">')
  t.notMatch(board.body, /<script>|<script [^>]*>[^<]/, 'no inline script')
  t.notMatch(board.body, /\sstyle=|<style/, 'no inline style')
  t.notMatch(board.body, /Ada Lovelace/, 'no learner\'s data in the page itself')
  t.notMatch(board.body, token, 'nor the token')
  t.match(board.body, '<input id="token" type="password" autocomplete="off" spellcheck="false" required>', 'the token\'s input has no name=, so a submit without the script puts nothing in the URL')
  t.match(board.body, '<div id="admin" data-base="">')

  const script = await app.inject({ method: 'GET', url: '/gui/admin.js' })
  t.equal(script.statusCode, 200, 'the script needs no token')
  t.equal(script.headers['content-type'], 'text/javascript; charset=utf-8')
  t.equal(script.headers['content-security-policy'], board.headers['content-security-policy'])
  t.equal(script.body, ADMIN_SCRIPT)
  const style = await app.inject({ method: 'GET', url: '/gui/admin.css' })
  t.equal(style.headers['content-type'], 'text/css; charset=utf-8')
  t.equal(style.body, ADMIN_STYLESHEET)

  t.equal((await app.inject({ method: 'HEAD', url: '/admin' })).statusCode, 200)
  const options = await app.inject({ method: 'OPTIONS', url: '/admin' })
  t.equal(options.headers.allow, 'GET, HEAD, OPTIONS')
  t.equal((await app.inject({ method: 'POST', url: '/admin' })).statusCode, 405)
  const document = await app.inject({ method: 'GET', url: '/docs/json' })
  t.notMatch(document.body, /"\/admin"|admin\.js/, 'the page is not in the learners\' API document')
})

t.test('the board\'s script and the refresh script insert text, never markup, and send the token only as a header', async t => {
  for (const [name, script] of [['admin.js', ADMIN_SCRIPT], ['refresh.js', REFRESH_SCRIPT]] as const) {
    t.notMatch(script, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/, `${name} builds no markup from text`)
  }
  t.match(ADMIN_SCRIPT, "headers: { Authorization: 'Bearer ' + used")
  t.match(ADMIN_SCRIPT, `const KEY = ${JSON.stringify(TOKEN_KEY)}`)
  t.match(ADMIN_SCRIPT, `const EVERY = ${BOARD_REFRESH_MS}\nconst PAGE = ${BOARD_PAGE}\nconst CAP = ${BOARD_CAP}\n`)
  t.equal(BOARD_REFRESH_MS, 5000, 'the board refreshes every 5 s')
  t.equal(BOARD_CAP % BOARD_PAGE, 0, 'the cap is a whole number of pages')
  t.ok(BOARD_PAGE <= MAX_PAGE, 'a page the API gives')
  t.match(adminPage('/p"><x'), '<div id="admin" data-base="/p&quot;&gt;&lt;x">', 'the prefix is escaped')
})

t.test('under a prefix the board\'s page, script and stylesheet are under it', async t => {
  const { default: Fastify } = await import('fastify')
  const { default: app } = await import('../src/app.js')
  const host = Fastify()
  await host.register(app, { prefix: '/practice', adminToken: 'a-board-token-for-the-test' })
  t.teardown(() => host.close())
  const board = await host.inject({ method: 'GET', url: '/practice/admin' })
  t.equal(board.statusCode, 200)
  t.match(board.body, '<div id="admin" data-base="/practice">')
  t.match(board.body, 'src="/practice/gui/admin.js"')
  t.match(board.body, 'href="/practice/gui/admin.css"')
  t.equal((await host.inject({ method: 'GET', url: '/practice/gui/admin.js' })).statusCode, 200)
  t.equal((await host.inject({ method: 'GET', url: '/admin' })).statusCode, 404, 'not at the root')
})
