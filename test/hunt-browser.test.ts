// A bug hunt on the progress page in a real headless chromium (Debian's, driven by playwright-core):
// the learner sees "1 of 3 found" and the found defect, copies an entry id from the page with a
// click, reports it with a request of their own, and the page shows the defect found without a
// reload; a hunt begun on the session whose page is open shows by itself (the page reloads). Nothing may be refused by
// the Content-Security-Policy or logged as an error.
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

  t.test('a hunt begun on a session whose page is open shows by itself (single-player mode: POST /challenger {"hunt": true})', async t => {
    const single = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { mode: 'single' } })
    t.teardown(() => single.close())
    await single.listen({ port: 0, host: '127.0.0.1' })
    const solo = `http://127.0.0.1:${(single.server.address() as AddressInfo).port}`
    t.equal((await fetch(`${solo}/heartbeat`)).status, 204)
    const problems: string[] = []
    const page = await watched(t, browser, problems)
    await page.goto(`${solo}/gui/challenges`)
    t.equal(await page.locator('#hunt').count(), 0, 'no hunt yet')
    t.equal(await page.locator('#requests tbody tr').first().locator('.entry-id').isVisible(), false, 'nor entry ids')
    const begun = await fetch(`${solo}/challenger`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"hunt": true}' })
    t.equal(begun.status, 201, 'the one session, handed out')
    await page.locator('#hunt-title').waitFor()
    t.equal(await page.locator('#hunt-title').textContent(), 'Bug hunt: 0 of 3 found')
    t.equal(await page.locator('#hunt-none').isVisible(), true, 'none found yet')
    t.equal(await page.locator('#requests tbody tr').first().locator('.entry-id').isVisible(), true, 'the entry ids shown')
    t.same(problems, [], 'nothing refused by the CSP, no console or script error')
  })
})
