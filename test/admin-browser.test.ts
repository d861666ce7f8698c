// The class board (GET /admin) and the progress page's name form in a real headless chromium
// (Debian's, driven by playwright-core): the instructor enters the token once, sees every learner,
// and watches a learner's row move when that learner passes a challenge over HTTP, without a reload;
// a wrong or forgotten token asks again; names are shown as text on both pages; the board fits at
// 1280 px and at 375 px. Every asset must load, and nothing may be refused by the
// Content-Security-Policy or logged as an error. Screenshots go to BOARD_SCREENSHOT_DIR (or the
// temporary directory).
import type { FastifyInstance } from 'fastify'
import { readFileSync, statSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import type { Test } from 'tap'
import { challenges } from '../src/domain/challenges/catalogue.js'
import { MemoryStore } from '../src/domain/sessions/memory-store.js'
import { TOKEN_KEY } from '../src/domain/pages/admin-page.js'
import { createServer } from '../src/server.js'
import { chromiumTest, failure, launch, openPage } from './chromium.js'

const TOKEN = 'class-board-token-0123456789'
const XSS = '<img src=x onerror=alert(1)>'
const SHOTS = process.env.BOARD_SCREENSHOT_DIR ?? tmpdir()

async function listen (t: Test, server: FastifyInstance): Promise<string> {
  t.teardown(() => server.close())
  await server.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`
}

interface Watched {
  page: Page
  /** The page's own files (the page, its script, stylesheets, icon) answered with 400 or more. */
  refused: string[]
  /** CSP violations, console errors, script errors and requests that got no answer. */
  problems: string[]
}

/** A page that records refused assets, CSP violations and every console or script error. */
async function watchedPage (t: Test, browser: Browser, width: number, height: number): Promise<Watched> {
  const page = await openPage(t, browser, { viewport: { width, height } })
  const watched: Watched = { page, refused: [], problems: [] }
  page.on('response', response => {
    const path = new URL(response.url()).pathname
    // The API's answers are judged by the test itself (a wrong token is a 403 on purpose).
    if (response.status() >= 400 && (path === '/admin' || path.startsWith('/gui/'))) watched.refused.push(`${response.status()} ${path}`)
  })
  await page.exposeFunction('reportViolation', (text: string) => { watched.problems.push(text) })
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', event => {
      (window as unknown as { reportViolation: (text: string) => void })
        .reportViolation(`violation of ${event.violatedDirective} by ${event.blockedURI || 'inline'} at ${event.sourceFile}:${event.lineNumber}`)
    })
  })
  page.on('console', message => { if (message.type() === 'error') watched.problems.push(`console: ${message.text()}`) })
  page.on('pageerror', error => { watched.problems.push(`page error: ${error.message}`) })
  page.on('requestfailed', request => { const problem = failure(request); if (problem !== null) watched.problems.push(problem) })
  page.on('dialog', dialog => { watched.problems.push(`dialog: ${dialog.message()}`); dialog.dismiss().catch(() => {}) })
  return watched
}

/** A new session, named when `name` is given, as a learner makes it with curl. */
async function learner (base: string, name?: string): Promise<string> {
  const res = await fetch(`${base}/challenger`, name === undefined
    ? { method: 'POST' }
    : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) })
  if (res.status !== 201) throw new Error(`POST /challenger: ${res.status}`)
  return res.headers.get('x-challenger') as string
}

/** The learner rows as the instructor reads them: learner, progress, last seen, next. */
async function rows (page: Page): Promise<string[][]> {
  return await page.locator('#learners tbody tr').evaluateAll(trs => trs.map(tr => [...tr.children].map(td => (td.textContent ?? '').trim())))
}

async function fits (page: Page): Promise<{ scrollWidth: number, innerWidth: number }> {
  return await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }))
}

async function screenshot (t: Test, page: Page, name: string): Promise<void> {
  const path = join(SHOTS, `${name}-${process.pid}.png`)
  await page.screenshot({ path, fullPage: true })
  t.ok(statSync(path).size > 1000, `screenshot at ${path}`)
}

async function enterToken (page: Page, token: string): Promise<void> {
  await page.locator('#token').fill(token)
  await page.locator('#login button[type=submit]').click()
}

const total = challenges.length
const label = (id: number): string => `${String(id).padStart(2, '0')} ${challenges.find(c => c.id === id)?.name}`

chromiumTest('the class board and the name form in chromium', async t => {
  const browser = await launch(t)

  t.test('the instructor enters the token once and watches a learner pass a challenge', async t => {
    const base = await listen(t, createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { adminToken: TOKEN } }))
    // Ada first, so that the others are more recently active and she starts at the bottom.
    const ada = await learner(base, 'Ada')
    const mallory = await learner(base, XSS)
    const anon = await learner(base)

    const { page, refused, problems } = await watchedPage(t, browser, 1280, 800)
    await page.goto(`${base}/admin`)
    t.equal(await page.locator('#login').isVisible(), true, 'without a token the page asks for one')
    t.equal(await page.locator('#board').isVisible(), false, 'and shows no board')

    // A wrong token: the server says 403, the page says so and asks again.
    await enterToken(page, 'not-the-admin-token-at-all')
    await page.locator('#message').filter({ hasText: '403' }).waitFor()
    t.equal(await page.locator('#message').textContent(), 'The server refused that token (403): it is not this server\'s ADMIN_TOKEN. Enter it again.')
    t.equal(await page.locator('#login').isVisible(), true, 'the form is back')
    t.equal(await page.locator('#board').isVisible(), false)
    t.equal(await page.evaluate(key => sessionStorage.getItem(key), TOKEN_KEY), null, 'a refused token is not kept')
    // Chromium logs the refused fetches; nothing else may have gone wrong.
    t.same(new Set(problems), new Set(['console: Failed to load resource: the server responded with a status of 403 (Forbidden)']), 'chromium logged the 403s, and nothing else went wrong')
    problems.length = 0

    await page.evaluate(() => { (window as unknown as { notReloaded: boolean }).notReloaded = true })
    await enterToken(page, TOKEN)
    await page.locator('#learners tbody tr').nth(2).waitFor()
    t.equal(await page.locator('#login').isVisible(), false, 'the form is gone')
    t.equal(await page.locator('#message').isVisible(), false, 'and its message')
    t.equal(await page.locator('#token').inputValue(), '', 'the token is not left in its input')
    t.notMatch(await page.content(), TOKEN, 'nor anywhere in the page')
    t.notMatch(page.url(), TOKEN, 'nor in the URL')
    t.equal(await page.evaluate(key => sessionStorage.getItem(key), TOKEN_KEY), TOKEN, 'it is kept in sessionStorage')

    const first = await rows(page)
    t.same(first.map(row => row.slice(0, 2)), [
      [`unnamed ${anon.slice(0, 8)}`, `1 of ${total}`],
      [`${XSS}${mallory.slice(0, 8)}`, `1 of ${total}`],
      [`Ada${ada.slice(0, 8)}`, `1 of ${total}`]
    ], 'every learner, most recently active first, by name or short id, with N of M')
    t.same(first.map(row => row[4]), [label(2), label(2), label(2)], 'the next challenge is the first not passed')
    t.same(first.map(row => row[2]), ['', '', ''], 'no medal yet: the medals cell is empty')
    // Seconds after the learners' requests: "just now" on a quiet machine, some seconds on CI's loaded one.
    t.match(first.map(row => row[3]), [/^(just now|[1-5]?\d s ago)$/, /^(just now|[1-5]?\d s ago)$/, /^(just now|[1-5]?\d s ago)$/], 'last seen, relative, within the minute')
    t.equal(await page.locator('#learners tbody tr').nth(1).locator('strong').textContent(), XSS, 'a name that looks like markup is shown as text')
    t.equal(await page.locator('#learners img').count(), 0, 'and makes no element')
    t.notMatch(await page.content(), ada, 'the whole session id (a learner\'s secret) is not on the board')
    t.equal(await page.locator('#live').textContent(), '3')
    t.equal(await page.locator('#active').textContent(), '3')
    t.equal(await page.locator('#learner-count').textContent(), '(3)')
    t.equal(await page.locator('#more').isVisible(), false, 'no "more" note under the cap')
    t.equal(await page.locator('#challenge-bars tbody tr').count(), total, 'a bar per challenge')
    t.equal(await page.locator('#challenge-bars tr[data-id="1"] .count').textContent(), '3 of 3')
    t.equal(await page.locator('#challenge-bars tr[data-id="28"] .count').textContent(), '0 of 3')
    t.equal(await page.locator('#learners tbody tr').nth(2).locator('progress').evaluate(bar => [(bar as HTMLProgressElement).value, (bar as HTMLProgressElement).max].join(' of ')), `1 of ${total}`, 'the progress bar')

    // The learner passes challenge 28 with their own request; the board catches up by itself.
    t.equal((await fetch(`${base}/heartbeat`, { headers: { 'x-challenger': ada } })).status, 204)
    await page.waitForFunction(() => document.querySelector('#learners tbody tr .count')?.textContent?.trim().startsWith('2 of'))
    const moved = await rows(page)
    t.same(moved[0]?.slice(0, 2), [`Ada${ada.slice(0, 8)}`, `2 of ${total}`], 'Ada\'s row moved to the top, one more passed')
    t.same(moved.map(row => row[0]), [`Ada${ada.slice(0, 8)}`, `unnamed ${anon.slice(0, 8)}`, `${XSS}${mallory.slice(0, 8)}`])
    t.equal(await page.locator('#challenge-bars tr[data-id="28"] .count').textContent(), '1 of 3', 'challenge 28\'s bar moved too')
    t.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'without a reload')

    const saved = await (await fetch(`${base}/challenger/${ada}`)).json() as { name: string, challengeStatus: Record<string, boolean> }
    t.equal(saved.name, 'Ada')
    t.same(Object.keys(saved.challengeStatus).filter(id => saved.challengeStatus[id]).sort(), ['01', '28'], 'the board\'s requests passed nothing')

    const wide = await fits(page)
    t.ok(wide.scrollWidth <= wide.innerWidth, `no horizontal scroll at 1280 px (${wide.scrollWidth} <= ${wide.innerWidth})`)
    await screenshot(t, page, 'board-1280')

    await page.setViewportSize({ width: 375, height: 740 })
    const narrow = await fits(page)
    t.ok(narrow.scrollWidth <= narrow.innerWidth, `no horizontal scroll at 375 px (${narrow.scrollWidth} <= ${narrow.innerWidth})`)
    t.equal(await page.locator('#learners tbody tr').first().evaluate(tr => getComputedStyle(tr).display), 'grid', 'a card per learner on a phone')
    t.equal(await page.locator('#learners tbody tr').first().locator('.seen').evaluate(td => getComputedStyle(td, '::before').content), '"last seen: "', 'with its labels')
    await screenshot(t, page, 'board-375')

    // A reload keeps the token (this tab's sessionStorage); "Forget the token" asks again.
    await page.reload()
    await page.locator('#learners tbody tr').nth(2).waitFor()
    t.equal(await page.locator('#login').isVisible(), false, 'after a reload the board shows without asking')
    await page.locator('#forget').click()
    t.equal(await page.locator('#login').isVisible(), true, 'forgotten: the form is back')
    t.equal(await page.locator('#message').textContent(), 'The token is forgotten in this tab.')
    t.equal(await page.locator('#board').isVisible(), false)
    t.equal(await page.evaluate(key => sessionStorage.getItem(key), TOKEN_KEY), null)

    t.same(refused, [], 'the page and its files answered below 400')
    t.same(problems, [], 'nothing refused by the CSP, no console or script error, no alert')
  })

  t.test('the board shows each learner\'s bug hunt, found of hidden, and catches up with a finding', async t => {
    const store = new MemoryStore({})
    const base = await listen(t, createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { adminToken: TOKEN, store } }))
    await learner(base, 'Plain')
    const hunter = await store.create('Hunter', 1, { hidden: ['note-write-201', 'no-www-authenticate', 'heartbeat-200'], found: ['heartbeat-200'] })
    const { page, refused, problems } = await watchedPage(t, browser, 1280, 800)
    await page.goto(`${base}/admin`)
    await enterToken(page, TOKEN)
    await page.locator('#learners tbody tr').nth(1).waitFor()
    t.equal(await page.locator('#learners thead th').nth(2).textContent(), 'medals')
    t.equal(await page.locator('#learners thead th').nth(5).textContent(), 'bug hunt')
    t.same((await rows(page)).map(row => [row[0]?.replace(/\w{8}$/, ''), row[5]]), [['Hunter', '1/3'], ['Plain', '']], 'found/hidden for the hunt, empty for the other')

    // Hunter reports the note's write, which the hidden note-write-201 answered 201.
    t.equal((await fetch(`${base}/secret/note`, { method: 'POST', headers: { 'x-challenger': hunter.guid, 'x-auth-token': hunter.token, 'content-type': 'application/json' }, body: '{"note":"x"}' })).status, 201)
    const entry = (await (await fetch(`${base}/challenger/${hunter.guid}/requests`)).json() as { requests: Array<{ id: string }> }).requests[0]?.id
    t.equal((await (await fetch(`${base}/challenger/${hunter.guid}/findings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ entry }) })).json() as { verdict: string }).verdict, 'found')
    await page.locator('#learners tbody tr .hunt', { hasText: '2/3' }).waitFor()
    t.equal(await page.locator('#learners tbody tr').first().locator('.hunt').textContent(), '2/3', 'without a reload')

    await page.setViewportSize({ width: 375, height: 740 })
    t.equal(await page.locator('#learners tbody tr').first().locator('.hunt').evaluate(td => getComputedStyle(td, '::before').content), '"bug hunt: "', 'labelled on a phone\'s card')
    t.equal(await page.locator('#learners tbody tr').nth(1).locator('.hunt').isVisible(), false, 'and no empty line for a learner who is not hunting')
    const narrow = await fits(page)
    t.ok(narrow.scrollWidth <= narrow.innerWidth, `no horizontal scroll at 375 px (${narrow.scrollWidth} <= ${narrow.innerWidth})`)
    t.same(refused, [])
    t.same(problems, [])
  })

  t.test('past 1,000 learners the board shows the 1,000 most recently active and says so', async t => {
    const store = new MemoryStore({})
    for (let i = 0; i < 1001; i++) await store.create(i === 0 ? 'the oldest' : undefined)
    const base = await listen(t, createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { adminToken: TOKEN, store } }))
    const { page, refused, problems } = await watchedPage(t, browser, 1280, 800)
    const sessionPages: string[] = []
    page.on('request', request => { if (new URL(request.url()).pathname === '/admin/sessions') sessionPages.push(new URL(request.url()).search) })
    await page.goto(`${base}/admin`)
    await enterToken(page, TOKEN)
    await page.locator('#more').waitFor()
    t.equal(await page.locator('#more').textContent(), 'Showing the 1000 most recently active of 1001 learners; Download CSV, below, has them all.')
    t.equal(await page.locator('#learners tbody tr').count(), 1000)
    t.equal(await page.locator('#learners .name').count(), 0, 'the oldest, the only one named, is the one left out')
    t.equal(await page.locator('#learner-count').textContent(), '(1001)')
    t.equal(sessionPages.length, 4, 'four pages of 250, by the cursor')
    t.match(sessionPages[0], /^\?limit=250$/)
    t.match(sessionPages[3], /^\?limit=250&cursor=./)

    // Download CSV: every learner, in a file saved from the page, the token in no URL.
    const urls: string[] = []
    page.on('request', request => { urls.push(request.url()) })
    t.match(await page.locator('#board .note').textContent(), /full session ids: like passwords/, 'the page says what the file holds')
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#download').click()])
    t.match(download.suggestedFilename(), /^learners-\d{4}-\d\d-\d\d\.csv$/)
    const saved = readFileSync(await download.path(), 'utf8')
    const lines = saved.split('\r\n')
    t.equal(lines[0]?.startsWith('"guid","name","createdAt","lastSeen","passed"'), true, 'one header line')
    t.equal(lines.filter(line => line.startsWith('"guid"')).length, 1, 'and only one, over two pages')
    t.equal(lines.length, 1 + 1001 + 1, 'a row for each of the 1001 learners (and the CRLF after the last)')
    t.match(saved, /"the oldest"/, 'the one the board leaves out too')
    t.equal(urls.filter(url => new URL(url).pathname === '/admin/sessions' && new URL(url).searchParams.get('limit') === '1000').length, 2, 'two pages of 1000, by the Link header')
    t.notOk(urls.some(url => url.includes(TOKEN)), 'the token is in no URL')
    t.equal(await page.locator('#download-status').textContent(), '')
    t.same(refused, [])
    t.same(problems, [])
  })

  t.test('a learner names their session on the progress page', async t => {
    const base = await listen(t, createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { adminToken: TOKEN } }))
    const guid = await learner(base)
    const { page, refused, problems } = await watchedPage(t, browser, 1280, 800)
    await page.goto(`${base}/gui/challenges/${guid}`)
    t.equal(await page.locator('#name-line').isVisible(), false, 'no name yet')

    await page.locator('#name').fill('  Grace Hopper ')
    await page.locator('#name-form button').click()
    await page.locator('#name-result', { hasText: 'Saved.' }).waitFor()
    t.equal(await page.locator('#current-name').textContent(), 'Grace Hopper', 'the page shows the name as kept (trimmed)')
    t.equal(await page.locator('#name-line').isVisible(), true)
    t.equal(await page.locator('#name').inputValue(), 'Grace Hopper')
    const saved = await (await fetch(`${base}/challenger/${guid}`)).json() as { name: string }
    t.equal(saved.name, 'Grace Hopper', 'GET /challenger/{guid} has it')

    // Spaces only: the server's 400 message, and the name stays.
    await page.locator('#name').fill('   ')
    await page.locator('#name-form button').click()
    await page.locator('#name-result.error').waitFor()
    t.equal(await page.locator('#name-result').textContent(), 'Not saved: Invalid request: name must not be empty (or only spaces)')
    t.equal(await page.locator('#current-name').textContent(), 'Grace Hopper')
    t.same(problems, ['console: Failed to load resource: the server responded with a status of 400 (Bad Request)'], 'chromium logged the 400, and nothing else went wrong')
    problems.length = 0

    // A name that looks like markup is saved and shown as text, now and after a reload.
    await page.locator('#name').fill(XSS)
    await page.locator('#name-form button').click()
    await page.locator('#name-result:not(.error)', { hasText: 'Saved.' }).waitFor()
    t.equal(await page.locator('#current-name').textContent(), XSS)
    await page.reload()
    t.equal(await page.locator('#current-name').textContent(), XSS, 'the server-rendered page shows it as text')
    t.equal(await page.locator('#name').inputValue(), XSS)
    t.equal(await page.locator('img').count(), 0, 'no element made from it')
    t.equal((await (await fetch(`${base}/challenger/${guid}`)).json() as { name: string }).name, XSS)

    await page.setViewportSize({ width: 375, height: 740 })
    t.equal(await page.locator('#name-form').evaluate(form => form.scrollWidth <= form.clientWidth), true, 'the form fits on a phone')
    await screenshot(t, page, 'name-form')
    t.same(refused, [])
    t.same(problems, [], 'nothing refused by the CSP, no console or script error')
  })
})
