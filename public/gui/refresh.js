// @ts-check
// The challenges page's refresh (named by the page only for a session). Every 2 seconds it reads
// the statuses from GET /challenges, when the page shows a journal the last requests from
// GET /challenger/{guid}/requests, and for a live session its bug hunt from
// GET /gui/challenges/{guid}/hunt, and updates the page without reloading it (but when a hunt began
// or ended). It sends X-Challenges-Page so that its own requests pass nothing (challenge 02 is the
// learner's to pass) and stay out of the journal; the hunt's request names no session in a header,
// so the journal never sees it. Every value goes in as text, never as HTML.
// A module: its names are its own, not the page's (name.js runs beside it).

/** @typedef {{ id: number, status: boolean }} ChallengeStatus */
/** @typedef {{ id: string, at: string, method: string, path: string, query?: string, status: number, passed: number[], hint: string | null }} RequestView */
/** @typedef {{ id: string, name: string, breaks: string, why: string }} FoundDefect */
/** @typedef {{ hidden: number, found: FoundDefect[] }} HuntView */

/**
 * The page's element with this id: the server rendered it.
 * @param {string} id
 */
const byId = id => /** @type {HTMLElement} */ (document.getElementById(id))
const table = /** @type {HTMLTableElement} */ (byId('challenges'))
const { base = '', guid = '' } = table.dataset

async function refresh () {
  try {
    const res = await fetch(base + '/challenges', { headers: { 'X-CHALLENGER': guid, 'X-Challenges-Page': '1', Accept: 'application/json' } })
    // No Location: the session is gone (expired). The ticks and the journal stay as they were; restore.js offers it back.
    if (!res.ok || !res.headers.has('Location')) return
    /** @type {{ challenges: ChallengeStatus[] }} */
    const { challenges } = await res.json()
    let done = 0
    for (const c of challenges) {
      const row = table.querySelector('tr[data-id="' + Number(c.id) + '"]')
      const status = row?.querySelector('.status')
      if (row == null || status == null) continue
      row.className = c.status ? 'done' : 'todo'
      status.textContent = c.status ? 'done' : 'not done'
      if (c.status) done++
    }
    const progress = /** @type {HTMLProgressElement} */ (document.getElementById('progress'))
    progress.value = done
    byId('progress-text').textContent = done + ' of ' + challenges.length + ' done'
    passedIds = challenges.filter(c => c.status).map(c => Number(c.id))
    drawMedals()
  } catch {}
  if (table.dataset.journal === '1') await refreshRequests()
  if (table.dataset.hunt !== '') await refreshHunt()
}

/**
 * A new cell at the end of `row`, holding `text`.
 * @param {HTMLTableRowElement} row
 * @param {string} text
 */
function cell (row, text) {
  const td = document.createElement('td')
  td.textContent = text
  row.appendChild(td)
  return td
}

/**
 * One request as a row of "Your last requests", as the server renders it, with a button that copies
 * its curl command when there is one.
 * @param {RequestView} r
 * @param {string | undefined} command
 */
function requestRow (r, command) {
  const row = document.createElement('tr')
  row.className = r.passed.length > 0 ? 'passed' : r.hint === null ? '' : 'near'
  const time = document.createElement('time')
  time.dateTime = r.at
  time.textContent = String(r.at).slice(11, 19)
  cell(row, '').appendChild(time)
  const request = cell(row, '')
  request.className = 'request'
  const code = request.appendChild(document.createElement('code'))
  // Each segment unbreakable, a line break allowed only before a "/" (but the first), "?" or "&".
  code.append(r.method + ' ')
  const target = r.query === undefined ? r.path : r.path + '?' + r.query
  target.split(/(?=[/?&])/).forEach((segment, i) => {
    if (i > 0) code.appendChild(document.createElement('wbr'))
    code.appendChild(document.createElement('span')).textContent = segment
  })
  cell(row, String(r.status))
  cell(row, r.passed.join(', '))
  cell(row, r.hint === null ? '' : r.hint)
  const id = cell(row, '')
  id.className = 'entry-id'
  id.appendChild(document.createElement('code')).textContent = r.id
  const copy = cell(row, '')
  copy.className = 'copy'
  if (command !== undefined) {
    const button = copy.appendChild(document.createElement('button'))
    button.type = 'button'
    button.textContent = COPY
    button.title = 'Copy this request as a curl command'
    button.addEventListener('click', () => { copyCommand(button, command) })
  }
  return row
}

const COPY = 'copy curl'
// The script's variables for this server and this session (shell's ${BASE:-…} and ${CHALLENGER:-$CH}, with
// their defaults for a line pasted alone), filled in.
const BASE = /\$\{BASE(?::-[^}]*)?\}/g
const CHALLENGER = /\$\{CHALLENGER(?::-\$CH)?\}/g

/**
 * The journal's requests as curl commands (GET …/requests?format=curl), by entry id, with this
 * server and the session filled in; the token stays $TOKEN.
 * @returns {Promise<Map<string, string>>}
 */
async function replayCommands () {
  /** @type {Map<string, string>} */
  const commands = new Map()
  try {
    const res = await fetch(base + '/challenger/' + encodeURIComponent(guid) + '/requests?format=curl', { headers: { 'X-Challenges-Page': '1' } })
    if (!res.ok) return commands
    // Each entry is a comment "# N. entry <id>, …", maybe more comment lines, then its command on one line.
    let id = ''
    for (const line of (await res.text()).split('\n')) {
      const entry = /^# \d+\. entry (\S+),/.exec(line)
      if (entry !== null) id = String(entry[1])
      else if (id !== '' && !line.startsWith('#')) {
        commands.set(id, line.replace(BASE, () => location.origin + base).replace(CHALLENGER, () => guid))
        id = ''
      }
    }
  } catch {}
  return commands
}

