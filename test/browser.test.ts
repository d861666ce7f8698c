// The challenges page in a real headless browser (Debian's chromium, driven by playwright-core; never
// a browser download): a fresh session's page turns a challenge done right after the request that
// passed it, without a reload. A screenshot goes to SCREENSHOT_PATH (or a temporary file).
import { statSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { challenges } from '../src/domain/challenges/catalogue.js'
import { createServer } from '../src/server.js'
import { chromiumTest, launch, openPage } from './chromium.js'

chromiumTest('the challenges page fills in as the learner works', async t => {
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: {} })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const guid = (await fetch(`${base}/challenger`, { method: 'POST' })).headers.get('x-challenger') as string

  const browser = await launch(t)
  const page = await openPage(t, browser)
  const errors: string[] = []
  page.on('pageerror', error => { errors.push(error.message) })
  page.on('console', message => { if (message.type() === 'error') errors.push(message.text()) })

  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto(`${base}/`)
  const commands = await page.locator('pre').evaluateAll(pres => pres.map(pre => ({ text: pre.textContent, fits: pre.scrollWidth <= pre.clientWidth })))
  t.equal(commands.length, 3, 'three curl commands')
  t.same(commands.filter(command => !command.fits), [], 'no command is cut off at 1280 px')
  t.match(commands[0]?.text, `curl -i -X POST ${base}/challenger`, 'the commands name this server')
  await page.click('text=the challenges')
  t.equal(new URL(page.url()).pathname, '/gui/challenges', 'the landing page links to the challenges page')

  await page.goto(`${base}/gui/challenges/${guid}`)
  const row28 = page.locator('tr[data-id="28"] .status')
  t.equal(await row28.textContent(), 'not done')
  t.equal(await page.locator('#progress-text').textContent(), `1 of ${challenges.length} done`)

  t.equal((await fetch(`${base}/heartbeat`, { headers: { 'x-challenger': guid } })).status, 204)
  // The page refreshes itself: wait for the row to change, without reloading.
  await page.waitForFunction(() => document.querySelector('tr[data-id="28"] .status')?.textContent === 'done')
  t.equal(await page.locator('#progress-text').textContent(), `2 of ${challenges.length} done`)
  t.equal(await page.locator('#progress').getAttribute('max'), String(challenges.length))
  t.equal(await page.evaluate(() => (document.getElementById('progress') as HTMLProgressElement).value), 2, 'the bar moved')
  t.equal(await page.locator('tr[data-id="28"]').getAttribute('class'), 'done')

  // "Your last requests": the heartbeat is there, and a near miss sent now appears without a
  // reload, with its hint (the request as a learner sends it with curl: a form-encoded note).
  await page.waitForFunction(() => document.querySelector('#requests tbody tr td:nth-child(2)')?.textContent === 'GET /heartbeat')
  const token = (await fetch(`${base}/secret/token`, { method: 'POST', headers: { 'x-challenger': guid, authorization: `Basic ${Buffer.from('admin:password').toString('base64')}` } })).headers.get('x-auth-token') as string
  const form = await fetch(`${base}/secret/note`, { method: 'POST', headers: { 'x-challenger': guid, 'x-auth-token': token, 'content-type': 'application/x-www-form-urlencoded' }, body: 'note=<b>hi</b>' })
  t.equal(form.status, 415)
  await page.waitForFunction(() => document.querySelector('#requests tbody tr td:nth-child(2)')?.textContent === 'POST /secret/note')
  const newest = await page.locator('#requests tbody tr').first().locator('td').allTextContents()
  t.same(newest.slice(1, 5), ['POST /secret/note', '415', '', 'Challenge 34 needs a JSON body such as {"note": "hi"}; this one had Content-Type application/x-www-form-urlencoded'])
  t.equal(await page.locator('#requests tbody tr').first().locator('.entry-id').isVisible(), false, 'no hunt: the entry ids are not shown')
  t.equal(await page.locator('#hunt').count(), 0, 'nor a hunt')
  t.match(newest[0], /^\d\d:\d\d:\d\d$/)
  t.equal(await page.locator('#requests-empty').isHidden(), true)
  await page.locator('tr[data-id="34"] summary').click()
  t.match(await page.locator('tr[data-id="34"] details pre').textContent(), `POST ${base}/secret/note\nX-CHALLENGER: ${guid}\nX-AUTH-TOKEN: <your token>\nContent-Type: application/json`,
    'the hint opens, with this server and the session id filled in, the token a placeholder')
  t.equal(await page.locator('tr[data-id="34"] a.solution').getAttribute('href'), 'https://apichallenges.com/apichallenges/solutions/authorization/post-secret-note-200', 'its solution on the reference\'s site')

  const list = await (await fetch(`${base}/challenges`, { headers: { 'x-challenger': guid } })).json() as { challenges: Array<{ id: number, status: boolean }> }
  t.equal(list.challenges.find(c => c.id === 2)?.status, true, 'the learner\'s own GET /challenges passes 02')
  const saved = await (await fetch(`${base}/challenger/${guid}`)).json() as { challengeStatus: Record<string, boolean> }
  t.same(Object.keys(saved.challengeStatus).filter(id => saved.challengeStatus[id]).sort(), ['01', '02', '28', '30'], 'the page itself passed nothing')

  // On a phone the rows are cards and nothing runs off the edge (test/phone-browser.test.ts measures every element).
  await page.setViewportSize({ width: 375, height: 800 })
  t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'nothing overflows the page at 375 px')
  t.ok(await page.evaluate(() => { const box = document.querySelector('#challenges')?.parentElement as HTMLElement; return box.scrollWidth <= box.clientWidth }), 'the challenges fit without scrolling their box')
  await page.setViewportSize({ width: 1280, height: 800 })

  const shot = process.env.SCREENSHOT_PATH ?? join(tmpdir(), `challenges-${process.pid}.png`)
  await page.screenshot({ path: shot, fullPage: true })
  t.ok(statSync(shot).size > 1000, `screenshot at ${shot}`)
  t.same(errors, [], 'no script errors and nothing refused by the Content-Security-Policy')
})
