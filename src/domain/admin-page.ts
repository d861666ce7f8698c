// The class board's page (GET /admin), for the instructor: the page itself, its stylesheet and the
// script that fills it in from GET /admin/sessions and GET /admin/summary. The page carries no
// token and no learner's data: it asks for the admin token, keeps it in sessionStorage and sends it
// as a Bearer token from its script, which inserts every value (names are the learners' text) as
// text, never as HTML, under the pages' Content-Security-Policy (no inline script or style).
import { escapeHtml, page } from './pages.js'

/** How often the board refreshes itself, in milliseconds. */
export const BOARD_REFRESH_MS = 5000
/** Sessions asked for per request of GET /admin/sessions, and the most the board shows. */
export const BOARD_PAGE = 250
export const BOARD_CAP = 1000
/** The sessionStorage key the token is kept under, for this tab only. */
export const TOKEN_KEY = 'api-challenges admin token'

/**
 * The board, empty: the script fills it in once a token is entered. The token's input has no
 * `name`, so that a submit without the script (it failed to load) puts nothing in the URL.
 */
export function adminPage (base: string): string {
  return page(base, 'Class board', `
<h1>Class board</h1>
<div id="admin" data-base="${escapeHtml(base)}">
<noscript><p class="error">The board is filled in by its script: turn JavaScript on for this page.</p></noscript>
<p id="message" class="error" role="alert" hidden></p>
<form id="login" hidden>
<p>Enter the admin token the server was started with (<code>ADMIN_TOKEN</code>). It is kept in this tab only, until you close it.</p>
<p class="field"><label for="token">Admin token</label> <input id="token" type="password" autocomplete="off" spellcheck="false" required>
<button type="submit">Show the board</button></p>
</form>
<section id="board" hidden>
<dl id="totals">
<div><dt>live sessions</dt><dd id="live">0</dd></div>
<div><dt>active in the last 10 minutes</dt><dd id="active">0</dd></div>
<div><dt>updated</dt><dd><time id="updated"></time></dd></div>
</dl>
<p id="status" role="status"></p>
<h2>Learners <span id="learner-count"></span></h2>
<p id="more" hidden></p>
<table id="learners">
<thead><tr><th>learner</th><th>progress</th><th>last seen</th><th>next challenge</th></tr></thead>
<tbody></tbody></table>
<p id="no-learners" hidden>No learners yet: sessions appear here as they are created.</p>
<h2>Challenges</h2>
<table id="challenge-bars">
<thead><tr><th>id</th><th>challenge</th><th>passed by</th><th></th></tr></thead>
<tbody></tbody></table>
<p><button id="forget" type="button">Forget the token</button></p>
</section>
</div>`, '/gui/admin.js', '/gui/admin.css')
}

/** The board's own rules, after the pages' stylesheet; narrow screens get one card per learner. */
export const ADMIN_STYLESHEET = `
#admin .error { border-left: .25rem solid #a01c1c; background: #fbeaea; padding: .5rem .75rem; }
#forget { font: inherit; padding: .3rem .8rem; }
#token { width: 20rem; }
#totals { display: flex; flex-wrap: wrap; gap: .75rem; margin: 1rem 0 .5rem; }
#totals div { background: #ecece8; padding: .5rem .9rem; min-width: 8rem; }
#totals dt { color: #4a4a45; font-size: .85rem; }
#totals dd { margin: 0; font-size: 1.6rem; font-weight: 600; }
#totals div:last-child dd { font-size: 1rem; font-weight: 400; padding-top: .5rem; }
#status { color: #4a4a45; min-height: 1.2em; }
#status.error { color: #a01c1c; }
#learner-count { color: #4a4a45; font-weight: 400; }
#admin progress { width: 100%; max-width: 16rem; height: .9rem; vertical-align: middle; }
#learners .learner { overflow-wrap: anywhere; }
#learners .learner strong { margin-right: .4rem; }
/* A name, isolated: a direction it carries cannot turn the short id after it around. */
#learners .name { unicode-bidi: isolate; }
#learners .learner code, #learners .unnamed { color: #4a4a45; }
#learners .count, #challenge-bars .count { white-space: nowrap; }
#learners .progress { min-width: 10rem; }
#learners tr.finished .count { color: #0b6b2b; font-weight: 600; }
#learners tr.idle { color: #77776f; }
#challenge-bars td:first-child { width: 2.5rem; }
#challenge-bars td:nth-child(3) { width: 40%; }
@media (max-width: 40rem) {
  #learners thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  #learners tr { display: grid; grid-template-columns: 1fr auto; gap: .2rem .75rem; padding: .5rem 0; border-bottom: 1px solid #d8d8d2; }
  #learners td { border: 0; padding: 0; min-width: 0; }
  #learners .learner, #learners .progress { grid-column: 1 / -1; }
  #learners td[data-label]::before { content: attr(data-label) ": "; color: #4a4a45; }
  #challenge-bars thead { display: none; }
  #challenge-bars tr { display: grid; grid-template-columns: 2.5rem 1fr auto; gap: .2rem .5rem; padding: .4rem 0; border-bottom: 1px solid #d8d8d2; }
  #challenge-bars td { border: 0; padding: 0; min-width: 0; width: auto !important; }
  #challenge-bars td:nth-child(3) { grid-column: 2; }
  #challenge-bars td:nth-child(2) { grid-column: 2 / -1; overflow-wrap: anywhere; }
}
`

