// The web pages: escaping, statuses, progress figures, the CSP, the bearer-secret warning, that
// looking passes nothing, what the pages fill in (this server, the session id, the number of
// challenges), the links to the reference's solutions, the learner's name on the progress page (only
// with a class board), the class board's page (GET /admin, only with an admin token), and the
// pages' files (public/gui/) as the browser gets them.
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { BOARD_FILES, FILE_TYPES, guiFolder } from '../../routes/pages.js'
import { MAX_PAGE } from '../../src/domain/pages/admin-csv.js'
import { adminPage, BOARD_CAP, BOARD_PAGE, BOARD_REFRESH_MS, TOKEN_KEY } from '../../src/domain/pages/admin-page.js'
import { challenges, SOLUTIONS_BASE } from '../../src/domain/challenges/catalogue.js'
import { defectById, defects } from '../../src/domain/defects/catalogue.js'
import { revealed } from '../../src/domain/defects/hunt.js'
import { huntTitle, huntView } from '../../src/domain/pages/hunt.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import {
  BEARER_WARNING, challengesPage, command, escapeHtml, filledHint, landingPage, page, progressText,
  SESSION_PLACEHOLDER, solutionUrls, type ChallengesPageOptions
} from '../../src/domain/pages/pages.js'
import { build, errorMessages, newSession, passed } from '../helper.js'

/** The pages' files, as they are in the repository. */
const GUI = fileURLToPath(new URL('../../public/gui/', import.meta.url))

/** A file of public/gui/, as the browser should get it. */
function guiFile (name: string): string {
  return readFileSync(`${GUI}${name}`, 'utf8')
}

const rows = [
  { id: 1, name: 'POST /challenger (201)', description: 'Create <a session>', hint: 'POST /challenger <no header>', status: true },
  { id: 28, name: 'GET /heartbeat (204)', description: 'x & y, with X-HTTP-Method-Override', hint: 'GET /heartbeat', status: false }
]

/** The challenges page of `rows`, with `options` changed. */
function challengesOf (options: Partial<ChallengesPageOptions>): string {
  return challengesPage({ base: '/p', origin: 'http://h:1', guid: null, live: false, rows, docs: true, requests: null, name: undefined, board: false, hunt: null, ...options })
}

/** A page's text with the word spans of its commands taken out. */
function unspanned (html: string): string {
  return html.replace(/<\/?span(?: class="long")?>/g, '')
}

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' }

