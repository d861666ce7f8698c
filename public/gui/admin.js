// @ts-check
// The class board's script. It asks for the admin token when it has none (or the server refused
// it), then every few seconds reads GET /admin/summary and the sessions of GET /admin/sessions, a
// page at a time by the `next` cursor, up to a cap, and redraws. Its settings (the sessionStorage
// key, the period, the page size and the cap) are the server's, on the page's #admin element. The
// token goes in the Authorization header only: never in a URL, and the input is emptied once it is
// read. "Last seen" is relative to the server's Date header, so that a wrong clock on the
// instructor's machine does not make everyone look idle. Every value (names are the learners'
// text) goes in as text, never as HTML. On the projector's page (data-view="projector") the
// learners and challenges are drawn by projector.js instead.

/** @typedef {{ guid: string, name: string | null, createdAt: string, lastSeen: string, passed: number[], hunt: { found: number, hidden: number } | null, medals: Array<{ id: string, name: string }>, grade?: Grade | null }} Session */
/** @typedef {{ caught: number, total: number, score: number | null, complete: boolean, survivors: string[] }} Grade */
/** @typedef {{ id: number, name: string, passedBy: number }} ChallengeCount */
/** @typedef {{ live: number, activeLast10Minutes: number, challenges: ChallengeCount[] }} Summary */
/** @typedef {{ list: Session[], total: number, more: boolean, date: number }} Sessions */

/**
 * The page's element with this id: the server rendered it.
 * @param {string} id
 */
const $ = id => /** @type {HTMLElement} */ (document.getElementById(id))
const settings = $('admin').dataset
const base = settings.base ?? ''
const KEY = settings.tokenKey ?? ''
const EVERY = Number(settings.refreshMs)
const PAGE = Number(settings.page)
const CAP = Number(settings.cap)
/** The projector's drawing, on its page only. */
const projector = settings.view === 'projector' ? await import('./projector.js') : null
/** @type {string | null} */
let token = null
/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer
try { token = sessionStorage.getItem(KEY) } catch {}

/** An answer of the server's other than 2xx, with its error message. */
class Refused extends Error {
  /**
   * @param {number} status
   * @param {string} message
   */
  constructor (status, message) {
    super(message)
    this.status = status
  }
}

/**
 * Keeps the token in this tab's sessionStorage (null: forgets it).
 * @param {string | null} value
 */
function keep (value) {
  token = value
  try {
    if (value === null) sessionStorage.removeItem(KEY)
    else sessionStorage.setItem(KEY, value)
  } catch {}
}

/**
 * Shows the token's form, with `message` above it ('': none).
 * @param {string} message
 */
function ask (message) {
  clearTimeout(timer)
  $('board').hidden = true
  $('login').hidden = false
  $('message').textContent = message
  $('message').hidden = message === ''
  $('token').focus()
}

/**
 * The JSON answer to GET `path` with the token `used`, and the server's Date (NaN: none).
 * @param {string} path
 * @param {string} used
 * @returns {Promise<{ body: any, date: number }>}
 */
async function get (path, used) {
  const res = await fetch(base + path, { headers: { Authorization: 'Bearer ' + used, Accept: 'application/json' }, cache: 'no-store' })
  if (!res.ok) {
    let message = 'HTTP ' + res.status
    try { message = (await res.json()).errorMessages[0] || message } catch {}
    throw new Refused(res.status, message)
  }
  return { body: await res.json(), date: Date.parse(res.headers.get('date') || '') }
}

/**
 * Up to CAP sessions, most recently active first, PAGE at a time.
 * @param {string} used
 * @returns {Promise<Sessions>}
 */
async function sessions (used) {
  /** @type {Session[]} */
  const list = []
  const seen = new Set()
  /** @type {string | null} */
  let cursor = null
  let total = 0
  let date = NaN
  do {
    const page = await get('/admin/sessions?limit=' + PAGE + (cursor === null ? '' : '&cursor=' + encodeURIComponent(cursor)), used)
    if (cursor === null) { total = page.body.total; date = page.date }
    // A learner who became active while we paged has moved to the front: shown next time.
    for (const s of /** @type {Session[]} */ (page.body.sessions)) {
      if (seen.has(s.guid) || list.length >= CAP) continue
      seen.add(s.guid)
      list.push(s)
    }
    cursor = page.body.next
  } while (cursor !== null && list.length < CAP)
  return { list, total, more: cursor !== null, date }
}

/**
 * How long ago, in words.
 * @param {number} ms
 */
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

/** @param {number} id */
function pad (id) { return String(id).padStart(2, '0') }

/**
 * A new cell at the end of `row`, with a class and a label for the phone's cards ('': none).
 * @param {HTMLTableRowElement} row
 * @param {string} className
 * @param {string} label
 */
function cell (row, className, label) {
  const td = document.createElement('td')
  if (className !== '') td.className = className
  if (label !== '') td.dataset.label = label
  row.appendChild(td)
  return td
}

/**
 * A new `tag` element at the end of `parent`, holding `text`.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {HTMLElement} parent
 * @param {K} tag
 * @param {string} text
 */
function element (parent, tag, text) {
  const node = document.createElement(tag)
  node.textContent = text
  parent.appendChild(node)
  return node
}

/**
 * A progress bar at the end of `parent`.
 * @param {HTMLElement} parent
 * @param {number} value
 * @param {number} max
 */
function bar (parent, value, max) {
  const bar = document.createElement('progress')
  bar.max = Math.max(max, 1)
  bar.value = value
  parent.appendChild(bar)
  return bar
}