/**
 * Puts `command` on the clipboard, and says so on the button for a moment.
 * @param {HTMLButtonElement} button
 * @param {string} command
 */
async function copyCommand (button, command) {
  let copied = false
  try {
    await navigator.clipboard.writeText(command)
    copied = true
  } catch {
    // No clipboard API (a page over plain http from another machine is not a secure context): a selection, copied.
    const area = document.body.appendChild(document.createElement('textarea'))
    area.className = 'offscreen'
    area.value = command
    area.select()
    copied = document.execCommand('copy')
    area.remove()
  }
  button.textContent = copied ? 'copied' : 'copy failed: use the curl link below'
  setTimeout(() => { button.textContent = COPY }, 2000)
}

/** The last requests and hunt drawn, as JSON ('': none yet). */
let drawnRequests = ''
let drawnHunt = ''

async function refreshRequests () {
  try {
    const res = await fetch(base + '/challenger/' + encodeURIComponent(guid) + '/requests', { headers: { 'X-Challenges-Page': '1', Accept: 'application/json' } })
    if (!res.ok) return
    /** @type {{ requests: RequestView[] }} */
    const { requests } = await res.json()
    // Redrawn only when something changed: an entry id the learner selected to copy stays selected.
    const drawn = JSON.stringify(requests)
    if (drawn === drawnRequests) return
    drawnRequests = drawn
    const commands = await replayCommands()
    const rows = requests.map(r => requestRow(r, commands.get(r.id)))
    const body = /** @type {HTMLTableSectionElement} */ (document.querySelector('#requests tbody'))
    body.replaceChildren(...rows)
    byId('requests-empty').hidden = rows.length > 0
  } catch {}
}

/**
 * A found defect as an item of the hunt's list, as the server renders it.
 * @param {FoundDefect} d
 */
function foundItem (d) {
  const item = document.createElement('li')
  item.dataset.defect = d.id
  item.appendChild(document.createElement('strong')).textContent = d.name
  item.appendChild(document.createElement('p')).textContent = 'What was wrong: ' + d.breaks
  item.appendChild(document.createElement('p')).textContent = 'Why it matters: ' + d.why
  return item
}

// A hunt begun, or ended, since the page was made changes the page's shape: the server draws it anew.
async function refreshHunt () {
  try {
    const res = await fetch(base + '/gui/challenges/' + encodeURIComponent(guid) + '/hunt', { headers: { Accept: 'application/json' }, cache: 'no-store' })
    if (!res.ok) return
    /** @type {{ hunt: HuntView | null }} */
    const { hunt } = await res.json()
    if ((hunt !== null) !== (table.dataset.hunt === '1')) {
      location.reload()
      return
    }
    if (hunt !== null) {
      huntCounts = { found: hunt.found.length, hidden: hunt.hidden }
      drawMedals()
    }
    const drawn = JSON.stringify(hunt)
    if (hunt === null || drawn === drawnHunt) return
    drawnHunt = drawn
    const complete = hunt.hidden > 0 && hunt.found.length >= hunt.hidden
    byId('hunt-title').textContent = 'Bug hunt' + (complete ? ' complete' : '') + ': ' + hunt.found.length + ' of ' + hunt.hidden + ' found'
    byId('hunt-found').replaceChildren(...hunt.found.map(foundItem))
    byId('hunt-none').hidden = hunt.found.length > 0
    byId('hunt-complete').hidden = !complete
  } catch {}
}

/** What the medals are judged on, as last read: the ids passed, and the hunt's counts (null: no hunt). */
/** @type {number[] | null} */
let passedIds = null
/** @type {{ found: number, hidden: number } | null} */
let huntCounts = null

/**
 * Whether the medal `item` is earned: its rule is the server's, as data (medal-rail.ts).
 * @param {HTMLElement} item
 * @param {number[]} passed
 */
function isEarned (item, passed) {
  const { passed: count, all, hunt } = item.dataset
  if (count !== undefined) return passed.length >= Number(count)
  if (all !== undefined) return all.split(',').every(id => passed.includes(Number(id)))
  // Until the hunt is read, as the server drew it.
  if (huntCounts === null) return item.classList.contains('earned')
  return hunt !== undefined && huntCounts.hidden > 0 && huntCounts.found >= huntCounts.hidden
}

// The rail of medals, judged again from what the refresh read; each says in words whether it is earned.
function drawMedals () {
  const items = /** @type {HTMLElement[]} */ ([...document.querySelectorAll('#medals li.medal')])
  if (passedIds === null || items.length === 0) return
  let earned = 0
  for (const item of items) {
    const has = isEarned(item, passedIds)
    if (has) earned++
    item.className = 'medal ' + (has ? 'earned' : 'locked')
    const icon = item.querySelector('.medal-icon')
    const state = item.querySelector('.medal-state')
    if (icon !== null) icon.textContent = has ? '★' : '☆'
    if (state !== null) state.textContent = has ? 'earned' : 'not yet'
  }
  byId('medals-count').textContent = earned + ' of ' + items.length
}

setInterval(refresh, 2000)
