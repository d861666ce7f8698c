// The Content-Security-Policies in a real chromium: the pages and Swagger UI work under them with
// nothing refused (no violation, no console error), every file a page loads (public/gui/) comes
// with its type, the pages' policy and its cache time, and no other page can frame them.
import type { AddressInfo } from 'node:net'
import type { Browser, Page, Response } from 'playwright-core'
import type { Test } from 'tap'
import { FILE_TYPES } from '../routes/pages.js'
import { createServer } from '../src/server.js'
import { chromiumTest, failure, launch, openPage } from './chromium.js'

const PAGE_CSP = "default-src 'none';style-src 'self';script-src 'self';connect-src 'self';img-src 'self';form-action 'self';base-uri 'none';frame-ancestors 'none'"

/** A page that records every CSP violation and every console error or script error, and the answers for its files. */
async function watchedPage (t: Test, browser: Browser): Promise<{ page: Page, problems: string[], files: Response[] }> {
  const page = await openPage(t, browser, { viewport: { width: 1280, height: 800 } })
  const problems: string[] = []
  const files: Response[] = []
  page.on('response', response => { if (['script', 'stylesheet', 'image'].includes(response.request().resourceType())) files.push(response) })
  page.on('requestfailed', request => { const problem = failure(request); if (problem !== null) problems.push(problem) })
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
  return { page, problems, files }
}

/** Each of the page's files (the scripts, stylesheets and icon of public/gui/): 200, its type, the pages' policy, five minutes' caching. */
async function checkFiles (t: Test, files: readonly Response[], expected: readonly string[]): Promise<void> {
  t.same([...new Set(files.map(file => new URL(file.url()).pathname))].sort(), [...expected].sort(), 'the page loads these files')
  for (const file of files) {
    const path = new URL(file.url()).pathname
    const headers = await file.allHeaders()
    t.equal(file.status(), 200, path)
    t.equal(headers['content-type'], FILE_TYPES[path.slice(path.lastIndexOf('.'))], `${path}: its type`)
    t.equal(headers['content-security-policy'], PAGE_CSP, `${path}: the pages' policy`)
    t.equal(headers['cache-control'], 'max-age=300', `${path}: cached five minutes`)
    t.equal(headers['x-content-type-options'], 'nosniff', `${path}: nosniff`)
  }
}

chromiumTest('the pages and /docs work under their Content-Security-Policy, and nobody frames them', async t => {
  // With a class board: its page, and the progress page's name form and its script, are checked too.
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { adminToken: 'a-board-token-for-the-csp-test' } })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const guid = (await fetch(`${base}/challenger`, { method: 'POST' })).headers.get('x-challenger') as string
  const browser = await launch(t)

  t.test('the landing page and the challenges page, its refresh and name scripts running', async t => {
    const { page, problems, files } = await watchedPage(t, browser)
    await page.goto(`${base}/`)
    t.equal(await page.locator('link[rel=stylesheet]').evaluate(link => (link as HTMLLinkElement).sheet !== null), true, 'the stylesheet applies')
    t.equal(await page.locator('main').evaluate(main => getComputedStyle(main).maxWidth), '960px', 'its rules (60rem) apply')
    await checkFiles(t, files, ['/gui/style.css'])
    files.length = 0
    await page.goto(`${base}/gui/challenges/${guid}`)
    t.equal(await page.locator('tr[data-id="28"] .status').textContent(), 'not done')
    t.equal((await fetch(`${base}/heartbeat`, { headers: { 'x-challenger': guid } })).status, 204)
    // The script's fetch (connect-src 'self') brings the change in without a reload.
    await page.waitForFunction(() => document.querySelector('tr[data-id="28"] .status')?.textContent === 'done')
    await page.locator('#name').fill('Ada')
    await page.locator('#name-form button').click()
    await page.waitForFunction(() => document.getElementById('name-result')?.textContent === 'Saved.')
    t.equal(await page.locator('#current-name').textContent(), 'Ada', 'the name script ran beside the refresh script')
    await checkFiles(t, files, ['/gui/style.css', '/gui/restore.js', '/gui/refresh.js', '/gui/name.js'])
    t.same(problems, [], 'nothing refused, no console error')
  })

  t.test('the class board, its script asking for the token', async t => {
    const { page, problems, files } = await watchedPage(t, browser)
    await page.goto(`${base}/admin`)
    await page.locator('#token').waitFor({ state: 'visible' })
    t.equal(await page.locator('#totals').evaluate(totals => getComputedStyle(totals).display), 'flex', 'its own stylesheet applies')
    await checkFiles(t, files, ['/gui/style.css', '/gui/admin.css', '/gui/admin.js'])
    t.same(problems, [], 'nothing refused, no console error')
  })

  t.test('Swagger UI renders, and "Try it out" reaches the API', async t => {
    const { page, problems } = await watchedPage(t, browser)
    await page.goto(`${base}/docs`)
    await page.locator('.opblock').first().waitFor()
    await page.waitForLoadState('networkidle')
    t.ok(await page.locator('.opblock').count() > 10, 'the operations are rendered')
    t.ok(await page.locator('.topbar img[src^="data:"]').isVisible(), 'the logo (a data: image) is shown')
    const heartbeat = page.locator('.opblock.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/heartbeat"]') })
    await heartbeat.locator('.opblock-summary-control').click()
    await heartbeat.locator('.try-out__btn').click()
    await heartbeat.locator('button.execute').click()
    const status = heartbeat.locator('.live-responses-table .response .response-col_status')
    await status.waitFor()
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
