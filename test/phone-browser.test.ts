// The pages on a phone, in a real headless chromium (Debian's, driven by playwright-core): at 390 px
// wide (an iPhone's 390×844) nothing on the landing page, the challenges pages (with a journal, the
// name form and every "How to pass it" open) or the class board runs off the right edge, the
// challenges and the last requests are cards, and the commands wrap only at their spaces: no word
// of a command is ever split over two lines (X-CHALLENGER stays whole). A control run with the old
// rule (breaks anywhere) shows that the measure catches split words. Screenshots go to
// PHONE_SCREENSHOT_DIR (or the temporary directory).
import { statSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { Test } from 'tap'
import { MemoryStore } from '../src/domain/sessions/memory-store.js'
import { createServer } from '../src/server.js'
import { chromiumTest, launch, openPage } from './chromium.js'

const WIDTH = 390
const SHOTS = process.env.PHONE_SCREENSHOT_DIR ?? tmpdir()

/**
 * The elements whose box goes past the viewport's right edge, unless a block around them scrolls
 * or clips (overflow-x other than visible) and that block itself fits.
 */
async function overflowing (page: Page): Promise<string[]> {
  return await page.evaluate(() => {
    const edge = window.innerWidth + 0.5
    const describe = (element: Element): string =>
      element.tagName.toLowerCase() + (element.id === '' ? '' : `#${element.id}`) + [...element.classList].map(name => `.${name}`).join('')
    const scroller = (element: Element): Element | null => {
      for (let above = element.parentElement; above !== null; above = above.parentElement) {
        if (getComputedStyle(above).overflowX !== 'visible') return above
      }
      return null
    }
    const out: string[] = []
    for (const element of document.body.querySelectorAll('*')) {
      const box = element.getBoundingClientRect()
      if (box.right <= edge || (box.width === 0 && box.height === 0)) continue
      const block = scroller(element)
      if (block !== null && block.getBoundingClientRect().right <= edge) continue
      out.push(`${describe(element)} ends at ${Math.round(box.right)} px`)
    }
    return out
  })
}

interface Lines {
  /** The command's text. */
  text: string
  /** How many lines it takes on screen. */
  lines: number
  /** Its words (runs of non-space) that the browser split over two lines or more. */
  split: string[]
  /** Whether the block scrolls sideways (a word longer than the line). */
  scrolls: boolean
}

/** How each <pre> of the page (every one is a command or a request) is laid out: every word's line boxes, by Range.getClientRects. */
async function commandLines (page: Page): Promise<Lines[]> {
  return await page.locator('pre').evaluateAll(pres => pres.map(pre => {
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT)
    const nodes: Array<{ node: Text, start: number }> = []
    let text = ''
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      nodes.push({ node: node as Text, start: text.length })
      text += (node as Text).data
    }
    // The text node and offset of a character offset in the whole text (an end offset stays in its word's node).
    const locate = (offset: number, end: boolean): [Text, number] => {
      const found = [...nodes].reverse().find(({ start }) => end ? start < offset : start <= offset) as { node: Text, start: number }
      return [found.node, offset - found.start]
    }
    const tops = new Set<number>()
    const split: string[] = []
    for (const word of text.matchAll(/\S+/g)) {
      const range = document.createRange()
      range.setStart(...locate(word.index, false))
      range.setEnd(...locate(word.index + word[0].length, true))
      const lines = new Set([...range.getClientRects()].filter(rect => rect.width > 0).map(rect => Math.round(rect.top)))
      if (lines.size > 1) split.push(word[0])
      for (const top of lines) tops.add(top)
    }
    return { text, lines: tops.size, split, scrolls: pre.scrollWidth > pre.clientWidth }
  }))
}

async function screenshot (t: Test, page: Page, name: string): Promise<void> {
  const path = join(SHOTS, `phone-${name}-${process.pid}.png`)
  await page.screenshot({ path, fullPage: true })
  t.ok(statSync(path).size > 1000, `screenshot at ${path}`)
}