/** The text of every <pre class="command"> of a page, in order, as the browser shows it. */
function commands (html: string): string[] {
  return [...html.matchAll(/<pre class="command">([^]*?)<\/pre>/g)]
    .map(match => unspanned(match[1] as string).replace(/&(lt|gt|quot|#39|amp);/g, entity => ENTITIES[entity] as string))
}

t.test('rendering escapes every value and shows status as text', async t => {
  t.equal(escapeHtml('<script>"x" & \'y\'</script>'), '&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;')
  const html = challengesOf({ guid: '"><script>alert(1)</script>' })
  t.notMatch(html, /<script>alert/)
  t.match(html, /data-guid="&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;"/)
  t.match(html, /<code class="guid">&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/code> \(no live session/)
  t.match(html, '<tr data-id="1" class="done"><td>01</td><td>POST /challenger (201)</td><td>Create &lt;a session&gt;<details><summary>How to pass it</summary>' +
    '<pre class="command"><span>POST</span> <span>http://h:1/p/challenger</span> <span>&lt;no</span> <span>header&gt;</span></pre></details></td><td class="status">done</td></tr>')
  t.match(html, /<tr data-id="28" class="todo">[^]*<td>x &amp; y, with <span class="header-name">X-HTTP-Method-Override<\/span><details>[^]*<\/details><\/td><td class="status">not done<\/td>/, 'a header name in prose stays on one line')
  t.notMatch(html, /Your last requests/, 'no journal section without a journal')
  const requests = [
    { id: '1763806530123-<g>', at: '2026-11-22T10:15:30.123Z', method: 'POST', path: '/secret/<b>', status: 415, contentType: 'text/<i>', passed: [], hint: 'Challenge 34 needs <json>' },
    { id: '1763806529000-g', at: '2026-11-22T10:15:29.000Z', method: 'GET', path: '/heartbeat', status: 204, contentType: null, passed: [28], hint: null }
  ]
  const withJournal = challengesOf({ guid: 'g', live: true, requests })
  t.match(withJournal, /data-journal="1" data-hunt="0"/, 'a live session that is no hunt')
  t.match(withJournal, /<tr class="near"><td><time datetime="2026-11-22T10:15:30.123Z">10:15:30<\/time><\/td><td class="request"><code>POST <span>\/secret<\/span><wbr><span>\/&lt;b&gt;<\/span><\/code><\/td><td>415<\/td><td><\/td><td>Challenge 34 needs &lt;json&gt;<\/td>/)
  t.match(withJournal, '<td class="entry-id"><code>1763806530123-&lt;g&gt;</code></td><td class="copy"></td></tr>', 'each entry\'s id, escaped, in a column of its own')
  t.match(withJournal, '<table id="requests">\n<thead><tr><th>time (UTC)</th><th>request</th><th>status</th><th>passed</th><th>hint</th><th class="entry-id">entry id</th><th class="copy">replay</th></tr></thead>',
    'which style.css shows only in a hunt (the table\'s class hunt)')
  t.match(withJournal, /<tr class="passed">[^]*<td>28<\/td><td><\/td><td class="entry-id"><code>1763806529000-g<\/code><\/td><td class="copy"><\/td><\/tr>/)
  t.notMatch(withJournal, /id="hunt"|Bug hunt/, 'no hunt section for a session that is no hunt')
  t.match(challengesOf({ guid: 'g', live: false }), 'data-hunt=""', 'no live session: nothing for the refresh to ask of a hunt')
  t.match(withJournal, /<p id="requests-empty" hidden>/)
  t.match(challengesOf({ guid: 'g', live: true, requests: [] }), /<p id="requests-empty">No requests yet/)
  t.match(html, /<progress id="progress" value="1" max="2"><\/progress> <span id="progress-text">1 of 2 done<\/span>/)
  t.match(html, '<script type="module" src="/p/gui/refresh.js"></script>')
  t.notMatch(html, /name\.js/, 'no name script without the class board')
  t.notMatch(challengesOf({ base: '' }), /refresh\.js/, 'no script without a session')
  t.equal(progressText([]), '0 of 0 done')
  const landing = { base: '/p', origin: 'http://h:1', username: 'admin', password: 'password', docs: true, challengeCount: challenges.length }
  t.match(landingPage(landing), /<form action="\/p\/gui\/challenges" method="get">/)
  t.match(landingPage(landing), /<a href="\/p\/docs">/)
  t.notMatch(landingPage({ ...landing, docs: false }), /\/docs/, 'no docs link when docs are off')
  t.match(unspanned(landingPage(landing)), /curl -i -X POST http:\/\/h:1\/p\/challenger/)
  t.match(commands(landingPage({ ...landing, username: 'teacher', password: 'course-secret' }))[1], "-u 'teacher:<the password you were given>'", 'another password is not shown')
  t.notMatch(landingPage({ ...landing, username: 'teacher', password: 'course-secret' }), /course-secret/)
  t.match(unspanned(landingPage({ ...landing, origin: 'http://"><script>x' })), /http:\/\/&quot;&gt;&lt;script&gt;x\/p\/challenger/, 'the Host is escaped')
  t.match(challengesOf({}), /<a href="\/p\/docs">/)
  t.notMatch(challengesOf({ docs: false }), /\/docs/, 'no docs link when docs are off')
})

t.test('a command is one <pre class="command"> with each word in a span, escaped; a page may name several scripts', async t => {
  t.equal(command('curl -H "X-CHALLENGER: <id>"\nGET  /x'),
    '<pre class="command"><span>curl</span> <span>-H</span> <span>&quot;X-CHALLENGER:</span> <span>&lt;id&gt;&quot;</span>\n<span>GET</span>  <span>/x</span></pre>',
    'spaces and line breaks stay as they are, between the words')
  t.equal(command(''), '<pre class="command"></pre>')
  t.match(page('/p', 't', '', ['/a.js', '/b.js']), '<script type="module" src="/p/a.js"></script><script type="module" src="/p/b.js"></script></head>')
  t.match(page('/p', 't', '', '/a.js'), '<script type="module" src="/p/a.js"></script></head>')
  t.match(page('/p"><x', 't', '', '/a.js'), '<script type="module" src="/p&quot;&gt;&lt;x/a.js"></script>', 'the prefix is escaped')
  t.notMatch(page('/p', 't', ''), '<script')
})

t.test('"How to pass it" names this server, and a live session\'s id; the token stays a placeholder', async t => {
  t.equal(SESSION_PLACEHOLDER, '<your session id>')
  t.equal(filledHint('GET /heartbeat\nX-CHALLENGER: <your session id>', 'http://h:1/p', 'abc'), 'GET http://h:1/p/heartbeat\nX-CHALLENGER: abc')
  t.equal(filledHint('GET /heartbeat\nX-CHALLENGER: <your session id>', 'http://h:1', null), 'GET http://h:1/heartbeat\nX-CHALLENGER: <your session id>', 'no session: the placeholder stays')
  t.equal(filledHint('POST /secret/note\nX-AUTH-TOKEN: <your token>\nA: <your session id> <your session id>', 'http://$&:1', '$1'),
    'POST http://$&:1/secret/note\nX-AUTH-TOKEN: <your token>\nA: $1 $1', 'every placeholder, and no replacement patterns taken from the values')
  t.equal(filledHint('see GET /heartbeat', 'http://h', 'g'), 'see GET /heartbeat', 'only a request line at the start is addressed')
  const hinted = [{ ...rows[1] as typeof rows[number], hint: 'GET /heartbeat\nX-CHALLENGER: <your session id>' }]
  t.same(commands(challengesOf({ guid: 'g-1', live: true, rows: hinted })), ['GET http://h:1/p/heartbeat\nX-CHALLENGER: g-1'])
  t.same(commands(challengesOf({ guid: 'g-1', live: false, rows: hinted })), ['GET http://h:1/p/heartbeat\nX-CHALLENGER: <your session id>'], 'not a live session: not its id')
})

t.test('each challenge with a solution links to it, marked as leaving the site', async t => {
  const urls = solutionUrls([{ id: 1, solution: 'create-session/post-challenger-201' }, { id: 28 }], 'https://example.org/solutions/')
  t.same([...urls], [[1, 'https://example.org/solutions/create-session/post-challenger-201']], 'a challenge without one has none')
  const html = challengesOf({ rows: [{ ...rows[0] as typeof rows[number], solution: 'https://example.org/s/"x"' }, rows[1] as typeof rows[number]] })
  t.match(html, '</details> <a class="solution" href="https://example.org/s/&quot;x&quot;" rel="external noopener noreferrer" ' +
    'aria-label="solution to challenge 01, on example.org (leaves this site)">solution ↗</a></td>')
  t.equal(html.match(/class="solution"/g)?.length, 1, 'one link, for the one row with a solution')
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
  t.match(commands(landing.body)[0], /^curl -i -X POST http:\/\/localhost:80\/challenger$/, 'the commands name the server as the request reached it')
  const named = await app.inject({ method: 'GET', url: '/', headers: { host: 'practice.example:8080' } })
  t.match(commands(named.body)[1], /^curl -i -X POST http:\/\/practice\.example:8080\/secret\/token -u 'admin:password'/)
  const mine = await app.inject({ method: 'GET', url: `/gui/challenges/${me.guid}` })
  t.equal(mine.statusCode, 200)
  t.match(mine.body, new RegExp(`3 of ${challenges.length} done`))
  t.match(mine.body, /<tr data-id="28" class="done">/)
  t.match(mine.body, /<tr data-id="25" class="todo">/)
  const anyone = await app.inject({ method: 'GET', url: '/gui/challenges' })
  t.match(anyone.body, new RegExp(`0 of ${challenges.length} done`))
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
  t.match(mine, new RegExp(`<p>Session <code class="guid">${me.guid}</code></p>\n<p class="warning"><strong>${BEARER_WARNING}</strong>`), 'right after the session id')
  t.match((await app.inject({ method: 'GET', url: '/gui/challenges/not-a-live-one' })).body, BEARER_WARNING, 'an id with no live session too')
  t.notMatch((await app.inject({ method: 'GET', url: '/gui/challenges' })).body, BEARER_WARNING, 'not where no session id is shown')
})

t.test('under a prefix every link and script is under it', async t => {
  const { default: Fastify } = await import('fastify')
  const { default: app } = await import('../../src/app.js')
  const host = Fastify()
  await host.register(app, { prefix: '/practice' })
  t.teardown(() => host.close())
  t.match(unspanned((await host.inject({ method: 'GET', url: '/practice/', headers: { host: 'h' } })).body), /curl -i -X POST http:\/\/h\/practice\/challenger/)
  const guid = (await host.inject({ method: 'POST', url: '/practice/challenger' })).headers['x-challenger'] as string
  t.match(commands((await host.inject({ method: 'GET', url: `/practice/gui/challenges/${guid}`, headers: { host: 'h' } })).body)[5],
    `GET http://h/practice/heartbeat\nX-CHALLENGER: ${guid}`, 'the requests to pass name the prefix')
  const page = await host.inject({ method: 'GET', url: '/practice/gui/challenges/abc' })
  t.match(page.body, /href="\/practice\/gui\/style.css"/)
  t.match(page.body, /src="\/practice\/gui\/refresh.js"/)
  t.match(page.body, /data-base="\/practice"/)
})

t.test('with docs off, no page links to /docs; a custom username is shown', async t => {
  const app = await build(t, { docs: false, username: 'teacher', password: 'course-secret' })
  const landing = await app.inject({ method: 'GET', url: '/' })
  t.notMatch(landing.body, /\/docs/)
  t.match(commands(landing.body)[1], "-u 'teacher:<the password you were given>'")
  t.notMatch(landing.body, /course-secret/, 'the password is not on the page')
  t.notMatch((await app.inject({ method: 'GET', url: '/gui/challenges' })).body, /\/docs/)
  t.equal((await app.inject({ method: 'GET', url: '/docs' })).statusCode, 404)
})

t.test('with a class board, the progress page shows the learner\'s name as text, and a form to change it', async t => {
  const app = await build(t, { adminToken: 'a-board-token-for-the-test' })
  const me = await newSession(app)
  const unnamed = (await app.inject({ method: 'GET', url: `/gui/challenges/${me.guid}` })).body
  t.match(unnamed, '<p id="name-line" hidden>You are <strong id="current-name"></strong> on the class board.</p>', 'no name yet: the line is hidden')
  t.match(unnamed, '<input id="name" maxlength="40" required autocomplete="nickname" value="">', 'an empty input of at most 40 characters, with no name= (nothing for a URL)')
  t.match(unnamed, '<button type="submit">Save the name</button>')
  t.match(unnamed, '<script type="module" src="/gui/refresh.js"></script><script type="module" src="/gui/name.js"></script></head>', 'and the form\'s script')
  const script = await app.inject({ method: 'GET', url: '/gui/name.js' })
  t.equal(script.headers['content-type'], 'text/javascript; charset=utf-8')
  t.equal(script.body, guiFile('name.js'))
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

t.test('without a class board, the progress page has no name form and no script for it', async t => {
  const app = await build(t)
  const me = await newSession(app)
  await app.inject({ method: 'PATCH', url: `/challenger/${me.guid}`, payload: { name: 'Ada' } })
  const html = (await app.inject({ method: 'GET', url: `/gui/challenges/${me.guid}` })).body
  t.notMatch(html, /name-form|name-line|class board/, 'no form, and no name line')
  t.notMatch(html, 'Ada')
  t.match(html, '<script type="module" src="/gui/refresh.js"></script></head>', 'the refresh script alone')
  t.equal((await app.inject({ method: 'GET', url: '/gui/name.js' })).statusCode, 404)
  t.notMatch(guiFile('refresh.js'), /name-form|PATCH/, 'the refresh script has nothing of the form')
})

/** The hunt the tests play: three hidden, heartbeat-200 found already. */
const HIDDEN = ['note-write-201', 'no-www-authenticate', 'heartbeat-200']

/** The words of a defect a page may show once it is found. */
function wordsOf (id: string): string[] {
  const defect = defectById(id)
  return defect === undefined ? [] : [defect.id, defect.name, defect.breaks, defect.why].map(escapeHtml)
}

t.test('a hunt\'s section: found of hidden, the found defects revealed and escaped, how to report a finding', async t => {
  t.same(huntView({ hidden: HIDDEN, found: ['heartbeat-200'] }), { hidden: 3, found: [revealed('heartbeat-200')] }, 'the hidden ones only counted')
  t.equal(huntTitle({ hidden: 3, found: [] }), 'Bug hunt: 0 of 3 found')
  const view = { hidden: 3, found: [{ id: 'x<1>', name: 'Name <b>', breaks: 'Breaks & more', why: 'Why "so"' }] }
  const html = challengesOf({ guid: 'g-1', live: true, requests: [], hunt: view })
  t.match(html, '<section id="hunt">\n<h2 id="hunt-title">Bug hunt: 1 of 3 found</h2>')
  t.match(html, '<ul id="hunt-found"><li data-defect="x&lt;1&gt;"><strong>Name &lt;b&gt;</strong><p>What was wrong: Breaks &amp; more</p>' +
    '<p>Why it matters: Why &quot;so&quot;</p></li></ul>\n<p id="hunt-none" hidden>None found yet.</p>\n<p id="hunt-complete" hidden>')
  t.equal(commands(html)[0], 'curl -i -X POST http://h:1/p/challenger/g-1/findings -H \'Content-Type: application/json\' -d \'{"entry": "<entry id>"}\'', 'the finding\'s request, for this server and session')
  t.match(html, 'copy the\nrequest\'s id from the "entry id" column of "Your last requests"')
  t.ok(html.indexOf('id="hunt"') < html.indexOf('id="challenges"'), 'above the challenges, where the learner sees it')
  t.match(html, 'data-hunt="1"')
  t.match(html, '<table id="requests" class="hunt">', 'the entry ids shown')
  const none = challengesOf({ guid: 'g-1', live: true, requests: [], hunt: { hidden: 3, found: [] } })
  t.match(none, '<h2 id="hunt-title">Bug hunt: 0 of 3 found</h2>')
  t.match(none, '<ul id="hunt-found"></ul>\n<p id="hunt-none">None found yet.</p>')
  // Every one found: the title and a line say the hunt is over.
  const all = { hidden: 2, found: [revealed('heartbeat-200'), revealed('lost-write')] }
  t.equal(huntTitle(all), 'Bug hunt complete: 2 of 2 found')
  t.equal(huntTitle({ hidden: 0, found: [] }), 'Bug hunt: 0 of 0 found', 'nothing hidden is nothing to complete')
  const over = challengesOf({ guid: 'g-1', live: true, requests: [], hunt: all })
  t.match(over, '<h2 id="hunt-title">Bug hunt complete: 2 of 2 found</h2>')
  t.match(over, '<p id="hunt-complete"><strong>Every defect hidden in this session is found: the hunt is over.</strong>\nCompare notes with the class, or grade a test suite against every defect (docs/bug-hunt.md).</p>\n</section>')
  t.notMatch(challengesOf({ guid: 'g-1', live: false, hunt: view }), /id="hunt"|Bug hunt/, 'no live session: no hunt')
})

t.test('a hunt\'s progress page over HTTP: found of hidden, the found revealed, the hidden never named; a finding from the page\'s entry id shows there', async t => {
  const store = new MemoryStore({})
  const app = await build(t, { store })
  const session = await store.create(undefined, 1, { hidden: HIDDEN, found: ['heartbeat-200'] })
  const { guid, token } = session
  const pageOf = async (): Promise<string> => (await app.inject({ method: 'GET', url: `/gui/challenges/${guid}` })).body
  const first = await pageOf()
  t.match(first, '<h2 id="hunt-title">Bug hunt: 1 of 3 found</h2>')
  for (const words of wordsOf('heartbeat-200')) t.match(first, words, 'the found one revealed')
  for (const id of ['note-write-201', 'no-www-authenticate']) {
    for (const words of wordsOf(id)) t.notMatch(first, words, `${id} is not on the page`)
  }
  t.equal(commands(first)[0], `curl -i -X POST http://localhost:80/challenger/${guid}/findings -H 'Content-Type: application/json' -d '{"entry": "<entry id>"}'`)

  // The refresh's view of the hunt: the same, as JSON, under the pages' headers.
  const state = await app.inject({ method: 'GET', url: `/gui/challenges/${guid}/hunt` })
  t.equal(state.statusCode, 200)
  t.equal(state.headers['content-type'], 'application/json; charset=utf-8')
  t.match(state.headers['content-security-policy'], "default-src 'none'")
  t.same(state.json(), { hunt: { hidden: 3, found: [revealed('heartbeat-200')] } })
  for (const id of ['note-write-201', 'no-www-authenticate']) t.notMatch(state.body, defectById(id)?.name as string)

  // The learner writes a note: the hidden note-write-201 answers 201. Its entry id is on the page.
  const write = await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token }, payload: { note: 'hi' } })
  t.equal(write.statusCode, 201)
  const ids = [...(await pageOf()).matchAll(/<td class="entry-id"><code>([^<]*)<\/code><\/td>/g)].map(match => match[1] as string)
  const journal = (await app.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json().requests as Array<{ id: string }>
  t.same(ids, journal.map(entry => entry.id), 'every entry\'s id, as GET /challenger/{guid}/requests gives them')
  const finding = await app.inject({ method: 'POST', url: `/challenger/${guid}/findings`, payload: { entry: ids[0] } })
  t.equal(finding.json().verdict, 'found')
  const second = await pageOf()
  t.match(second, '<h2 id="hunt-title">Bug hunt: 2 of 3 found</h2>')
  t.same([...second.matchAll(/<li data-defect="([^"]*)">/g)].map(match => match[1]), ['heartbeat-200', 'note-write-201'], 'in the order found')
  for (const words of wordsOf('no-www-authenticate')) t.notMatch(second, words, 'the one still hidden is not named')
  t.same((await app.inject({ method: 'GET', url: `/gui/challenges/${guid}/hunt` })).json(), { hunt: { hidden: 3, found: [revealed('heartbeat-200'), revealed('note-write-201')] } })

  // A false alarm changes nothing on the page.
  await app.inject({ method: 'GET', url: '/challenges', headers: { 'x-challenger': guid } })
  const correct = await app.inject({ method: 'POST', url: `/challenger/${guid}/findings`, payload: { entry: (await app.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json().requests[0].id } })
  t.equal(correct.json().verdict, 'correct')
  t.match(await pageOf(), 'Bug hunt: 2 of 3 found')

  // Looking is not a request of the learner's: nothing passed, nothing in the journal.
  const before = await passed(app, guid)
  const journaled = (await app.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json().requests.length
  await app.inject({ method: 'GET', url: `/gui/challenges/${guid}/hunt` })
  await pageOf()
  t.same(await passed(app, guid), before)
  t.equal((await app.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json().requests.length, journaled)
})

t.test('GET /gui/challenges/{guid}/hunt: null for a session that is no hunt, 404 for none; GET, HEAD and OPTIONS only', async t => {
  const app = await build(t)
  const plain = await newSession(app)
  t.same((await app.inject({ method: 'GET', url: `/gui/challenges/${plain.guid}/hunt` })).json(), { hunt: null })
  t.match((await app.inject({ method: 'GET', url: `/gui/challenges/${plain.guid}` })).body, 'data-hunt="0"', 'its page: the refresh asks, and reloads if a hunt begins')
  t.match((await app.inject({ method: 'GET', url: `/gui/challenges/${plain.guid}` })).body, '<table id="requests">\n', 'its entry ids are left to style.css to hide')
  for (const url of ['/gui/challenges/not-a-live-one/hunt', '/gui/challenges//hunt']) {
    const missing = await app.inject({ method: 'GET', url })
    t.equal(missing.statusCode, 404, url)
  }
  t.same(errorMessages(await app.inject({ method: 'GET', url: '/gui/challenges/not-a-live-one/hunt' })), ['No live session "not-a-live-one"'])
  t.equal((await app.inject({ method: 'HEAD', url: `/gui/challenges/${plain.guid}/hunt` })).statusCode, 200)
  t.equal((await app.inject({ method: 'OPTIONS', url: `/gui/challenges/${plain.guid}/hunt` })).headers.allow, 'GET, HEAD, OPTIONS')
  t.equal((await app.inject({ method: 'POST', url: `/gui/challenges/${plain.guid}/hunt` })).statusCode, 405)
  t.notMatch((await app.inject({ method: 'GET', url: '/docs/json' })).body, '/hunt"', 'not in the learners\' API document')

  // A hunt begun with POST /challenger {"hunt": true}: none found yet.
  const made = await app.inject({ method: 'POST', url: '/challenger', payload: { hunt: true } })
  const guid = made.headers['x-challenger'] as string
  const html = (await app.inject({ method: 'GET', url: `/gui/challenges/${guid}` })).body
  t.match(html, '<h2 id="hunt-title">Bug hunt: 0 of 3 found</h2>')
  t.match(html, '<p id="hunt-none">None found yet.</p>')
  const hidden = (await app.inject({ method: 'GET', url: `/gui/challenges/${guid}/hunt` })).json()
  t.same(hidden, { hunt: { hidden: 3, found: [] } })
  for (const defect of defects) t.notMatch(html, escapeHtml(defect.name), `${defect.id}: no defect named on a new hunt's page`)
})

t.test('in single-player mode there is no hunt; under a prefix, the hunt is the page\'s', async t => {
  const single = await build(t, { mode: 'single' })
  t.equal((await single.inject({ method: 'POST', url: '/challenger', payload: { hunt: true } })).statusCode, 409)
  t.same((await single.inject({ method: 'GET', url: '/gui/challenges/anything/hunt' })).json(), { hunt: null }, 'the one session is none')
  const { default: Fastify } = await import('fastify')
  const { default: app } = await import('../../src/app.js')
  const host = Fastify()
  await host.register(app, { prefix: '/practice' })
  t.teardown(() => host.close())
  const guid = (await host.inject({ method: 'POST', url: '/practice/challenger', payload: { hunt: true } })).headers['x-challenger'] as string
  t.same((await host.inject({ method: 'GET', url: `/practice/gui/challenges/${guid}/hunt` })).json().hunt?.found, [])
  t.equal(commands((await host.inject({ method: 'GET', url: `/practice/gui/challenges/${guid}`, headers: { host: 'h' } })).body)[0],
    `curl -i -X POST http://h/practice/challenger/${guid}/findings -H 'Content-Type: application/json' -d '{"entry": "<entry id>"}'`)
})

t.test('the landing page says how many challenges there are, and what comes after its three', async t => {
  const app = await build(t)
  const html = (await app.inject({ method: 'GET', url: '/' })).body
  t.match(html, `pass\n<strong id="challenge-count">${challenges.length}</strong> numbered challenges`, 'the catalogue\'s count')
  const steps = [...html.matchAll(/<li>([^:]*) \(challenge (\d\d)\):/g)].map(match => [match[1], match[2]])
  t.same(steps, [['Create a session', '01'], ['Get a token', '30'], ['Write your secret note', '34']])
  t.same(steps.map(([, id]) => challenges.find(c => c.id === Number(id))?.name), ['POST /challenger (201)', 'POST /secret/token (201)', 'POST /secret/note (200)'],
    'the ids are the catalogue\'s for those requests')
  const then = html.slice(html.indexOf('<h2>Then</h2>'), html.indexOf('<h2>Your progress</h2>'))
  t.match(then, `That is 3 of the ${challenges.length} challenges. The other ${challenges.length - 3} `)
  t.match(then, 'are on your progress page: enter your session id below')
})

t.test('the progress page fills in this server and the session id, and links each challenge to its solution', async t => {
  const app = await build(t)
  const me = await newSession(app)
  const html = (await app.inject({ method: 'GET', url: `/gui/challenges/${me.guid}`, headers: { host: 'class.example:8080' } })).body
  const hints = commands(html)
  t.equal(hints.length, challenges.length, 'one request per challenge')
  t.notMatch(hints.join('\n'), 'your session id', 'no session id placeholder left')
  t.match(hints.join('\n'), '<your token>', 'the token stays a placeholder')
  challenges.forEach((c, at) => {
    t.equal(hints[at], c.hint.replace(/^([A-Z]+) \//, '$1 http://class.example:8080/').replaceAll('<your session id>', me.guid), `challenge ${c.id}`)
  })
  t.equal(hints[5], `GET http://class.example:8080/heartbeat\nX-CHALLENGER: ${me.guid}`)

  const links = [...html.matchAll(/<tr data-id="(\d+)"[^]*?<a class="solution" href="([^"]*)" rel="([^"]*)" aria-label="([^"]*)">([^<]*)<\/a><\/td>/g)]
  t.same(links.map(link => Number(link[1])), challenges.map(c => c.id), 'one link in each challenge\'s row')
  t.same(links.map(link => link[2]), challenges.map(c => `${SOLUTIONS_BASE}${c.solution}`), 'to the reference\'s solution page')
  t.equal(links[0]?.[2], 'https://apichallenges.com/apichallenges/solutions/create-session/post-challenger-201')
  t.same(new Set(links.map(link => link[3])), new Set(['external noopener noreferrer']))
  t.equal(links[0]?.[4], 'solution to challenge 01, on apichallenges.com (leaves this site)')
  t.same(new Set(links.map(link => link[5])), new Set(['solution ↗']))
  t.match((await app.inject({ method: 'GET', url: '/gui/challenges' })).body, /class="solution"/, 'on the page without a session too')

  const none = (await app.inject({ method: 'GET', url: '/gui/challenges/not-a-live-one' })).body
  t.equal(commands(none)[5], 'GET http://localhost:80/heartbeat\nX-CHALLENGER: <your session id>', 'no live session: the placeholder stays')
})

t.test('with solutionLinks off, no page links to a solution', async t => {
  const app = await build(t, { solutionLinks: false })
  const me = await newSession(app)
  for (const url of [`/gui/challenges/${me.guid}`, '/gui/challenges', '/']) {
    const html = (await app.inject({ method: 'GET', url })).body
    t.notMatch(html, /solution|apichallenges\.com/, url)
  }
  t.equal(commands((await app.inject({ method: 'GET', url: `/gui/challenges/${me.guid}` })).body).length, challenges.length, 'the rest of the page is there')
})

t.test('GET /admin, its script and stylesheet exist only with an admin token', async t => {
  const app = await build(t)
  for (const url of ['/admin', '/gui/admin.js', '/gui/admin.css', '/gui/name.js']) {
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
  t.match(board.body, '<script type="module" src="/gui/admin.js"></script>')
  t.match(board.body, '<link rel="stylesheet" href="/gui/style.css"><link rel="stylesheet" href="/gui/admin.css">')
  t.notMatch(board.body, /<script>|<script [^>]*>[^<]/, 'no inline script')
  t.notMatch(board.body, /\sstyle=|<style/, 'no inline style')
  t.notMatch(board.body, /Ada Lovelace/, 'no learner\'s data in the page itself')
  t.notMatch(board.body, token, 'nor the token')
  t.match(board.body, '<input id="token" type="password" autocomplete="off" spellcheck="false" required>', 'the token\'s input has no name=, so a submit without the script puts nothing in the URL')
  t.match(board.body, '<div id="admin" data-base="" data-token-key="api-challenges admin token" data-refresh-ms="5000" data-page="250" data-cap="1000">',
    'the script\'s settings are the server\'s')

  const script = await app.inject({ method: 'GET', url: '/gui/admin.js' })
  t.equal(script.statusCode, 200, 'the script needs no token')
  t.equal(script.headers['content-type'], 'text/javascript; charset=utf-8')
  t.equal(script.headers['content-security-policy'], board.headers['content-security-policy'])
  t.equal(script.body, guiFile('admin.js'))
  const style = await app.inject({ method: 'GET', url: '/gui/admin.css' })
  t.equal(style.headers['content-type'], 'text/css; charset=utf-8')
  t.equal(style.body, guiFile('admin.css'))

  t.equal((await app.inject({ method: 'HEAD', url: '/admin' })).statusCode, 200)
  const options = await app.inject({ method: 'OPTIONS', url: '/admin' })
  t.equal(options.headers.allow, 'GET, HEAD, OPTIONS')
  t.equal((await app.inject({ method: 'POST', url: '/admin' })).statusCode, 405)
  const document = await app.inject({ method: 'GET', url: '/docs/json' })
  t.notMatch(document.body, /"\/admin"|admin\.js/, 'the page is not in the learners\' API document')
})

t.test('the board\'s script and the refresh script insert text, never markup, and send the token only as a header', async t => {
  const scripts = readdirSync(GUI).filter(name => name.endsWith('.js'))
  t.same(scripts.sort(), ['admin.js', 'name.js', 'projector.js', 'refresh.js', 'restore.js'])
  for (const name of scripts) {
    t.notMatch(guiFile(name), /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/, `${name} builds no markup from text`)
    t.match(guiFile(name), /^\/\/ @ts-check\n/, `${name} is type-checked (tsconfig.web.json)`)
  }
  const board = guiFile('admin.js')
  t.match(board, "headers: { Authorization: 'Bearer ' + used")
  t.match(board, 'const KEY = settings.tokenKey ?? \'\'\nconst EVERY = Number(settings.refreshMs)\nconst PAGE = Number(settings.page)\nconst CAP = Number(settings.cap)\n',
    'its settings are the page\'s')
  const here = { url: 'http://localhost/', qr: null, loopback: false }
  t.match(adminPage('', here), `data-token-key="${TOKEN_KEY}" data-refresh-ms="${BOARD_REFRESH_MS}" data-page="${BOARD_PAGE}" data-cap="${BOARD_CAP}"`)
  t.equal(BOARD_REFRESH_MS, 5000, 'the board refreshes every 5 s')
  t.equal(BOARD_CAP % BOARD_PAGE, 0, 'the cap is a whole number of pages')
  t.ok(BOARD_PAGE <= MAX_PAGE, 'a page the API gives')
  t.match(adminPage('/p"><x', here), '<div id="admin" data-base="/p&quot;&gt;&lt;x" ', 'the prefix is escaped')
})

t.test('under a prefix the board\'s page, script and stylesheet are under it', async t => {
  const { default: Fastify } = await import('fastify')
  const { default: app } = await import('../../src/app.js')
  const host = Fastify()
  await host.register(app, { prefix: '/practice', adminToken: 'a-board-token-for-the-test' })
  t.teardown(() => host.close())
  const board = await host.inject({ method: 'GET', url: '/practice/admin' })
  t.equal(board.statusCode, 200)
  t.match(board.body, '<div id="admin" data-base="/practice" ')
  t.match(board.body, 'src="/practice/gui/admin.js"')
  t.match(board.body, 'href="/practice/gui/admin.css"')
  t.equal((await host.inject({ method: 'GET', url: '/practice/gui/admin.js' })).statusCode, 200)
  t.equal((await host.inject({ method: 'GET', url: '/admin' })).statusCode, 404, 'not at the root')
})

t.test('every file of public/gui/ answers as it is, with its type, the pages\' CSP and five minutes\' caching; the board\'s only with a class board', async t => {
  const files = readdirSync(GUI).sort()
  t.same(files, ['admin.css', 'admin.js', 'icon.svg', 'name.js', 'projector.css', 'projector.js', 'refresh.js', 'restore.js', 'style.css'])
  const app = await build(t, { adminToken: 'a-board-token-for-the-test' })
  const without = await build(t)
  for (const name of files) {
    const url = `/gui/${name}`
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 200, url)
    t.equal(res.body, guiFile(name), `${url}: the file as it is`)
    t.equal(res.headers['content-type'], FILE_TYPES[name.slice(name.lastIndexOf('.'))], `${url}: its type`)
    t.equal(res.headers['content-length'], String(Buffer.byteLength(guiFile(name))))
    t.equal(res.headers['cache-control'], 'max-age=300', `${url}: cached five minutes, as before`)
    t.equal(res.headers['content-security-policy'],
      "default-src 'none';style-src 'self';script-src 'self';connect-src 'self';img-src 'self';form-action 'self';base-uri 'none';frame-ancestors 'none'")
    t.equal(res.headers['x-content-type-options'], 'nosniff')
    t.same([res.headers.etag, res.headers['last-modified'], res.headers['accept-ranges']], [undefined, undefined, undefined], `${url}: no validators, no ranges`)
    const head = await app.inject({ method: 'HEAD', url })
    t.same([head.statusCode, head.body, head.headers['content-length']], [200, '', res.headers['content-length']], `${url}: HEAD`)
    t.equal((await app.inject({ method: 'OPTIONS', url })).headers.allow, 'GET, HEAD, OPTIONS')
    t.equal((await app.inject({ method: 'DELETE', url })).statusCode, 405)
    t.equal((await without.inject({ method: 'GET', url })).statusCode, BOARD_FILES.includes(name) ? 404 : 200, `${url} without a class board`)
  }
  for (const url of ['/gui/', '/gui/nope.js', '/gui/../package.json', '/gui/%2e%2e/package.json', '/gui/style.css/x']) {
    t.equal((await app.inject({ method: 'GET', url })).statusCode, 404, `${url}: nothing else`)
  }
})

t.test('the pages\' files are found beside routes/ in the repository and beside dist/ once built, or the service says where it looked', async t => {
  t.equal(guiFolder(new URL('../../routes/pages.ts', import.meta.url).href), GUI, 'the repository')
  t.equal(guiFolder(new URL('../../dist/routes/pages.js', import.meta.url).href), GUI, 'the build, and the installed package')
  t.throws(() => guiFolder('file:///nowhere/routes/pages.js'), { message: "api-challenges: the pages' files are missing: neither /nowhere/public/gui/ nor /public/gui/ exists" })
})

t.test('a host with its own @fastify/static (reply.sendFile and a /gui/ of its own) mounts the service beside it, each serving its files', async t => {
  const { default: Fastify } = await import('fastify')
  const { default: fastifyStatic } = await import('@fastify/static')
  const { default: app } = await import('../../src/app.js')
  const host = Fastify()
  const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url))
  await host.register(fastifyStatic, { root: fixtures, prefix: '/gui/' })
  host.get('/sent', async (_request, reply) => reply.sendFile('crash-on-input.ts'))
  await host.register(app, { prefix: '/practice', adminToken: 'a-board-token-for-the-test' })
  t.teardown(() => host.close())
  for (const name of ['style.css', 'admin.js']) {
    const ours = await host.inject({ method: 'GET', url: `/practice/gui/${name}` })
    t.same([ours.statusCode, ours.body], [200, guiFile(name)], `the service's /practice/gui/${name}`)
    t.equal(ours.headers['cache-control'], 'max-age=300')
  }
  t.equal((await host.inject({ method: 'GET', url: '/sent' })).body, readFileSync(`${fixtures}crash-on-input.ts`, 'utf8'), 'the host\'s reply.sendFile')
  t.equal((await host.inject({ method: 'GET', url: '/gui/crash-on-input.ts' })).statusCode, 200, 'the host\'s own /gui/')
  t.equal((await host.inject({ method: 'GET', url: '/gui/style.css' })).statusCode, 404, 'which has only its own files')
  t.equal((await host.inject({ method: 'GET', url: '/practice/docs' })).statusCode, 200, 'and Swagger UI, with its own @fastify/static')
})
