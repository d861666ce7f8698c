// Progress that survives, in a real headless chromium (Debian's, driven by playwright-core): the
// progress page keeps its session in localStorage and says so; when the session expires (the
// store's clock is moved by hand) it offers the kept copy back, one click restores it, and the
// reloaded page says it was restored, with the progress, token and note back. Several sessions
// share a browser; a session the browser never kept is not offered; the single-player page keeps
// nothing. No script error, and nothing refused by the Content-Security-Policy.
import type { AddressInfo } from 'node:net'
import type { Page } from 'playwright-core'
import type { Test } from 'tap'
import { challenges } from '../src/domain/challenges/catalogue.js'
import { MemoryStore } from '../src/domain/sessions/memory-store.js'
import { createServer } from '../src/server.js'
import { chromiumTest, launch, openPage } from './chromium.js'
import { fakeTime } from './clock.js'

const IDLE = 60_000
const KEY = 'api-challenges:session:'

/** A page that records script errors, console errors, failed loads and CSP violations in `problems` (but the 400 of the restore the test spoils on purpose). */
async function watched (t: Test, browser: Awaited<ReturnType<typeof launch>>, problems: string[]): Promise<Page> {
  const page = await openPage(t, browser, { viewport: { width: 1280, height: 900 } })
  await page.exposeFunction('reportViolation', (text: string) => { problems.push(text) })
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', event => {
      (window as unknown as { reportViolation: (text: string) => void }).reportViolation(`violation of ${event.violatedDirective} by ${event.blockedURI || 'inline'}`)
    })
  })
  page.on('pageerror', error => { problems.push(`page error: ${error.message}`) })
  // A failed load is judged by its URL below, not by its console line (which names none).
  page.on('console', message => { if (message.type() === 'error' && !message.text().startsWith('Failed to load resource: the server responded with a status of')) problems.push(`console: ${message.text()}`) })
  // The page's own refresh reads the journal (and its curl form) and the hunt every 2 s: one read can
  // meet the session the test has just expired (404). Any other failed load is a problem.
  page.on('response', response => {
    const refreshRead = /\/challenger\/[0-9a-f-]+\/requests(\?format=curl)?$|\/gui\/challenges\/[0-9a-f-]+\/hunt$/.test(response.url())
    if (response.status() >= 400 && response.status() !== 400 && !(response.status() === 404 && refreshRead)) problems.push(`${response.status()} ${response.url()}`)
  })
  return page
}

