// A bug hunt on the progress page in a real headless chromium (Debian's, driven by playwright-core):
// the learner sees "1 of 3 found" and the found defect, copies an entry id from the page with a
// click, reports it with a request of their own, and the page shows the defect found without a
// reload; the finding that completes a hunt shows as complete on the page and the class board, without a
// reload; single-player mode refuses a hunt. Nothing may be refused by the Content-Security-Policy or logged as an error.
import type { AddressInfo } from 'node:net'
import type { Page } from 'playwright-core'
import type { Test } from 'tap'
import { defectById } from '../src/domain/defects/catalogue.js'
import { MemoryStore } from '../src/domain/sessions/memory-store.js'
import { createServer } from '../src/server.js'
import { chromiumTest, failure, launch, openPage } from './chromium.js'

const HIDDEN = ['note-write-201', 'no-www-authenticate', 'heartbeat-200']

/** A page that records CSP violations, script and console errors and failed requests in `problems`. */
async function watched (t: Test, browser: Awaited<ReturnType<typeof launch>>, problems: string[]): Promise<Page> {
  const page = await openPage(t, browser, { viewport: { width: 1280, height: 900 } })
  await page.exposeFunction('reportViolation', (text: string) => { problems.push(text) })
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', event => {
      (window as unknown as { reportViolation: (text: string) => void }).reportViolation(`violation of ${event.violatedDirective} by ${event.blockedURI || 'inline'}`)
    })
  })
  page.on('pageerror', error => { problems.push(`page error: ${error.message}`) })
  page.on('console', message => { if (message.type() === 'error') problems.push(`console: ${message.text()}`) })
  page.on('requestfailed', request => { const problem = failure(request); if (problem !== null) problems.push(problem) })
  return page
}

