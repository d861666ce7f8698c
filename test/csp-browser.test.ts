// The Content-Security-Policies in a real chromium: the pages and Swagger UI work under them with
// nothing refused (no violation, no console error), and no other page can frame them.
import type { AddressInfo } from 'node:net'
import type { Browser, Page } from 'playwright-core'
import type { Test } from 'tap'
import { createServer } from '../src/server.js'
import { chromiumTest, launch } from './chromium.js'

/** A page that records every CSP violation and every console error or script error. */
async function watchedPage (t: Test, browser: Browser): Promise<{ page: Page, problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  t.teardown(() => page.close())
  const problems: string[] = []
  // The browser's own report, with what was refused; console errors also carry the blocked inline code.
  await page.exposeFunction('reportViolation', (text: string) => { problems.push(text) })
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', event => {
      (window as unknown as { reportViolation: (text: string) => void })
        .reportViolation(`violation of ${event.violatedDirective} by ${event.blockedURI || 'inline'} at ${event.sourceFile}:${event.lineNumber}`)
    })
  })
  page.on('console', message => { if (message.type() === 'error') problems.push(`${page.url()}: ${message.text()}`) })
  page.on('pageerror', error => { problems.push(`${page.url()}: ${error.message}`) })
  return { page, problems }
}

chromiumTest('the pages and /docs work under their Content-Security-Policy, and nobody frames them', 60_000, async t => {
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: {} })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const guid = (await fetch(`${base}/challenger`, { method: 'POST' })).headers.get('x-challenger') as string
  const browser = await launch(t)

  t.test('the landing page and the challenges page, its refresh script running', async t => {
    const { page, problems } = await watchedPage(t, browser)
    await page.goto(`${base}/`)
    t.equal(await page.locator('link[rel=stylesheet]').evaluate(link => (link as HTMLLinkElement).sheet !== null), true, 'the stylesheet applies')
    await page.goto(`${base}/gui/challenges/${guid}`)
    t.equal(await page.locator('tr[data-id="28"] .status').textContent(), 'not done')
    t.equal((await fetch(`${base}/heartbeat`, { headers: { 'x-challenger': guid } })).status, 204)
    // The script's fetch (connect-src 'self') brings the change in without a reload.
    await page.waitForFunction(() => document.querySelector('tr[data-id="28"] .status')?.textContent === 'done', undefined, { timeout: 15_000 })
    t.same(problems, [], 'nothing refused, no console error')
  })

  t.test('Swagger UI renders, and "Try it out" reaches the API', async t => {
    const { page, problems } = await watchedPage(t, browser)
    await page.goto(`${base}/docs`)
    await page.locator('.opblock').first().waitFor({ timeout: 15_000 })
    await page.waitForLoadState('networkidle')
    t.ok(await page.locator('.opblock').count() > 10, 'the operations are rendered')
    t.ok(await page.locator('.topbar img[src^="data:"]').isVisible(), 'the logo (a data: image) is shown')
    const heartbeat = page.locator('.opblock.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/heartbeat"]') })
    await heartbeat.locator('.opblock-summary-control').click()
    await heartbeat.locator('.try-out__btn').click()
    await heartbeat.locator('button.execute').click()
    const status = heartbeat.locator('.live-responses-table .response .response-col_status')
    await status.waitFor({ timeout: 10_000 })
    t.equal((await status.textContent())?.trim(), '204')
    await page.locator('.auth-wrapper .btn.authorize').click()
    await page.locator('.modal-ux').waitFor()
    t.same(problems, [], 'nothing refused, no console error')
  })

  t.test('another page cannot frame the pages or the docs', async t => {
    const { page, problems } = await watchedPage(t, browser)
    for (const path of ['/', `/gui/challenges/${guid}`, '/docs']) {
      problems.length = 0
      await page.setContent(`<iframe src="${base}${path}"></iframe>`, { waitUntil: 'load' })
      const frame = page.frames().find(candidate => candidate !== page.mainFrame())
      t.equal(frame?.url(), 'chrome-error://chromewebdata/', `${path}: the frame shows chromium's error page`)
      t.match(problems.join('\n'), /frame-ancestors 'none'/, `${path}: refused for frame-ancestors 'none'`)
    }
  })
})
