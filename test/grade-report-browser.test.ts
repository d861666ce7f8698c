// grade's HTML report in a real headless chromium (Debian's, driven by playwright-core), opened as a
// learner opens it: a file, offline. Every mutant of the catalogue is listed with its state and what
// caught it (or why nothing did); the mutation-testing-elements component renders each family's
// file; what is wrong and the exact check stay behind a click; nothing is fetched from anywhere.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { MutationTestResult } from 'mutation-testing-report-schema/api'
import { defects } from '../src/domain/defects/catalogue.js'
import { chromiumTest, launch, openPage } from './chromium.js'
import { graded } from './grade-helper.js'

chromiumTest('the HTML report lists every mutant with its state and what caught it, offline', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'grade-html-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const { code, stderr } = await graded(['--reporter', 'html,json', '--report-dir', dir, '--jobs', '2', '--', 'sh test/fixtures/grade/statuses.sh'])
  t.equal(code, 0, stderr)
  const report = JSON.parse(readFileSync(join(dir, 'mutation.json'), 'utf8')) as MutationTestResult
  const states = new Map(Object.values(report.files).flatMap(file => file.mutants).map(m => [m.id, m.status]))
  t.equal(states.size, defects.length)
  t.ok(states.get('swap-401-403') === 'Killed' && [...states.values()].includes('Survived') && [...states.values()].includes('NoCoverage'), 'each kind of state is there')

  const browser = await launch(t)
  const page = await openPage(t, browser, { viewport: { width: 1280, height: 900 } })
  const problems: string[] = []
  page.on('pageerror', error => { problems.push(`page error: ${error.message}`) })
  page.on('console', message => { if (message.type() === 'error') problems.push(`console: ${message.text()}`) })
  // Offline: anything but the file itself is refused, and said.
  await page.route('**/*', route => {
    const url = route.request().url()
    if (url.startsWith('file:') || url.startsWith('data:')) return route.continue()
    problems.push(`fetched ${url}`)
    return route.abort()
  })
  await page.goto(pathToFileURL(join(dir, 'mutation.html')).href)

  const rows = await page.locator('#mutants tbody tr').evaluateAll(trs => trs.map(tr => ({
    id: tr.getAttribute('data-mutant'),
    state: tr.querySelector('.state')?.textContent,
    why: tr.querySelector('.why')?.textContent
  })))
  t.same(rows.map(row => row.id).sort(), defects.map(d => d.id).sort(), 'a row for every mutant')
  for (const row of rows) {
    const defect = defects.find(d => d.id === row.id)
    t.equal(row.state, states.get(row.id as string), `${row.id}'s state`)
    const why = {
      Killed: /^caught by your \d+(st|nd|rd|th) request, [A-Z]+ \/\S*/,
      Timeout: /^(caught by your \d+(st|nd|rd|th) request|the suite ran past --timeout)/,
      Survived: /^met by your \d+(st|nd|rd|th) request.*, yet the suite passed/,
      NoCoverage: `never sent: ${defect?.untried}`
    }[row.state as 'Killed']
    t.match(row.why, why, `${row.id}: what caught it, or why nothing did`)
  }
  t.match(rows.find(row => row.id === 'swap-401-403')?.why, 'caught by your 2nd request, GET /secret/note with no token (answered 403 where the correct service said 401)')

  // The exact check is behind a click.
  const survivor = rows.find(row => row.state === 'Survived')?.id as string
  const check = defects.find(d => d.id === survivor)?.check as string
  const details = page.locator(`tr[data-mutant="${survivor}"] details`)
  t.equal(await details.getByText(check, { exact: false }).isVisible(), false, 'the check is hidden at first')
  await details.locator('summary').click()
  t.equal(await details.getByText(check, { exact: false }).isVisible(), true, 'and shown by a click')

  // The component renders the report: a row for each family's file, and the score.
  const app = page.locator('mutation-test-report-app')
  for (const name of Object.keys(report.files)) t.ok(await app.getByText(name, { exact: true }).count() > 0, `the component shows ${name}`)
  await page.goto(`${pathToFileURL(join(dir, 'mutation.html')).href}#mutant/status.http`)
  t.ok(await app.getByText('GET /secret/note: ', { exact: false }).count() > 0, 'a family file\'s source, a decision a line')

  t.match(await page.locator('#coverage').textContent(), /\/secret\/note\s*GET\s*200, 401/)
  t.same(problems, [])
})