chromiumTest('every page fits a 390 px phone, as cards, and commands wrap only at spaces', async t => {
  // With a class board, so that the progress page has its name form too.
  const store = new MemoryStore({})
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { adminToken: 'a-board-token-for-the-phone', store } })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  // A learner with a long name, a token, and requests whose journal rows are long: a near miss's hint, a long path.
  const guid = (await fetch(`${base}/challenger`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'W'.repeat(40) }) })).headers.get('x-challenger') as string
  const token = (await fetch(`${base}/secret/token`, { method: 'POST', headers: { 'x-challenger': guid, authorization: `Basic ${Buffer.from('admin:password').toString('base64')}` } })).headers.get('x-auth-token') as string
  t.equal((await fetch(`${base}/secret/note`, { method: 'POST', headers: { 'x-challenger': guid, 'x-auth-token': token, 'content-type': 'application/x-www-form-urlencoded' }, body: 'note=hi' })).status, 415)
  t.equal((await fetch(`${base}/challenger/${guid}`, { headers: { 'x-challenger': guid } })).status, 200)
  t.equal((await fetch(`${base}/heartbeat`, { method: 'HEAD', headers: { 'x-challenger': guid } })).status, 204)
  // A bug hunt with a defect found (its section's longest texts) and a journal (its entry ids shown).
  const hunt = await store.create(undefined, 1, { hidden: ['note-write-201', 'no-www-authenticate', 'heartbeat-200'], found: ['heartbeat-200', 'no-www-authenticate'] })
  t.equal((await fetch(`${base}/heartbeat`, { headers: { 'x-challenger': hunt.guid } })).status, 200)

  const browser = await launch(t)
  const page = await openPage(t, browser, { viewport: { width: WIDTH, height: 844 } })
  const problems: string[] = []
  page.on('pageerror', error => { problems.push(`${page.url()}: ${error.message}`) })
  page.on('console', message => { if (message.type() === 'error') problems.push(`${page.url()}: ${message.text()}`) })

  const pages: Array<[string, string]> = [
    ['landing', '/'],
    ['challenges', '/gui/challenges'],
    ['progress', `/gui/challenges/${guid}`],
    ['not-live', '/gui/challenges/0b5d9e8a-not-a-live-session-id-with-no-spaces-at-all'],
    ['hunt', `/gui/challenges/${hunt.guid}`],
    ['board', '/admin']
  ]
  for (const [name, path] of pages) {
    await page.goto(`${base}${path}`)
    // Every "How to pass it" open: the requests, with this server and the session filled in, must fit too.
    await page.locator('details').evaluateAll(all => { for (const details of all) (details as HTMLDetailsElement).open = true })
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth)
    t.ok(scrollWidth <= WIDTH, `${name}: the page is no wider than the phone (${scrollWidth} px)`)
    t.same(await overflowing(page), [], `${name}: no element runs off the right edge`)
    t.same(await page.locator('.scroll').evaluateAll(boxes => boxes.filter(box => box.scrollWidth > box.clientWidth).map(box => box.firstElementChild?.id)), [],
      `${name}: no table needs to scroll in its box`)
    const commands = await commandLines(page)
    // But a URL with a session id in it, too long for a phone's line, breaks: a hunt's finding, and the restore challenges' hints (43 to 46).
    const long = (word: string): boolean => word.length > 44 && (word.includes(guid) || word.includes(hunt.guid))
    t.same(commands.filter(command => command.split.some(word => !long(word))).map(command => command.split), [], `${name}: no word of a command is split over two lines`)
    t.same(commands.filter(command => command.scrolls).map(command => command.text), [], `${name}: every command fits its box by wrapping at spaces`)
    t.same(await page.locator('.header-name').evaluateAll(names => names.filter(name => new Set([...name.getClientRects()].map(rect => Math.round(rect.top))).size > 1).map(name => name.textContent)), [],
      `${name}: no header name in the descriptions is split over two lines`)
    await screenshot(t, page, name)
  }

  // The hunt's section: the found defects and the finding's command fit, the entry ids are shown and labelled.
  await page.goto(`${base}/gui/challenges/${hunt.guid}`)
  t.equal(await page.locator('#hunt-title').textContent(), 'Bug hunt: 2 of 3 found')
  t.equal(await page.locator('#hunt pre.command').evaluate(pre => pre.scrollWidth <= pre.clientWidth), true, 'the finding\'s command wraps rather than scrolls')
  const entryId = page.locator('#requests tbody tr').first().locator('.entry-id')
  t.equal(await entryId.isVisible(), true, 'in a hunt the entry ids are shown')
  t.equal(await entryId.evaluate(td => getComputedStyle(td, '::before').content), '"entry id: "', 'labelled on the card')

  // The header names checked above are there to check: every description that names one has it kept whole.
  await page.goto(`${base}/gui/challenges`)
  t.ok(await page.locator('#challenges .header-name').count() >= 10, 'the descriptions name headers (X-CHALLENGER, X-AUTH-TOKEN, …) as units')

  // The landing page's commands, wrapped: the note's takes several lines, each break at a space.
  await page.goto(`${base}/`)
  const landing = await commandLines(page)
  t.equal(landing.length, 3)
  t.match(landing[2]?.text, `curl -i -X POST ${base}/secret/note -H "X-CHALLENGER: <your id>"`)
  t.ok((landing[2]?.lines ?? 0) >= 3, `the note's command wraps (${landing[2]?.lines} lines)`)

  // The control: with the old rule (a command breaks anywhere, words not kept whole), the same
  // measure finds split words. (CSSOM changes are not inline styles: the CSP allows them.)
  await page.evaluate(() => {
    for (const pre of document.querySelectorAll<HTMLElement>('pre.command')) {
      pre.style.overflowWrap = 'anywhere'
      for (const span of pre.querySelectorAll<HTMLElement>('span')) span.style.whiteSpace = 'inherit'
    }
  })
  const old = (await commandLines(page)).flatMap(command => command.split)
  t.ok(old.length > 0, `the measure catches split words (${old.join(' ')})`)

  // The progress page: the challenges and the last requests are cards, and the refresh script's rows are too.
  await page.goto(`${base}/gui/challenges/${guid}`)
  t.same(await page.locator('#challenges tbody tr, #requests tbody tr').evaluateAll(rows => [...new Set(rows.map(row => getComputedStyle(row).display))]), ['grid'], 'every row is a card')
  const card = await page.locator('tr[data-id="28"]').evaluate(row => {
    const box = (cell: Element | null): DOMRect => (cell as Element).getBoundingClientRect()
    return {
      statusOnTop: Math.abs(box(row.querySelector('.status')).top - box(row.children[1] as Element).top) < 2,
      hintBelow: box(row.children[2] as Element).top > box(row.children[1] as Element).bottom - 1,
      statusRight: box(row.querySelector('.status')).right <= window.innerWidth
    }
  })
  t.same(card, { statusOnTop: true, hintBelow: true, statusRight: true }, 'the status sits on the card\'s first line, how to pass it below')
  t.equal(await page.locator('#challenges thead').evaluate(head => head.getBoundingClientRect().width <= 1), true, 'the column heads are left to screen readers')
  t.equal((await fetch(`${base}/heartbeat`, { headers: { 'x-challenger': guid } })).status, 204)
  await page.waitForFunction(() => document.querySelector('#requests tbody tr td:nth-child(2)')?.textContent === 'GET /heartbeat')
  t.equal(await page.locator('#requests tbody tr').first().evaluate(row => getComputedStyle(row).display), 'grid', 'a row the script built is a card too')
  t.same(await overflowing(page), [], 'and fits')
  t.equal(await page.locator('#requests tbody tr').first().locator('td:nth-child(5)').isVisible(), false, 'an empty hint takes no line')

  // On a wide screen the tables are tables again.
  await page.setViewportSize({ width: 1280, height: 800 })
  t.equal(await page.locator('tr[data-id="28"]').evaluate(row => getComputedStyle(row).display), 'table-row')
  t.same(problems, [], 'no script error, nothing refused')
})
