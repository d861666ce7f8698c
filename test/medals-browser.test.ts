// Issue 58 in a real headless chromium: the progress page's medals fill in as the learner works,
// without a reload; and neither the progress page nor Swagger UI ever meets the browser's login
// dialog, which chromium raises for a 401 with a Basic challenge (seen here through the DevTools
// protocol's Fetch.authRequired, which fires exactly where a person would get the dialog).
import type { AddressInfo } from 'node:net'
import type { Page } from 'playwright-core'
import type { Test } from 'tap'
import { MEDALS } from '../src/domain/challenges/medals.js'
import { createServer } from '../src/server.js'
import { chromiumTest, launch, openPage } from './chromium.js'

async function service (t: Test): Promise<string> {
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: {} })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
}

/** Every login dialog chromium would show on `page` (each cancelled), by the URL that asked. */
async function loginDialogs (page: Page): Promise<string[]> {
  const asked: string[] = []
  const cdp = await page.context().newCDPSession(page)
  cdp.on('Fetch.requestPaused', event => { cdp.send('Fetch.continueRequest', { requestId: event.requestId }).catch(() => {}) })
  cdp.on('Fetch.authRequired', event => {
    asked.push(`${event.request.method} ${new URL(event.request.url).pathname}: ${event.authChallenge.scheme}`)
    cdp.send('Fetch.continueWithAuth', { requestId: event.requestId, authChallengeResponse: { response: 'CancelAuth' } }).catch(() => {})
  })
  await cdp.send('Fetch.enable', { handleAuthRequests: true })
  return asked
}

chromiumTest('the progress page\'s medals, and no login dialog from the pages or Swagger UI', async t => {
  const browser = await launch(t)
  const basic = (credentials: string): string => `Basic ${Buffer.from(credentials).toString('base64')}`

  t.test('medals turn earned as the learner passes challenges, without a reload', async t => {
    const base = await service(t)
    const page = await openPage(t, browser, { viewport: { width: 1280, height: 800 } })
    const dialogs = await loginDialogs(page)
    const guid = (await fetch(`${base}/challenger`, { method: 'POST' })).headers.get('x-challenger') as string
    await page.goto(`${base}/gui/challenges/${guid}`)
    const medal = (id: string) => page.locator(`#medals li[data-medal="${id}"]`)
    t.equal(await page.locator('#medals-count').textContent(), `0 of ${MEDALS.length - 1}`)
    t.equal(await medal('passed-5').locator('.medal-state').textContent(), 'not yet')
    t.equal(await medal('passed-5').getAttribute('title'), 'Pass 5 challenges', 'how to earn it, in its tooltip')
    t.ok(await medal('passed-5').isVisible(), 'the rail is on the page')

    const headers = { 'x-challenger': guid }
    for (const method of ['GET', 'DELETE', 'PATCH']) await fetch(`${base}/heartbeat`, { method, headers })
    await fetch(`${base}/challenges`, { headers })
    t.equal((await fetch(`${base}/secret/token`, { method: 'POST', headers: { ...headers, authorization: basic('admin:wrong') } })).status, 401)
    await page.waitForFunction(() => document.querySelector('#medals li[data-medal="passed-5"] .medal-state')?.textContent === 'earned')
    t.equal(await medal('passed-5').getAttribute('class'), 'medal earned')
    t.equal(await medal('passed-5').locator('.medal-icon').textContent(), '★')
    t.equal(await page.locator('#medals-count').textContent(), `1 of ${MEDALS.length - 1}`)
    t.equal(await medal('clearance-granted').locator('.medal-state').textContent(), 'not yet')
    const earnedColour = await medal('passed-5').evaluate(item => getComputedStyle(item).backgroundColor)
    const lockedColour = await medal('completist').evaluate(item => getComputedStyle(item).backgroundColor)
    t.not(earnedColour, lockedColour, 'earned ones look apart too, beside the words')
    t.same(dialogs, [], 'the page met no login dialog')
  })

  t.test('a refused Basic login: chromium asks for credentials, but not when the request says it is the live widget\'s', async t => {
    const base = await service(t)
    const page = await openPage(t, browser)
    const dialogs = await loginDialogs(page)
    await page.goto(`${base}/`)
    const statuses = await page.evaluate(async () => {
      const plain = await fetch('/secret/token', { method: 'POST' })
      const wrong = await fetch('/secret/token?wrong', { method: 'POST', headers: { Authorization: 'Basic ' + btoa('admin:wrong') } })
      const widget = await fetch('/secret/token?widget', { method: 'POST', headers: { Authorization: 'Basic ' + btoa('admin:wrong'), 'X-API-Challenges-Live-Widget': 'true' } })
      return [plain.status, wrong.status, widget.status]
    })
    t.same(statuses, [401, 401, 401])
    t.same(dialogs, ['POST /secret/token: basic', 'POST /secret/token: basic'], 'a dialog for the plain requests, none for the widget\'s: the check sees what a person would')
  })

  t.test('Swagger UI\'s "Try it out" with wrong credentials shows the 401, and no login dialog', async t => {
    const base = await service(t)
    const page = await openPage(t, browser, { viewport: { width: 1280, height: 800 } })
    const dialogs = await loginDialogs(page)
    await page.goto(`${base}/docs`)
    await page.locator('.opblock').first().waitFor()
    await page.locator('.auth-wrapper .btn.authorize').click()
    const container = page.locator('.modal-ux .auth-container').filter({ has: page.locator('h4 code').getByText('basic', { exact: true }) })
    await container.locator('input').nth(0).fill('admin')
    await container.locator('input').nth(1).fill('not-the-password')
    await container.locator('button.authorize').click()
    await page.locator('.modal-ux .close-modal').click()
    const op = page.locator('.opblock.opblock-post').filter({ has: page.locator('.opblock-summary-path[data-path="/secret/token"]') })
    await op.locator('.opblock-summary-control').click()
    await op.locator('.try-out__btn').click()
    await op.locator('button.execute').click()
    const answer = op.locator('.live-responses-table .response')
    await answer.waitFor()
    t.equal((await answer.locator('.response-col_status').textContent())?.trim(), '401', 'the refusal is shown in the page')
    t.same(dialogs, [], 'and no login dialog over it')
  })
})
