// The landing and challenges pages as plain strings, every value escaped; their stylesheet, icon and
// scripts are files in public/gui/ (no front-end build).
import type { Challenge, ChallengeRow } from '../challenges/catalogue.js'
import { duration } from '../challenges/messages.js'
import type { JournalView } from '../journal/journal.js'
import { huntTitle, viewComplete, type HuntView } from './hunt.js'
import { escapeHtml } from './html.js'
import { medalRail } from './medal-rail.js'

export { escapeHtml }

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

/** Said wherever a session id is shown: as in the reference, the id alone reads the token and the note. */
export const BEARER_WARNING = 'Your session id is like a password: share your progress link and you share your session.'

const bearerWarning = `<p class="warning"><strong>${BEARER_WARNING}</strong> Whoever has it can read your token and your ` +
  'secret note (<code>GET /challenger/&lt;id&gt;</code>), write the note and pass challenges as you.</p>'

/** A whole page; `script` (one path or several) and `stylesheet` are paths under `base`. */
export function page (base: string, title: string, body: string, script: string | readonly string[] = '', stylesheet = ''): string {
  const scripts = [script].flat().filter(path => path !== '')
  return '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title><link rel="icon" href="${escapeHtml(base)}/gui/icon.svg">` +
    `<link rel="stylesheet" href="${escapeHtml(base)}/gui/style.css">` +
    `${stylesheet === '' ? '' : `<link rel="stylesheet" href="${escapeHtml(base)}${stylesheet}">`}` +
    scripts.map(path => `<script type="module" src="${escapeHtml(base)}${path}"></script>`).join('') + '</head>' +
    `<body><main>${body}</main></body></html>\n`
}

/** A word longer than a phone's line (a URL with a session id in it): it may break, where another scrolls its block. */
const LONG_WORD = 44

/** A command as the learner types it, each word in an unbreakable <span>: it wraps only at its spaces (but a word too long for a phone's line). */
export function command (text: string): string {
  return `<pre class="command">${escapeHtml(text).replace(/\S+/g, word => word.length > LONG_WORD ? `<span class="long">${word}</span>` : `<span>${word}</span>`)}</pre>`
}

export interface LandingOptions {
  /** The mount prefix ('' at the root), so that every link works under a prefix too. */
  base: string
  /** Where the learner reached this server, such as `http://127.0.0.1:3000`, from the request. */
  origin: string
  /** The Basic credentials /secret/token accepts; the password is shown only when it is the reference's. */
  username: string
  password: string
  docs: boolean
  challengeCount: number
}

// The reference's default password is public; any other is not shown.
function shownPassword (password: string): string {
  return password === 'password' ? password : '<the password you were given>'
}