/**
 * A learner's row: who, how far, when last seen, the next challenge, and their bug hunt.
 * @param {Session} s
 * @param {ChallengeCount[]} challenges
 * @param {number} now
 */
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
  // The medals earned: how many, each named in the tooltip and for a screen reader.
  const medals = cell(row, 'medals', 'medals')
  if (s.medals.length > 0) {
    medals.textContent = '★ ' + s.medals.length
    medals.title = s.medals.map(m => m.name).join(', ')
    medals.setAttribute('aria-label', s.medals.length + ' medals: ' + medals.title)
  }
  const time = element(cell(row, 'seen', 'last seen'), 'time', ago(now - seen))
  time.dateTime = s.lastSeen
  time.title = new Date(seen).toLocaleString()
  cell(row, 'next', 'next').textContent = next === undefined ? 'all done' : pad(next.id) + ' ' + next.name
  // A bug hunt's defects found of those hidden (never which), and "complete" once all are; empty for a session that is no hunt.
  const hunt = cell(row, 'hunt', 'bug hunt')
  if (s.hunt !== null) {
    const complete = s.hunt.hidden > 0 && s.hunt.found >= s.hunt.hidden
    hunt.textContent = s.hunt.found + '/' + s.hunt.hidden + (complete ? ' complete' : '')
    if (complete) hunt.classList.add('complete')
  }
  // The latest grading run: caught of total, and the families of the defects that survived it.
  const grade = cell(row, 'grade', 'grade')
  if (s.grade != null) {
    grade.textContent = gradeText(s.grade)
    if (s.grade.survivors.length > 0) grade.title = 'survived: ' + s.grade.survivors.join(', ')
  }
  return row
}

/**
 * "12/15 80%", and the survivors' families in short: "12/15 80% · headers, body".
 * @param {Grade} g
 */
function gradeText (g) {
  const families = [...new Set(g.survivors)]
  return g.caught + '/' + g.total + (g.score === null ? '' : ' ' + g.score + '%') + (families.length > 0 ? ' · ' + families.join(', ') : '')
}

/**
 * A challenge's row: how many of the live sessions passed it.
 * @param {ChallengeCount} c
 * @param {number} live
 */
function challengeRow (c, live) {
  const row = document.createElement('tr')
  row.dataset.id = String(c.id)
  cell(row, '', '').textContent = pad(c.id)
  cell(row, '', '').textContent = c.name
  bar(cell(row, '', ''), c.passedBy, live)
  cell(row, 'count', '').textContent = c.passedBy + ' of ' + live
  return row
}

/**
 * Puts `rows` in the body of the table with this id.
 * @param {string} id
 * @param {HTMLTableRowElement[]} rows
 */
function fill (id, rows) {
  const table = /** @type {HTMLTableElement} */ ($(id))
  table.tBodies[0]?.replaceChildren(...rows)
}

/**
 * Redraws the board.
 * @param {Summary} summary
 * @param {Sessions} list
 * @param {number} now
 */
function draw (summary, list, now) {
  $('live').textContent = String(summary.live)
  $('active').textContent = String(summary.activeLast10Minutes)
  const updated = /** @type {HTMLTimeElement} */ ($('updated'))
  updated.dateTime = new Date(now).toISOString()
  updated.textContent = new Date(now).toLocaleTimeString()
  if (projector !== null) {
    projector.draw(summary, list, now)
    return
  }
  $('learner-count').textContent = '(' + list.total + ')'
  $('more').hidden = !list.more
  $('more').textContent = list.more
    ? 'Showing the ' + list.list.length + ' most recently active of ' + list.total + ' learners; Download CSV, below, has them all.'
    : ''
  fill('learners', list.list.map(s => learnerRow(s, summary.challenges, now)))
  $('no-learners').hidden = list.list.length > 0
  fill('challenge-bars', summary.challenges.map(c => challengeRow(c, summary.live)))
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
        ? 'The server refused that token (403): it is not this server\'s ADMIN_TOKEN. Enter it again.'
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
  const input = /** @type {HTMLInputElement} */ ($('token'))
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

/**
 * Every learner as CSV: the pages of GET /admin/sessions with Accept: text/csv, by the cursor in
 * each answer's Link header, the header line once.
 * @param {string} used
 */
async function csv (used) {
  let text = ''
  /** @type {string | null} */
  let path = '/admin/sessions?limit=1000'
  while (path !== null) {
    const res = await fetch(base + path, { headers: { Authorization: 'Bearer ' + used, Accept: 'text/csv' }, cache: 'no-store' })
    if (!res.ok) throw new Refused(res.status, 'HTTP ' + res.status)
    const body = await res.text()
    text += text === '' ? body : body.slice(body.indexOf('\r\n') + 2)
    const next = /<[^>]*(\/admin\/sessions\?[^>]*)>; rel="next"/.exec(res.headers.get('link') ?? '')
    path = next === null ? null : next[1] ?? null
  }
  return text
}

// Saved as a file from the page: the token goes in the header of each request, never in a URL.
document.getElementById('download')?.addEventListener('click', async () => {
  const used = token
  if (used === null) return
  const status = $('download-status')
  status.textContent = 'Preparing the file…'
  try {
    const url = URL.createObjectURL(new Blob([await csv(used)], { type: 'text/csv' }))
    const link = document.createElement('a')
    link.href = url
    link.download = 'learners-' + new Date().toISOString().slice(0, 10) + '.csv'
    document.body.append(link)
    link.click()
    link.remove()
    setTimeout(() => URL.revokeObjectURL(url), 60_000)
    status.textContent = ''
  } catch (error) {
    status.textContent = 'The download failed (' + (error instanceof Refused ? error.message : 'the server could not be reached') + ').'
  }
})

document.getElementById('forget')?.addEventListener('click', () => {
  keep(null)
  ask('The token is forgotten in this tab.')
})

if (token === null) ask('')
else { $('board').hidden = false; load() }