chromiumTest('progress that survives: kept in the browser, offered back when the session expired, restored with one click', async t => {
  const time = fakeTime()
  const store = new MemoryStore({ idleMs: IDLE, now: time.now, every: time.every })
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store, sessionIdleMs: IDLE } })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const browser = await launch(t)
  const problems: string[] = []
  const page = await watched(t, browser, problems)

  /** A session with challenges 01, 30, 28 and 34 passed and a note: a learner a few steps in. */
  const learner = async (note: string): Promise<{ guid: string, token: string }> => {
    const guid = (await fetch(`${base}/challenger`, { method: 'POST' })).headers.get('x-challenger') as string
    const token = (await fetch(`${base}/secret/token`, { method: 'POST', headers: { 'x-challenger': guid, authorization: `Basic ${Buffer.from('admin:password').toString('base64')}` } })).headers.get('x-auth-token') as string
    await fetch(`${base}/heartbeat`, { headers: { 'x-challenger': guid } })
    await fetch(`${base}/secret/note`, { method: 'POST', headers: { 'x-challenger': guid, 'x-auth-token': token, 'content-type': 'application/json' }, body: JSON.stringify({ note }) })
    return { guid, token }
  }
  const done = `4 of ${challenges.length}`
  /** What the page keeps for `guid`, as it keeps it. */
  const keptFor = async (guid: string): Promise<{ savedAt: string, session: Record<string, unknown> } | null> =>
    await page.evaluate(key => JSON.parse(localStorage.getItem(key) ?? 'null'), KEY + guid)
  const sessionAnswer = async (): Promise<unknown> => await (await page.waitForResponse(res => res.url().endsWith('/session'))).json()

  const ada = await learner('kept through the break')

  await t.test('the page keeps the session in the browser, and says so in plain words', async t => {
    await page.goto(`${base}/gui/challenges/${ada.guid}`)
    await page.locator('#kept').waitFor({ state: 'visible' })
    t.match(await page.locator('#kept').textContent(), /^Your progress is also kept in this browser/)
    const kept = await keptFor(ada.guid)
    t.same(kept?.session, (await (await fetch(`${base}/challenger/${ada.guid}`)).json()) as Record<string, unknown>, 'the JSON of GET /challenger/{guid}')
    t.equal(kept?.session.xAuthToken, ada.token)
    t.equal(kept?.session.secretNote, 'kept through the break')
    t.equal(await page.locator('#restore').isHidden(), true, 'nothing to restore while the session is live')
    // A change on the server is kept at the next read.
    await fetch(`${base}/secret/note`, { method: 'POST', headers: { 'x-challenger': ada.guid, 'x-auth-token': ada.token, 'content-type': 'application/json' }, body: '{"note":"kept through the break!"}' })
    await page.waitForFunction(key => JSON.parse(localStorage.getItem(key) ?? 'null')?.session?.secretNote === 'kept through the break!', KEY + ada.guid)
  })

  await t.test('the session expires: the page keeps its ticks and offers the kept copy back', async t => {
    time.advance(IDLE)
    await page.locator('#restore').waitFor({ state: 'visible' })
    t.match(await page.locator('#restore-text').textContent(), new RegExp(`^This session has expired\\. This browser kept it at .+: ${done} challenges done, its token and its note\\.`))
    // The refresh after the expiry leaves the ticks as they were.
    await page.waitForResponse(res => res.url().endsWith('/challenges'))
    await page.waitForResponse(res => res.url().endsWith('/challenges'))
    t.equal(await page.locator('#progress-text').textContent(), `${done} done`)
    t.equal(await page.locator('tr[data-id="28"] .status').textContent(), 'done')
    t.equal((await fetch(`${base}/secret/note`, { headers: { 'x-challenger': ada.guid, 'x-auth-token': ada.token } })).status, 401, 'the server has it no more')
  })

  await t.test('one click restores it, and the reloaded page says so, with the progress, token and note back', async t => {
    await Promise.all([page.waitForEvent('load'), page.locator('#restore-button').click()])
    await page.locator('#restored').waitFor({ state: 'visible' })
    t.equal(await page.locator('#restored').textContent(), `Restored: your session is back on the server, with ${done} challenges done, its token and its note.`)
    t.equal(await page.locator('#progress-text').textContent(), `${done} done`)
    t.equal(await page.locator('#restore').isHidden(), true)
    t.equal(await page.locator('#session-gone').count(), 0, 'the live page')
    const note = await fetch(`${base}/secret/note`, { headers: { 'x-challenger': ada.guid, 'x-auth-token': ada.token } })
    t.equal(note.status, 200, 'the same token works (and passes challenge 33)')
    t.same(await note.json(), { note: 'kept through the break!' })
    await page.reload()
    t.equal(await page.locator('#restored').isHidden(), true, 'said once: not again on the next load')
  })

  await t.test('opened after it expired, the page says so and offers the copy at once; the restore works again', async t => {
    time.advance(IDLE)
    await page.reload()
    t.match(await page.locator('#session-gone').textContent(), /^This session has expired: a session ends after 1 minute without a request\./)
    await page.locator('#restore').waitFor({ state: 'visible' })
    await Promise.all([page.waitForEvent('load'), page.locator('#restore-button').click()])
    await page.locator('#restored').waitFor({ state: 'visible' })
    t.match(await page.locator('#restored').textContent(), `with 5 of ${challenges.length} challenges done`)
    t.equal(await page.locator('#progress-text').textContent(), `5 of ${challenges.length} done`, 'challenge 33 too')
    t.equal(await page.locator('#requests').count(), 1, 'the whole live page, its journal included')
  })

  await t.test('several sessions share the browser, one entry each; a session the browser never kept is not offered', async t => {
    const grace = await learner('another learner')
    await page.goto(`${base}/gui/challenges/${grace.guid}`)
    await page.locator('#kept').waitFor({ state: 'visible' })
    t.equal((await keptFor(grace.guid))?.session.secretNote, 'another learner')
    t.equal((await keptFor(ada.guid))?.session.xChallenger, ada.guid, 'the first is still kept')
    t.same(await page.evaluate(prefix => Object.keys(localStorage).filter(key => key.startsWith(prefix)).length, KEY), 2)

    const stranger = await learner('never opened here')
    time.advance(IDLE)
    await page.goto(`${base}/gui/challenges/${stranger.guid}`)
    t.same(await sessionAnswer(), { session: null, expired: true })
    t.equal(await page.locator('#restore').isHidden(), true, 'nothing kept: nothing offered')
    t.equal(await page.locator('#kept').isHidden(), true, 'and the page does not claim to keep it')
    t.equal(await keptFor(stranger.guid), null)
  })

  await t.test('a restore the server refuses says why, and the button stays', async t => {
    await page.goto(`${base}/gui/challenges/${ada.guid}`)
    await page.locator('#restore').waitFor({ state: 'visible' })
    // The kept copy spoilt by hand: the server refuses it (400), and the page says the server's reason.
    await page.evaluate(key => {
      const kept = JSON.parse(localStorage.getItem(key) ?? '{}')
      kept.session.challengeStatus = { 99: true }
      localStorage.setItem(key, JSON.stringify(kept))
    }, KEY + ada.guid)
    await page.locator('#restore-button').click()
    await page.waitForFunction(() => document.getElementById('restore-result')?.textContent?.startsWith('Not restored: '))
    t.match(await page.locator('#restore-result').textContent(), /^Not restored: .*99/)
    t.equal(await page.locator('#restore-button').isEnabled(), true, 'to try again')
  })

  t.same(problems, [], 'no script error, nothing refused')
})

chromiumTest('the single-player page keeps nothing in the browser', async t => {
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { mode: 'single' } })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const browser = await launch(t)
  const page = await openPage(t, browser)
  await page.goto(`${base}/gui/challenges`)
  // Two refreshes of the page: anything it would keep is kept by then.
  await page.waitForResponse(res => res.url().endsWith('/challenges'))
  await page.waitForResponse(res => res.url().endsWith('/challenges'))
  t.same(await page.evaluate(() => [localStorage.length, sessionStorage.length]), [0, 0])
  t.equal(await page.locator('#kept').count(), 0)
})
