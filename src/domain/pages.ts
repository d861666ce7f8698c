// The service's web pages, as plain strings: the landing page and the challenges page, with their
// stylesheet and the small script that refreshes the statuses and sends the name form. Every value
// placed in a page is escaped. No front-end build: what is here is what the browser gets.
import type { ChallengeRow } from './catalogue.js'
import type { JournalView } from './journal.js'

const HTML_ESCAPES: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' }

/** Text made safe for HTML content and quoted attribute values. */
export function escapeHtml (text: string): string {
  return text.replace(/[<>&"']/g, c => HTML_ESCAPES[c] as string)
}

/**
 * The Content-Security-Policy of every page, as @fastify/helmet's directives: its own stylesheet,
 * script and icon, requests to this server only, and no framing.
 */
export const CSP_DIRECTIVES: Readonly<Record<string, string[]>> = {
  'default-src': ["'none'"],
  'style-src': ["'self'"],
  'script-src': ["'self'"],
  'connect-src': ["'self'"],
  'img-src': ["'self'"],
  'form-action': ["'self'"],
  'base-uri': ["'none'"],
  'frame-ancestors': ["'none'"]
}

/**
 * Said wherever a session id is shown: GET /challenger/{guid} answers with the session's token and
 * note, as in the reference, so the id is all it takes to act as its learner.
 */
export const BEARER_WARNING = 'Your session id is like a password: share your progress link and you share your session.'

const bearerWarning = `<p class="warning"><strong>${BEARER_WARNING}</strong> Whoever has it can read your token and your ` +
  'secret note (<code>GET /challenger/&lt;id&gt;</code>), write the note and pass challenges as you.</p>'

/** A whole page: `script` and `stylesheet` are paths under `base` of the page's own script and extra stylesheet. */
export function page (base: string, title: string, body: string, script = '', stylesheet = ''): string {
  return '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title><link rel="icon" href="${escapeHtml(base)}/gui/icon.svg">` +
    `<link rel="stylesheet" href="${escapeHtml(base)}/gui/style.css">` +
    `${stylesheet === '' ? '' : `<link rel="stylesheet" href="${escapeHtml(base)}${stylesheet}">`}` +
    `${script === '' ? '' : `<script src="${escapeHtml(base)}${script}" defer></script>`}</head>` +
    `<body><main>${body}</main></body></html>\n`
}

export interface LandingOptions {
  /** The mount prefix ('' at the root), so that every link works under a prefix too. */
  base: string
  /** Where the learner reached this server, such as `http://127.0.0.1:3000`, from the request. */
  origin: string
  /** The Basic credentials /secret/token accepts; the password is shown only when it is the reference's. */
  username: string
  password: string
  /** Whether /docs is served. */
  docs: boolean
}

/** The password as the landing page shows it: the reference's default is public, any other is not. */
function shownPassword (password: string): string {
  return password === 'password' ? password : '<the password you were given>'
}

export function landingPage (options: LandingOptions): string {
  const { base, docs } = options
  const b = escapeHtml(base)
  const url = escapeHtml(`${options.origin}${base}`)
  const credentials = escapeHtml(`${options.username}:${shownPassword(options.password)}`)
  return page(base, 'API Challenges: secret note and heartbeat', `
<h1>API Challenges: secret note and heartbeat</h1>
<p>A practice target for API testing: send requests, read the status codes and headers, and pass
numbered challenges. Your session id travels in the <code>X-CHALLENGER</code> header.</p>
<h2>Start</h2>
<ol>
<li>Create a session: <pre>curl -i -X POST ${url}/challenger</pre> and keep the <code>X-CHALLENGER</code> it answers with.</li>
<li>Get a token: <pre>curl -i -X POST ${url}/secret/token -u '${credentials}' -H "X-CHALLENGER: &lt;your id&gt;"</pre></li>
<li>Write your secret note: <pre>curl -i -X POST ${url}/secret/note -H "X-CHALLENGER: &lt;your id&gt;" -H "X-AUTH-TOKEN: &lt;token&gt;" -H 'Content-Type: application/json' -d '{"note":"my secret"}'</pre></li>
</ol>
<h2>Your progress</h2>
<form action="${b}/gui/challenges" method="get">
<label for="guid">Session id</label> <input id="guid" name="guid" size="40" placeholder="6a1f8e2c-…">
<button type="submit">Show my challenges</button>
</form>
${bearerWarning}
<p>Or open <a href="${b}/gui/challenges">the challenges</a> without a session.</p>${docs
    ? `
<h2>Reference</h2>
<p><a href="${b}/docs">The API documentation</a> (Swagger UI, with "Try it out").</p>`
    : ''}`)
}

export type { ChallengeRow }

export function progressText (rows: readonly ChallengeRow[]): string {
  return `${rows.filter(row => row.status).length} of ${rows.length} done`
}

/** One journal entry as a row of "Your last requests" (the refresh script builds the same). */
function requestRow (entry: JournalView): string {
  return `<tr class="${entry.passed.length > 0 ? 'passed' : entry.hint === null ? '' : 'near'}"><td><time datetime="${escapeHtml(entry.at)}">${escapeHtml(entry.at.slice(11, 19))}</time></td>` +
    `<td><code>${escapeHtml(`${entry.method} ${entry.path}`)}</code></td><td>${entry.status}</td>` +
    `<td>${entry.passed.length === 0 ? '' : escapeHtml(entry.passed.join(', '))}</td><td>${escapeHtml(entry.hint ?? '')}</td></tr>`
}

/** "Your last requests": the session's journal, newest first. */
function requestsSection (requests: readonly JournalView[]): string {
  return `
<h2>Your last requests</h2>
<p>What the server saw for this session, newest first, with what each request passed and, when one came close to a challenge, what was different.</p>
<div class="scroll"><table id="requests">
<thead><tr><th>time (UTC)</th><th>request</th><th>status</th><th>passed</th><th>hint</th></tr></thead>
<tbody>
${requests.map(requestRow).join('\n')}
</tbody></table></div>
<p id="requests-empty"${requests.length === 0 ? '' : ' hidden'}>No requests yet: send one with your X-CHALLENGER header and it shows here.</p>`
}

/**
 * The learner's name for the class board, and a form to set it (sent by the refresh script as
 * PATCH /challenger/{guid}). The input has no `name`: without the script, a submit only reloads.
 */
function nameSection (name: string | undefined): string {
  const shown = escapeHtml(name ?? '')
  return `
<p id="name-line"${name === undefined ? ' hidden' : ''}>You are <strong id="current-name">${shown}</strong> on the class board.</p>
<form id="name-form" class="field">
<label for="name">Your name on the class board</label>
<input id="name" maxlength="40" required autocomplete="nickname" value="${shown}">
<button type="submit">Save the name</button>
<span id="name-result" role="status"></span>
</form>`
}

/**
 * The catalogue as a table, with the session's statuses (all not done without a live session),
 * and, for a live session with a journal, its last requests (`requests`; null: none to show).
 * A live session's page shows its `name` and a form to change it.
 */
export function challengesPage (base: string, guid: string | null, live: boolean, rows: readonly ChallengeRow[], docs = true, requests: readonly JournalView[] | null = null, name?: string): string {
  const done = rows.filter(row => row.status).length
  const who = guid === null
    ? '<p>No session chosen: every challenge shows as not done.</p>'
    : `<p>Session <code>${escapeHtml(guid)}</code>${live ? '' : ' (no live session by this id: create one with POST /challenger)'}</p>\n${bearerWarning}${live ? nameSection(name) : ''}`
  const body = rows.map(row => `<tr data-id="${row.id}" class="${row.status ? 'done' : 'todo'}">` +
    `<td>${String(row.id).padStart(2, '0')}</td><td>${escapeHtml(row.name)}</td><td>${escapeHtml(row.description)}` +
    `<details><summary>How to pass it</summary><pre>${escapeHtml(row.hint)}</pre></details></td>` +
    `<td class="status">${row.status ? 'done' : 'not done'}</td></tr>`).join('\n')
  return page(base, 'Challenges', `
<h1>Challenges</h1>
${who}
<p><progress id="progress" value="${done}" max="${rows.length}"></progress> <span id="progress-text">${progressText(rows)}</span></p>
<div class="scroll"><table id="challenges" data-base="${escapeHtml(base)}" data-guid="${escapeHtml(guid ?? '')}" data-journal="${requests === null ? '' : '1'}">
<thead><tr><th>id</th><th>challenge</th><th>how to pass it</th><th>status</th></tr></thead>
<tbody>
${body}
</tbody></table></div>${requests === null ? '' : requestsSection(requests)}
<p><a href="${escapeHtml(base)}/">Home</a>${docs ? ` · <a href="${escapeHtml(base)}/docs">API documentation</a>` : ''}</p>`, guid === null ? '' : '/gui/refresh.js')
}

export const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b6b2b"/>' +
  '<path d="M4 8.5l2.5 2.5L12 5" stroke="#fff" stroke-width="2" fill="none"/></svg>'

export const STYLESHEET = `
body { font-family: system-ui, sans-serif; margin: 0; background: #f7f7f5; color: #1d1d1b; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
pre { background: #ecece8; padding: .5rem .75rem; white-space: pre-wrap; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; }
/* A wide table scrolls inside its box on a phone; the page itself never scrolls sideways. */
.scroll { overflow-x: auto; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #d8d8d2; vertical-align: top; }
.status { white-space: nowrap; }
tr.done .status { color: #0b6b2b; font-weight: 600; }
tr.done .status::before { content: "✔ "; }
tr.todo .status { color: #7a4a00; }
progress { width: 16rem; height: 1rem; }
details summary { cursor: pointer; color: #4a4a45; margin-top: .25rem; }
details pre { margin: .25rem 0 0; }
#requests code { white-space: pre-wrap; overflow-wrap: anywhere; }
#requests tr.passed td:nth-child(4) { color: #0b6b2b; font-weight: 600; }
#requests tr.near td:nth-child(5) { color: #7a4a00; }
.warning { border-left: .25rem solid #7a4a00; background: #fbf3e4; padding: .5rem .75rem; }
.field { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.field input { font: inherit; padding: .3rem .4rem; max-width: 100%; box-sizing: border-box; }
.field button { font: inherit; padding: .3rem .8rem; }
#name-result.error { color: #a01c1c; }
/* The learner's name, isolated: a text direction it carries cannot spill out of it. */
#current-name { unicode-bidi: isolate; }
`

/**
 * Refreshes the statuses every 2 seconds from GET /challenges without reloading, and the last
 * requests from GET /challenger/{guid}/requests. It sends X-Challenges-Page so that its own
 * requests pass nothing (challenge 02 is the learner's to pass) and stay out of the journal.
 * It also sends the name form as PATCH /challenger/{guid}: that one is the learner's own request,
 * and the journal shows it. Every value goes in as text, never as HTML.
 */
export const REFRESH_SCRIPT = `
'use strict'
const table = document.getElementById('challenges')
const base = table.dataset.base
const guid = table.dataset.guid
async function refresh () {
  try {
    const res = await fetch(base + '/challenges', { headers: { 'X-CHALLENGER': guid, 'X-Challenges-Page': '1', Accept: 'application/json' } })
    if (!res.ok) return
    const { challenges } = await res.json()
    let done = 0
    for (const c of challenges) {
      const row = table.querySelector('tr[data-id="' + Number(c.id) + '"]')
      if (row === null) continue
      row.className = c.status ? 'done' : 'todo'
      row.querySelector('.status').textContent = c.status ? 'done' : 'not done'
      if (c.status) done++
    }
    document.getElementById('progress').value = done
    document.getElementById('progress-text').textContent = done + ' of ' + challenges.length + ' done'
  } catch {}
  if (table.dataset.journal === '1') await refreshRequests()
}
function cell (row, text) {
  const td = document.createElement('td')
  td.textContent = text
  row.appendChild(td)
  return td
}
async function refreshRequests () {
  try {
    const res = await fetch(base + '/challenger/' + encodeURIComponent(guid) + '/requests', { headers: { 'X-Challenges-Page': '1', Accept: 'application/json' } })
    if (!res.ok) return
    const { requests } = await res.json()
    const body = document.querySelector('#requests tbody')
    const rows = requests.map(r => {
      const row = document.createElement('tr')
      row.className = r.passed.length > 0 ? 'passed' : r.hint === null ? '' : 'near'
      const time = document.createElement('time')
      time.dateTime = r.at
      time.textContent = String(r.at).slice(11, 19)
      cell(row, '').appendChild(time)
      const code = document.createElement('code')
      code.textContent = r.method + ' ' + r.path
      cell(row, '').appendChild(code)
      cell(row, String(r.status))
      cell(row, r.passed.join(', '))
      cell(row, r.hint === null ? '' : r.hint)
      return row
    })
    body.replaceChildren(...rows)
    document.getElementById('requests-empty').hidden = rows.length > 0
  } catch {}
}
setInterval(refresh, 2000)

// The name form: PATCH /challenger/{guid}, then the name as the server kept it, or why not.
const nameForm = document.getElementById('name-form')
if (nameForm !== null) {
  nameForm.addEventListener('submit', async event => {
    event.preventDefault()
    const input = document.getElementById('name')
    const result = document.getElementById('name-result')
    let message = 'Not saved: the server could not be reached.'
    let ok = false
    try {
      const res = await fetch(base + '/challenger/' + encodeURIComponent(guid), {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ name: input.value })
      })
      const answer = await res.json()
      ok = res.ok
      if (ok) {
        document.getElementById('current-name').textContent = answer.name
        document.getElementById('name-line').hidden = false
        input.value = answer.name
        message = 'Saved.'
      } else {
        message = 'Not saved: ' + answer.errorMessages[0]
      }
    } catch {}
    result.className = ok ? '' : 'error'
    result.textContent = message
  })
}
`
