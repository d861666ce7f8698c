// @ts-check
// The challenges page's refresh (named by the page only for a session). Every 2 seconds it reads
// the statuses from GET /challenges and, when the page shows a journal, the last requests from
// GET /challenger/{guid}/requests, and updates the page without reloading it. It sends
// X-Challenges-Page so that its own requests pass nothing (challenge 02 is the learner's to pass)
// and stay out of the journal. Every value goes in as text, never as HTML.
// A module: its names are its own, not the page's (name.js runs beside it).

/** @typedef {{ id: number, status: boolean }} ChallengeStatus */
/** @typedef {{ at: string, method: string, path: string, status: number, passed: number[], hint: string | null }} RequestView */

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
    if (!res.ok) return
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
  } catch {}
  if (table.dataset.journal === '1') await refreshRequests()
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
 * One request as a row of "Your last requests", as the server renders it.
 * @param {RequestView} r
 */
function requestRow (r) {
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
}

async function refreshRequests () {
  try {
    const res = await fetch(base + '/challenger/' + encodeURIComponent(guid) + '/requests', { headers: { 'X-Challenges-Page': '1', Accept: 'application/json' } })
    if (!res.ok) return
    /** @type {{ requests: RequestView[] }} */
    const { requests } = await res.json()
    const rows = requests.map(requestRow)
    const body = /** @type {HTMLTableSectionElement} */ (document.querySelector('#requests tbody'))
    body.replaceChildren(...rows)
    byId('requests-empty').hidden = rows.length > 0
  } catch {}
}

setInterval(refresh, 2000)