export function landingPage (options: LandingOptions): string {
  const { base, docs, challengeCount } = options
  const b = escapeHtml(base)
  const url = `${options.origin}${base}`
  const credentials = `${options.username}:${shownPassword(options.password)}`
  return page(base, 'API Challenges: secret note and heartbeat', `
<h1>API Challenges: secret note and heartbeat</h1>
<p>A practice target for API testing: send requests, read the status codes and headers, and pass
<strong id="challenge-count">${challengeCount}</strong> numbered challenges. Your session id travels in the <code>X-CHALLENGER</code> header.</p>
<h2>Start</h2>
<ol>
<li>Create a session (challenge 01): ${command(`curl -i -X POST ${url}/challenger`)} and keep the <code>X-CHALLENGER</code> it answers with.</li>
<li>Get a token (challenge 30): ${command(`curl -i -X POST ${url}/secret/token -u '${credentials}' -H "X-CHALLENGER: <your id>"`)}</li>
<li>Write your secret note (challenge 34): ${command(`curl -i -X POST ${url}/secret/note -H "X-CHALLENGER: <your id>" -H "X-AUTH-TOKEN: <token>" -H 'Content-Type: application/json' -d '{"note":"my secret"}'`)}</li>
</ol>
<h2>Then</h2>
<p>That is 3 of the ${challengeCount} challenges. The other ${challengeCount - 3} (the heartbeat's status codes, method overrides,
reading the note, the wrong and missing tokens) are on your progress page: enter your session id below. It lists
every challenge with the request that passes it, your session id and this server already filled in; it ticks
them off as you pass them, and shows what the server saw of your last requests.</p>
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

/** A row of the challenges page: the catalogue's, with the reference's solution page, if any. */
export interface PageRow extends ChallengeRow {
  solution?: string | undefined
}

export function solutionUrls (list: ReadonlyArray<Pick<Challenge, 'id' | 'solution'>>, solutionsBase: string): Map<number, string> {
  return new Map(list.flatMap(c => c.solution === undefined ? [] : [[c.id, `${solutionsBase}${c.solution}`] as const]))
}

export function progressText (rows: readonly ChallengeRow[]): string {
  return `${rows.filter(row => row.status).length} of ${rows.length} done`
}

export const SESSION_PLACEHOLDER = '<your session id>'

/** A catalogue hint naming this server (`address`) and, for a live session, its `guid`; the token stays a placeholder. */
export function filledHint (hint: string, address: string, guid: string | null): string {
  const addressed = hint.replace(/^([A-Z]+) \//, (_line, method: string) => `${method} ${address}/`)
  return guid === null ? addressed : addressed.replaceAll(SESSION_PLACEHOLDER, () => guid)
}

function solutionLink (row: PageRow): string {
  if (row.solution === undefined) return ''
  const id = String(row.id).padStart(2, '0')
  const label = `solution to challenge ${id}, on ${new URL(row.solution).host} (leaves this site)`
  return ` <a class="solution" href="${escapeHtml(row.solution)}" rel="external noopener noreferrer" aria-label="${escapeHtml(label)}">solution ↗</a>`
}

/** A request as the journal column shows it: each segment an unbreakable <span>, a line break allowed only before a "/" (but the first), "?" or "&" (<wbr>). */
export function requestHtml (entry: Pick<JournalView, 'method' | 'path' | 'query'>): string {
  const target = entry.query === undefined ? entry.path : `${entry.path}?${entry.query}`
  return `${escapeHtml(entry.method)} ${target.split(/(?=[/?&])/).map(segment => `<span>${escapeHtml(segment)}</span>`).join('<wbr>')}`
}

/** One journal entry as a row of "Your last requests" (public/gui/refresh.js builds the same, and puts a copy button in the last cell). */
function requestRow (entry: JournalView): string {
  return `<tr class="${entry.passed.length > 0 ? 'passed' : entry.hint === null ? '' : 'near'}"><td><time datetime="${escapeHtml(entry.at)}">${escapeHtml(entry.at.slice(11, 19))}</time></td>` +
    `<td class="request"><code>${requestHtml(entry)}</code></td><td>${entry.status}</td>` +
    `<td>${entry.passed.length === 0 ? '' : escapeHtml(entry.passed.join(', '))}</td><td>${escapeHtml(entry.hint ?? '')}</td>` +
    `<td class="entry-id"><code>${escapeHtml(entry.id)}</code></td><td class="copy"></td></tr>`
}

// The entry id column is for a hunt's findings: style.css shows it only while the table has the class hunt.
// The copy buttons are the script's (they need the clipboard); the replay links work without it.
function requestsSection (requests: readonly JournalView[], hunt: boolean, journal: string): string {
  return `
<h2>Your last requests</h2>
<p>What the server saw for this session, newest first, with what each request passed and, when one came close to a challenge, what was different.</p>
<div class="scroll"><table id="requests"${hunt ? ' class="hunt"' : ''}>
<thead><tr><th>time (UTC)</th><th>request</th><th>status</th><th>passed</th><th>hint</th><th class="entry-id">entry id</th><th class="copy">replay</th></tr></thead>
<tbody>
${requests.map(requestRow).join('\n')}
</tbody></table></div>
<p id="requests-empty"${requests.length === 0 ? '' : ' hidden'}>No requests yet: send one with your X-CHALLENGER header and it shows here.</p>
<p id="replay">Send them again: <a href="${escapeHtml(journal)}?format=curl">as curl commands</a> (a shell script) or
<a href="${escapeHtml(journal)}?format=http">as a .http file</a> (VS Code's REST Client, JetBrains' HTTP Client), oldest first.
Each row's "copy curl" copies its own command, with this server and your session id filled in and your token as <code>$TOKEN</code>
(<code>export TOKEN=&lt;your token&gt;</code> first). Your token, credentials and note are never kept: a placeholder stands in for a note.</p>`
}

/** One found defect of a hunt (public/gui/refresh.js builds the same). */
function foundItem (defect: HuntView['found'][number]): string {
  return `<li data-defect="${escapeHtml(defect.id)}"><strong>${escapeHtml(defect.name)}</strong>` +
    `<p>What was wrong: ${escapeHtml(defect.breaks)}</p><p>Why it matters: ${escapeHtml(defect.why)}</p></li>`
}

/** A bug hunt: found out of hidden, the found defects revealed, and how to report a finding. */
function huntSection (view: HuntView, address: string, guid: string): string {
  const found = view.found
  return `
<section id="hunt">
<h2 id="hunt-title">${escapeHtml(huntTitle(view))}</h2>
<p>Deliberate defects are hidden in this session's answers. When an answer looks wrong, report it: copy the
request's id from the "entry id" column of "Your last requests" (or from <code>GET /challenger/&lt;id&gt;/requests</code>)
and send it as a finding. The answer says whether a hidden defect changed that answer (then it is found, and
shown below) or why the service was right there.</p>
${command(`curl -i -X POST ${address}/challenger/${guid}/findings -H 'Content-Type: application/json' -d '{"entry": "<entry id>"}'`)}
<ul id="hunt-found">${found.map(foundItem).join('')}</ul>
<p id="hunt-none"${found.length === 0 ? '' : ' hidden'}>None found yet.</p>
<p id="hunt-complete"${viewComplete(view) ? '' : ' hidden'}><strong>Every defect hidden in this session is found: the hunt is over.</strong>
Compare notes with the class, or grade a test suite against every defect (docs/bug-hunt.md).</p>
</section>`
}

// The name form (public/gui/name.js sends it); its input has no `name`: without the script, a submit only reloads.
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

export interface ChallengesPageOptions {
  base: string
  origin: string
  guid: string | null
  live: boolean
  rows: readonly PageRow[]
  docs: boolean
  /** The session's last requests; null: no "Your last requests". */
  requests: readonly JournalView[] | null
  name: string | undefined
  /** With the class board on, a live session's page has the name form. */
  board: boolean
  /** A live session's bug hunt, or null when it is none. */
  hunt: HuntView | null
  /** Multi-player mode: the page keeps the session in the browser, to restore it (public/gui/restore.js). */
  keep?: boolean
  /** Set when the session is not live because it expired recently: how long a session lasts without a request. */
  expiredAfterMs?: number | undefined
}

/** What restore.js shows: that the browser keeps the session, the restore offer, and the word that it was restored. */
function restoreSection (): string {
  return `
<p id="kept" hidden>Your progress is also kept in this browser (this session's id, token, note and passed challenges, in its
local storage), so that you can restore it here should the session expire.</p>
<div id="restore" hidden>
<p id="restore-text"></p>
<p class="field"><button id="restore-button" type="button">Restore my session</button> <span id="restore-result" role="status"></span></p>
</div>
<p id="restored" role="status" hidden></p>`
}

/** Why the page shows no live session: it expired (and how to get it back), or there is none by this id. */
function goneLine (options: ChallengesPageOptions): string {
  if (options.expiredAfterMs === undefined) return ' (no live session by this id: create one with POST /challenger)</p>'
  return '</p>\n<p id="session-gone" class="warning"><strong>This session has expired</strong>: a session ends after ' +
    `${duration(options.expiredAfterMs)} ` +
    'without a request. Restore it with the button below when this browser kept it, or with <code>PUT /challenger/&lt;id&gt;</code> and the JSON ' +
    'saved from <code>GET /challenger/&lt;id&gt;</code>; or start a new session with <code>POST /challenger</code>.</p>'
}

/** The catalogue as a table with the session's statuses and how to pass each, and its last requests when it has a journal. */
export function challengesPage (options: ChallengesPageOptions): string {
  const { base, guid, live, rows, docs, requests } = options
  const done = rows.filter(row => row.status).length
  const nameForm = live && options.board
  const who = guid === null
    ? '<p>No session chosen: every challenge shows as not done.</p>'
    : `<p>Session <code class="guid">${escapeHtml(guid)}</code>${live ? '</p>' : goneLine(options)}\n${bearerWarning}${nameForm ? nameSection(options.name) : ''}`
  const address = `${options.origin}${base}`
  const known = live ? guid : null
  const hunt = known !== null && options.hunt !== null ? huntSection(options.hunt, address, known) : ''
  const body = rows.map(row => `<tr data-id="${row.id}" class="${row.status ? 'done' : 'todo'}">` +
    `<td>${String(row.id).padStart(2, '0')}</td><td>${escapeHtml(row.name)}</td><td>${unbroken(escapeHtml(row.description))}` +
    `<details><summary>How to pass it</summary>${command(filledHint(row.hint, address, known))}</details>${solutionLink(row)}</td>` +
    `<td class="status">${row.status ? 'done' : 'not done'}</td></tr>`).join('\n')
  const keep = guid !== null && options.keep === true
  const view = known !== null ? options.hunt : null
  const medals = medalRail({ passed: rows.filter(row => row.status).map(row => row.id), hunt: view === null ? null : { found: view.found.length, hidden: view.hidden } })
  const scripts = guid === null ? [] : [...keep ? ['/gui/restore.js'] : [], '/gui/refresh.js', ...nameForm ? ['/gui/name.js'] : []]
  return page(base, 'Challenges', `
<h1>Challenges</h1>
${who}
<p><progress id="progress" value="${done}" max="${rows.length}"></progress> <span id="progress-text">${progressText(rows)}</span></p>${medals}${keep ? restoreSection() : ''}${hunt}
<div class="scroll"><table id="challenges" data-base="${escapeHtml(base)}" data-guid="${escapeHtml(guid ?? '')}" data-journal="${requests === null ? '' : '1'}" data-hunt="${live ? hunt === '' ? '0' : '1' : ''}" data-live="${live ? '1' : ''}">
<thead><tr><th>id</th><th>challenge</th><th>how to pass it</th><th>status</th></tr></thead>
<tbody>
${body}
</tbody></table></div>${requests === null ? '' : requestsSection(requests, hunt !== '', `${base}/challenger/${guid as string}/requests`)}
<p><a href="${escapeHtml(base)}/">Home</a>${docs ? ` · <a href="${escapeHtml(base)}/docs">API documentation</a>` : ''}</p>`, scripts)
}

// Header names kept on one line: a narrow screen breaks at their hyphens otherwise.
function unbroken (html: string): string {
  return html.replace(/\bX-[A-Za-z]+(?:-[A-Za-z]+)*/g, name => `<span class="header-name">${name}</span>`)
}
