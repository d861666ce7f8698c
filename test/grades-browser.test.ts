// The class board (GET /admin, and its projector view) showing each learner's latest grading run
// (issue 59, part 5) in a real headless chromium: caught of total, the score and the survivors'
// families, as text; nothing for a learner with no run; the board still fits at 1280 px and 375 px,
// with nothing refused by the Content-Security-Policy or logged as an error.
import type { FastifyInstance } from 'fastify'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'
import { defectById, defects } from '../src/domain/defects/catalogue.js'
import { createServer } from '../src/server.js'
import { MemoryStore } from '../src/domain/sessions/memory-store.js'
import { chromiumTest, launch, openPage } from './chromium.js'

const TOKEN = 'class-board-token-0123456789'

async function listen (t: Test, server: FastifyInstance): Promise<string> {
  t.teardown(() => server.close())
  await server.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`
}

async function learner (base: string, name: string): Promise<string> {
  const res = await fetch(`${base}/challenger`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) })
  return res.headers.get('x-challenger') as string
}

chromiumTest('the class board shows each learner\'s latest grading run', async t => {
  const browser = await launch(t)
  const store = new MemoryStore()
  const base = await listen(t, createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { adminToken: TOKEN, store } }))
  const ada = await learner(base, 'Ada')
  await learner(base, 'Bob')
  // Ada's suite passes on the correct base and on two defects' bases, and fails on the others.
  const run = await (await fetch(`${base}/grades`, { method: 'POST', headers: { 'x-challenger': ada } })).json() as { id: string, bases: Array<{ url: string }> }
  const kept = await store.grades.get(run.id)
  const survivors = kept?.bases.slice(1, 3).map(b => defectById(b.defect as string)?.family as string) ?? []
  for (const [i, b] of run.bases.entries()) {
    const res = await fetch(`${base}/grades/${run.id}/results`, {
      method: 'POST',
      headers: { 'x-challenger': ada, 'content-type': 'application/json' },
      body: JSON.stringify({ base: b.url, exitCode: i < 3 ? 0 : 1 })
    })
    t.equal(res.status, 200)
  }
  const caught = defects.length - 2
  const score = Math.round(caught / defects.length * 10_000) / 100
  const families = [...new Set(survivors)].join(', ')

  const page = await openPage(t, browser, { viewport: { width: 1280, height: 800 } })
  const problems: string[] = []
  page.on('console', message => { if (message.type() === 'error') problems.push(`console: ${message.text()}`) })
  page.on('pageerror', error => { problems.push(`page error: ${error.message}`) })
  await page.goto(`${base}/admin`)
  await page.locator('#token').fill(TOKEN)
  await page.locator('#login button[type=submit]').click()
  await page.locator('#learners tbody tr').nth(1).waitFor()
  t.equal(await page.locator('#learners thead th').nth(6).textContent(), 'grade')
  const ada8 = ada.slice(0, 8)
  const row = page.locator(`#learners tbody tr[data-short="${ada8}"] .grade`)
  t.equal(await row.textContent(), `${caught}/${defects.length} ${score}% · ${families}`, 'caught of total, the score, the survivors\' families')
  t.equal(await row.getAttribute('title'), `survived: ${survivors.join(', ')}`)
  t.equal(await page.locator('#learners tbody tr').filter({ hasText: 'Bob' }).locator('.grade').textContent(), '', 'no run: an empty cell')
  const wide = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }))
  t.ok(wide.scroll <= wide.inner, `no horizontal scroll at 1280 px (${wide.scroll} <= ${wide.inner})`)
  await page.setViewportSize({ width: 375, height: 740 })
  const narrow = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }))
  t.ok(narrow.scroll <= narrow.inner, `no horizontal scroll at 375 px (${narrow.scroll} <= ${narrow.inner})`)

  await page.setViewportSize({ width: 1280, height: 720 })
  await page.goto(`${base}/admin?view=projector`)
  const card = page.locator(`[data-short="${ada8}"] .grade`)
  await card.waitFor()
  t.equal(await card.textContent(), `graded ${caught}/${defects.length} · ${families}`, 'the projector\'s card says it too')
  t.same(problems, [], 'no console or script error')
})
