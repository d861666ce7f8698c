// The progress page's journal in a real headless chromium (Debian's, driven by playwright-core):
// each row's copy button puts that request's curl command on the clipboard (this server and the
// session filled in, the token as $TOKEN), under the strict CSP, with the clipboard API and without
// it; and a request's path wraps only before a "/", "?" or "&", never inside a segment, on a phone and
// in the rows the server renders without JavaScript.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import type { Page } from 'playwright-core'
import { createServer } from '../src/server.js'
import { chromiumTest, launch, openPage } from './chromium.js'

/** For each journal row's request (newest first): its text, its segments split over two lines, and how many lines it takes. */
async function requestLines (page: Page): Promise<Array<{ text: string, split: string[], lines: number }>> {
  return await page.locator('#requests td.request code').evaluateAll(codes => codes.map(code => {
    const tops = new Set<number>()
    const split: string[] = []
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const range = document.createRange()
      range.selectNodeContents(node)
      const lines = new Set([...range.getClientRects()].filter(rect => rect.width > 0).map(rect => Math.round(rect.top)))
      // The method and the path are one text node apart: only a segment of the path must stay whole.
      if (lines.size > 1 && !/^[A-Z]+ $/.test(node.textContent ?? '')) split.push(node.textContent ?? '')
      for (const top of lines) tops.add(top)
    }
    return { text: code.textContent ?? '', split, lines: tops.size }
  }))
}