/**
 * The board's script. It asks for the token when it has none (or the server refused it), then every
 * BOARD_REFRESH_MS reads the summary and up to BOARD_CAP sessions, BOARD_PAGE at a time by the
 * `next` cursor, and redraws. The token goes in the Authorization header only: never in a URL, and
 * the input is emptied once it is read. "Last seen" is relative to the server's Date header, so
 * that a wrong clock on the instructor's machine does not make everyone look idle.
 */
export const ADMIN_SCRIPT = `
'use strict'
const root = document.getElementById('admin')
const base = root.dataset.base
const KEY = ${JSON.stringify(TOKEN_KEY)}
const EVERY = ${BOARD_REFRESH_MS}
const PAGE = ${BOARD_PAGE}
const CAP = ${BOARD_CAP}
const $ = id => document.getElementById(id)
let token = null
let timer
try { token = sessionStorage.getItem(KEY) } catch {}

class Refused extends Error {
  constructor (status, message) { super(message); this.status = status }
}

function keep (value) {
  token = value
  try {
    if (value === null) sessionStorage.removeItem(KEY)
    else sessionStorage.setItem(KEY, value)
  } catch {}
}

function ask (message) {
  clearTimeout(timer)
  $('board').hidden = true
  $('login').hidden = false
  $('message').textContent = message
  $('message').hidden = message === ''
  $('token').focus()
}

async function get (path, used) {
  const res = await fetch(base + path, { headers: { Authorization: 'Bearer ' + used, Accept: 'application/json' }, cache: 'no-store' })
  if (!res.ok) {
    let message = 'HTTP ' + res.status
    try { message = (await res.json()).errorMessages[0] || message } catch {}
    throw new Refused(res.status, message)
  }
  return { body: await res.json(), date: Date.parse(res.headers.get('date') || '') }
}

async function sessions (used) {
  const list = []
  const seen = new Set()
  let cursor = null
  let total = 0
  let date = NaN
  do {
    const page = await get('/admin/sessions?limit=' + PAGE + (cursor === null ? '' : '&cursor=' + encodeURIComponent(cursor)), used)
    if (cursor === null) { total = page.body.total; date = page.date }
    // A learner who became active while we paged has moved to the front: shown next time.
    for (const s of page.body.sessions) {
      if (seen.has(s.guid) || list.length >= CAP) continue
      seen.add(s.guid)
      list.push(s)
    }
    cursor = page.body.next
  } while (cursor !== null && list.length < CAP)
  return { list, total, more: cursor !== null, date }
}

function ago (ms) {
  const s = Math.max(0, Math.round(ms / 1000))
  if (s < 10) return 'just now'
  if (s < 60) return s + ' s ago'
  const m = Math.floor(s / 60)
  if (m < 60) return m + ' min ago'
  const h = Math.floor(m / 60)
  if (h < 24) return h + ' h ago'
  return Math.floor(h / 24) + ' d ago'
}

function pad (id) { return String(id).padStart(2, '0') }

function cell (row, className, label) {
  const td = document.createElement('td')
  if (className !== '') td.className = className
  if (label !== '') td.dataset.label = label
  row.appendChild(td)
  return td
}

function element (parent, tag, text) {
  const node = document.createElement(tag)
  node.textContent = text
  parent.appendChild(node)
  return node
}

function bar (parent, value, max) {
  const bar = document.createElement('progress')
  bar.max = Math.max(max, 1)
  bar.value = value
  parent.appendChild(bar)
  return bar
}

function learnerRow (s, challenges, now) {
  const row = document.createElement('tr')
  row.dataset.short = s.guid.slice(0, 8)
  const passed = new Set(s.passed)
  const count = challenges.filter(c => passed.has(c.id)).length
  const next = challenges.find(c => !passed.has(c.id))
  const seen = Date.parse(s.lastSeen)
  row.className = (next === undefined ? 'finished' : '') + (now - seen > 10 * 60 * 1000 ? ' idle' : '')
  const who = cell(row, 'learner', '')
  // The short id tells two learners of one name apart; the whole id is the learner's secret.
  if (s.name === null) element(who, 'span', 'unnamed ').className = 'unnamed'
  else element(who, 'strong', s.name).className = 'name'
  element(who, 'code', s.guid.slice(0, 8))
  const progress = cell(row, 'progress', '')
  bar(progress, count, challenges.length)
  element(progress, 'span', ' ' + count + ' of ' + challenges.length).className = 'count'
  const time = element(cell(row, 'seen', 'last seen'), 'time', ago(now - seen))
  time.dateTime = s.lastSeen
  time.title = new Date(seen).toLocaleString()
  cell(row, 'next', 'next').textContent = next === undefined ? 'all done' : pad(next.id) + ' ' + next.name
  return row
}

function challengeRow (c, live) {
  const row = document.createElement('tr')
  row.dataset.id = String(c.id)
  cell(row, '', '').textContent = pad(c.id)
  cell(row, '', '').textContent = c.name
  bar(cell(row, '', ''), c.passedBy, live)
  cell(row, 'count', '').textContent = c.passedBy + ' of ' + live
  return row
}

function draw (summary, list, now) {
  $('live').textContent = String(summary.live)
  $('active').textContent = String(summary.activeLast10Minutes)
  const updated = $('updated')
  updated.dateTime = new Date(now).toISOString()
  updated.textContent = new Date(now).toLocaleTimeString()
  $('learner-count').textContent = '(' + list.total + ')'
  $('more').hidden = !list.more
  $('more').textContent = list.more
    ? 'Showing the ' + list.list.length + ' most recently active of ' + list.total + ' learners; the CSV export (Accept: text/csv on /admin/sessions) has them all.'
    : ''
  $('learners').tBodies[0].replaceChildren(...list.list.map(s => learnerRow(s, summary.challenges, now)))
  $('no-learners').hidden = list.list.length > 0
  $('challenge-bars').tBodies[0].replaceChildren(...summary.challenges.map(c => challengeRow(c, summary.live)))
}

async function load () {
  clearTimeout(timer)
  const used = token
  if (used === null) { ask(''); return }
  try {
    const [summary, list] = await Promise.all([get('/admin/summary', used).then(r => r.body), sessions(used)])
    if (used !== token) return
    draw(summary, list, Number.isNaN(list.date) ? Date.now() : list.date)
    $('status').textContent = ''
    $('status').className = ''
    $('message').hidden = true
  } catch (error) {
    // An answer for a token since replaced says nothing about the new one.
    if (used !== token) return
    if (error instanceof Refused && (error.status === 401 || error.status === 403)) {
      keep(null)
      ask(error.status === 403
        ? 'The server refused that token (403): it is not this server\\'s ADMIN_TOKEN. Enter it again.'
        : 'The server asked for the admin token (401). Enter it again.')
      return
    }
    $('status').className = 'error'
    $('status').textContent = 'The last refresh failed (' + (error instanceof Refused ? error.message : 'the server could not be reached') + '); trying again every ' + EVERY / 1000 + ' s.'
  }
  timer = setTimeout(load, EVERY)
}

$('login').addEventListener('submit', event => {
  event.preventDefault()
  const input = $('token')
  const value = input.value.trim()
  // The token is not left in the page.
  input.value = ''
  if (value === '') return
  keep(value)
  $('login').hidden = true
  $('message').hidden = true
  $('board').hidden = false
  load()
})

$('forget').addEventListener('click', () => {
  keep(null)
  ask('The token is forgotten in this tab.')
})

if (token === null) ask('')
else { $('board').hidden = false; load() }
`
