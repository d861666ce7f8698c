// The HTML report: one file that works offline. The mutation-testing-elements web component (its
// bundle, inlined) renders the schema report (inlined too), as Stryker's own HTML report does; below
// it, plain tables: every mutant with its state and what caught it (what is wrong and the exact check
// behind a click), and the suite's API coverage.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { caughtText } from '../caught.js'
import { coverageRows, coverageSummary, statusesText } from '../coverage.js'
import { FAMILY_HINTS, isDetected, type Grading } from '../report.js'
import { scoreLine, standing } from './clear-text.js'
import { schemaReport } from './schema.js'

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`)

/** JSON that a <script> can hold: no "</script>" or "<!--" can end or bend it. */
const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')

let bundle: string | undefined
/** The component's bundle, read once, with any "</script" in it made harmless. */
function elements (): string {
  bundle ??= readFileSync(createRequire(import.meta.url).resolve('mutation-testing-elements/mutation-test-elements.js'), 'utf8').replace(/<\/script/gi, '<\\/script')
  return bundle
}

const STYLE = `body{font-family:system-ui,sans-serif;margin:0 auto;max-width:80rem;padding:1rem;color:#1f2328}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}.Killed,.Timeout{color:#1a7f37}.Survived{color:#cf222e}.NoCoverage{color:#9a6700}.RuntimeError{color:#57606a}
summary{cursor:pointer}.unsent td{color:#9a6700}code{font-size:.9em}`

export function htmlReport (result: Grading): string {
  const rows = result.mutants.map((m, index) => {
    const caught = m.caughtBy === undefined || m.reusedFrom !== undefined ? m.reason : `caught by ${caughtText(m.caughtBy)}`
    const hint = m.status === 'Survived' ? `<br>Hint (${escapeHtml(m.family)}): ${escapeHtml(FAMILY_HINTS[m.family])}` : ''
    return `<tr data-mutant="${escapeHtml(m.id)}"><td>${escapeHtml(result.explain || isDetected(m.status) ? m.id : `mutant ${index + 1}`)}</td><td>${escapeHtml(m.family)}</td><td>${escapeHtml(m.endpoint)}</td>` +
      `<td class="state ${m.status}">${m.status}</td><td class="why">${escapeHtml(caught)}${hint}</td>` +
      `<td><details><summary>what is wrong, and the check</summary><p><b>${escapeHtml(m.id)}</b>: ${escapeHtml(m.name)}</p><p>Wrong: ${escapeHtml(m.breaks)}</p><p>Check: ${escapeHtml(m.check)}</p></details></td></tr>`
  })
  const covered = coverageRows(result.baseline.requests, result.baseline.contract)
  const coverage = covered.map(row => `<tr${row.seen.size === 0 ? ' class="unsent"' : ''}><td><code>${escapeHtml(row.path)}</code></td><td>${escapeHtml(row.method)}</td>` +
    `<td>${statusesText(row.seen)}</td><td>${row.documented ? row.unseen.join(', ') : escapeHtml('(not in the API\'s document)')}</td></tr>`)
  const title = `grade: mutation score ${result.score.toFixed(2)}%`
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
<script>${elements()}</script>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p id="score">${escapeHtml(scoreLine(result))}. The score is ${escapeHtml(standing(result))}.</p>
<p>Suite: <code>${escapeHtml(result.command.join(' '))}</code></p>
<mutation-test-report-app title-postfix="api-challenges-fastify grade">Your browser does not run web components: the tables below say the same.</mutation-test-report-app>
<h2>Mutants</h2>
<table id="mutants"><thead><tr><th>mutant</th><th>family</th><th>endpoint</th><th>state</th><th>what caught it, or why not</th><th>answer</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>
<h2>API coverage</h2>
<p>Your suite's ${result.baseline.requests.length} requests against the correct service, by the API's document: ${escapeHtml(coverageSummary(covered))}.</p>
<table id="coverage"><thead><tr><th>path</th><th>method</th><th>answered</th><th>documented, never answered</th></tr></thead>
<tbody>
${coverage.join('\n')}
</tbody></table>
<script>document.querySelector('mutation-test-report-app').report = ${scriptJson(schemaReport(result))}</script>
</body>
</html>
`
}