chromiumTest('the journal\'s copy buttons and paths that wrap only at a "/"', async t => {
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { creationRateLimit: 0 } })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const guid = (await fetch(`${base}/challenger`, { method: 'POST' })).headers.get('x-challenger') as string
  const h = { 'x-challenger': guid }
  const token = (await fetch(`${base}/secret/token`, { method: 'POST', headers: { ...h, authorization: `Basic ${Buffer.from('admin:password').toString('base64')}` } })).headers.get('x-auth-token') as string
  const long = '/secret/notes/and/a/path/of/several/segments/each/kept/whole?with=a&query=string'
  t.equal((await fetch(`${base}${long}`, { headers: h })).status, 404)
  t.equal((await fetch(`${base}/challenger/${guid}`, { headers: h })).status, 200)
  t.equal((await fetch(`${base}/secret/note`, { headers: { ...h, 'x-auth-token': token } })).status, 200)

  const browser = await launch(t)
  const page = await openPage(t, browser, { permissions: ['clipboard-read', 'clipboard-write'] })
  const problems: string[] = []
  page.on('pageerror', error => { problems.push(error.message) })
  page.on('console', message => { if (message.type() === 'error') problems.push(message.text()) })
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto(`${base}/gui/challenges/${guid}`)
  t.equal(await page.locator('#requests td.copy button').count(), 0, 'no button before the script has the commands')
  t.equal(await page.locator('#replay a').first().getAttribute('href'), `/challenger/${guid}/requests?format=curl`, 'the script\'s link works without JavaScript')
  // The first refresh draws the rows again, each with its button.
  await page.locator('#requests tbody tr').first().locator('td.copy button').waitFor()
  t.equal(await page.locator('#requests tbody tr td.copy button').count(), 5, 'a button on every row')

  // What the newest row's button copies: the script's command for that entry, this server and the session filled in.
  const script = await (await fetch(`${base}/challenger/${guid}/requests?format=curl`)).text()
  const commandOf = (n: number): string => {
    const lines = script.split('\n')
    return (lines[lines.findIndex(line => line.startsWith(`# ${n}. `)) + 1] as string).replaceAll(`\${BASE:-${base}}`, base).replaceAll('${CHALLENGER:-$CH}', guid) // eslint-disable-line no-template-curly-in-string
  }
  const newest = page.locator('#requests tbody tr').first().locator('td.copy button')
  await newest.click()
  await page.waitForFunction(() => document.querySelector('#requests tbody tr td.copy button')?.textContent === 'copied')
  const copied = await page.evaluate(async () => await navigator.clipboard.readText())
  t.equal(copied, `curl -sS -i "${base}/secret/note" -H "X-CHALLENGER: ${guid}" -H "X-AUTH-TOKEN: $TOKEN"`, 'the token a variable, never the token')
  t.equal(copied, commandOf(5), 'the script\'s own command')
  await page.waitForFunction(() => document.querySelector('#requests tbody tr td.copy button')?.textContent === 'copy curl')
  await page.locator('#requests tbody tr').nth(2).locator('td.copy button').click()
  t.equal(await page.evaluate(async () => await navigator.clipboard.readText()), `curl -sS -i "${base}/secret/notes/and/a/path/of/several/segments/each/kept/whole?with=a&query=string" -H "X-CHALLENGER: ${guid}"`)
  if (existsSync('/usr/bin/curl')) {
    // Pasted into a shell with TOKEN set, it is answered as it was then.
    const answer = await new Promise<string>((resolve, reject) => {
      execFile('/bin/sh', ['-c', copied], { env: { PATH: process.env.PATH as string, TOKEN: token } }, (error, stdout) => { if (error === null) resolve(stdout); else reject(error) })
    })
    t.match(answer, /^HTTP\/1\.1 200 /, 'run, the copied command reads the note')
  }

  // Without the clipboard API (a page over plain http from another machine): the old way, a selection copied.
  const plain = await openPage(t, browser, { permissions: ['clipboard-read', 'clipboard-write'] })
  await plain.addInitScript(() => { Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined }) })
  plain.on('pageerror', error => { problems.push(error.message) })
  await plain.goto(`${base}/gui/challenges/${guid}`)
  const last = plain.locator('#requests tbody tr').last().locator('td.copy button')
  await last.waitFor()
  await last.click()
  t.equal(await last.textContent(), 'copied')
  t.equal(await plain.locator('textarea').count(), 0, 'the selection\'s text area is gone')
  t.equal(await page.evaluate(async () => await navigator.clipboard.readText()), `curl -sS -i -X POST "${base}/challenger"`, 'the oldest: the session\'s creation, with no X-CHALLENGER')

  // The long path on a phone: several lines, each break before a "/", "?" or "&", no segment split.
  await page.setViewportSize({ width: 390, height: 844 })
  const rows = await requestLines(page)
  const path = rows.find(row => row.text.startsWith('GET /secret/notes/'))
  t.equal(path?.text, `GET ${long}`, 'the query shown with the path')
  t.ok((path?.lines ?? 0) >= 2, `it wraps (${path?.lines} lines)`)
  t.same(rows.flatMap(row => row.split), [], 'no segment broken inside')
  t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'nothing runs off the phone\'s edge')
  const guidRow = rows.find(row => row.text === `GET /challenger/${guid}`)
  t.ok(guidRow !== undefined, 'the session\'s own URL, with its id')

  // The rows the server renders, without JavaScript: the same breaks, and no button.
  const still = await openPage(t, browser, { javaScriptEnabled: false, viewport: { width: 390, height: 844 } })
  await still.goto(`${base}/gui/challenges/${guid}`)
  const served = await requestLines(still)
  t.same(served.map(row => row.text), rows.map(row => row.text), 'as the script draws them')
  t.ok((served.find(row => row.text === `GET ${long}`)?.lines ?? 0) >= 2)
  t.same(served.flatMap(row => row.split), [])
  t.equal(await still.locator('#requests button').count(), 0)

  // A control: with breaks anywhere (the rule before), the measure sees segments split.
  await page.locator('#requests td.request code span').evaluateAll(spans => { for (const span of spans) (span as HTMLElement).style.cssText = 'white-space: normal; word-break: break-all' })
  t.not((await requestLines(page)).flatMap(row => row.split).length, 0, 'the control splits segments')
  t.same(problems, [], 'no script errors and nothing refused by the Content-Security-Policy')
})