chromiumTest('a bug hunt on the progress page', async t => {
  const store = new MemoryStore({})
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store } })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const browser = await launch(t)

  t.test('the learner copies an entry id from the page, reports it, and sees the defect found', async t => {
    const { guid, token } = await store.create(undefined, 1, { hidden: HIDDEN, found: ['heartbeat-200'] })
    const problems: string[] = []
    const page = await watched(t, browser, problems)
    await page.goto(`${base}/gui/challenges/${guid}`)
    t.equal(await page.locator('#hunt-title').textContent(), 'Bug hunt: 1 of 3 found')
    t.same(await page.locator('#hunt-found li strong').allTextContents(), [defectById('heartbeat-200')?.name])
    t.equal(await page.locator('#hunt-none').isVisible(), false)
    t.match(await page.locator('#hunt pre.command').textContent(), `curl -i -X POST ${base}/challenger/${guid}/findings`)
    const text = await page.locator('main').textContent() ?? ''
    for (const id of ['note-write-201', 'no-www-authenticate']) t.notMatch(text, defectById(id)?.name as string, `${id} is not named`)
    await page.evaluate(() => { (window as unknown as { notReloaded: boolean }).notReloaded = true })

    // The note's write answers 201: the hidden note-write-201. Its row comes in with its entry id.
    const write = await fetch(`${base}/secret/note`, { method: 'POST', headers: { 'x-challenger': guid, 'x-auth-token': token, 'content-type': 'application/json' }, body: '{"note":"hi"}' })
    t.equal(write.status, 201)
    await page.waitForFunction(() => document.querySelector('#requests tbody tr td:nth-child(2)')?.textContent === 'POST /secret/note')
    const cell = page.locator('#requests tbody tr').first().locator('.entry-id code')
    t.equal(await cell.isVisible(), true, 'a hunt shows the entry ids')
    t.equal(await page.locator('#requests thead .entry-id').textContent(), 'entry id')
    // One click selects the whole id, to copy; a refresh with nothing new keeps the selection.
    await cell.click()
    const copied = await page.evaluate(() => String(window.getSelection()))
    const journal = await (await fetch(`${base}/challenger/${guid}/requests`)).json() as { requests: Array<{ id: string }> }
    t.equal(copied, journal.requests[0]?.id, 'the click selected the newest entry\'s id')
    await page.waitForResponse(res => res.url().endsWith('/requests'))
    await page.waitForResponse(res => res.url().endsWith('/hunt'))
    t.equal(await page.evaluate(() => String(window.getSelection())), copied, 'still selected after a refresh')

    const finding = await fetch(`${base}/challenger/${guid}/findings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ entry: copied }) })
    t.equal((await finding.json() as { verdict: string }).verdict, 'found')
    await page.locator('#hunt-title', { hasText: 'Bug hunt: 2 of 3 found' }).waitFor()
    t.same(await page.locator('#hunt-found li').evaluateAll(items => items.map(item => (item as HTMLElement).dataset.defect)), ['heartbeat-200', 'note-write-201'], 'in the order found')
    const found = defectById('note-write-201')
    t.same(await page.locator('#hunt-found li').nth(1).locator('p').allTextContents(), [`What was wrong: ${found?.breaks}`, `Why it matters: ${found?.why}`])
    t.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'without a reload')
    t.notMatch(await page.locator('main').textContent(), defectById('no-www-authenticate')?.name as string, 'the last one stays hidden')
    t.same(problems, [], 'nothing refused by the CSP, no console or script error')
  })

  t.test('the finding that completes a hunt: the progress page and the class board say so, without a reload', async t => {
    const TOKEN = 'class-board-token-0123456789'
    const hunts = new MemoryStore({})
    const server = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: hunts, adminToken: TOKEN } })
    t.teardown(() => server.close())
    await server.listen({ port: 0, host: '127.0.0.1' })
    const at = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`
    const { guid, token } = await hunts.create('Hunter', 1, { hidden: HIDDEN, found: ['heartbeat-200', 'no-www-authenticate'] })
    const problems: string[] = []
    const page = await watched(t, browser, problems)
    await page.goto(`${at}/gui/challenges/${guid}`)
    t.equal(await page.locator('#hunt-title').textContent(), 'Bug hunt: 2 of 3 found')
    t.equal(await page.locator('#hunt-complete').isVisible(), false, 'not over yet')
    const board = await watched(t, browser, problems)
    await board.goto(`${at}/admin`)
    await board.locator('#token').fill(TOKEN)
    await board.locator('#login button[type=submit]').click()
    const cell = board.locator('#learners tbody tr').first().locator('.hunt')
    await cell.waitFor()
    t.equal(await cell.textContent(), '2/3')
    await page.evaluate(() => { (window as unknown as { notReloaded: boolean }).notReloaded = true })

    // The last one: the note's write, answered 201 by the hidden note-write-201.
    t.equal((await fetch(`${at}/secret/note`, { method: 'POST', headers: { 'x-challenger': guid, 'x-auth-token': token, 'content-type': 'application/json' }, body: '{"note":"hi"}' })).status, 201)
    const journal = await (await fetch(`${at}/challenger/${guid}/requests`)).json() as { requests: Array<{ id: string }> }
    const finding = await (await fetch(`${at}/challenger/${guid}/findings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ entry: journal.requests[0]?.id }) })).json() as { found: number, complete: boolean }
    t.same([finding.found, finding.complete], [3, true], 'the finding\'s answer says the hunt is complete')
    await page.locator('#hunt-title', { hasText: 'Bug hunt complete: 3 of 3 found' }).waitFor()
    t.equal(await page.locator('#hunt-complete').isVisible(), true)
    t.match(await page.locator('#hunt-complete').textContent(), 'Every defect hidden in this session is found: the hunt is over.')
    t.equal(await page.locator('#medals li.medal[data-medal="hunter"]').evaluate(item => item.classList.contains('earned')), true, 'Bug Hunter earned')
    t.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'without a reload')
    await board.locator('#learners tbody tr .hunt', { hasText: '3/3 complete' }).waitFor()
    t.equal(await cell.textContent(), '3/3 complete', 'the board says so in words')
    t.equal(await cell.evaluate(td => td.classList.contains('complete')), true, 'and in colour')
    // The session's JSON, as the learner keeps it, says so too.
    t.same((await (await fetch(`${at}/challenger/${guid}`)).json() as { hunt: unknown }).hunt, { hidden: 3, found: ['heartbeat-200', 'no-www-authenticate', 'note-write-201'], complete: true })
    t.same(problems, [], 'nothing refused by the CSP, no console or script error')
  })

  t.test('single-player mode refuses a hunt with a 409, and its page shows none', async t => {
    const single = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { mode: 'single' } })
    t.teardown(() => single.close())
    await single.listen({ port: 0, host: '127.0.0.1' })
    const solo = `http://127.0.0.1:${(single.server.address() as AddressInfo).port}`
    const begun = await fetch(`${solo}/challenger`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"hunt": true}' })
    t.equal(begun.status, 409)
    t.match((await begun.json() as { errorMessages: string[] }).errorMessages[0], /^No bug hunt in single-player mode/)
    const problems: string[] = []
    const page = await watched(t, browser, problems)
    await page.goto(`${solo}/gui/challenges`)
    t.equal(await page.locator('#hunt').count(), 0, 'no hunt')
    t.same(problems, [], 'nothing refused by the CSP, no console or script error')
  })
})
