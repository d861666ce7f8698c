// @ts-check
// The progress page's keeper (named by the page only in multi-player mode). Every 2 seconds it reads
// the session as GET /challenger/{guid} answers it, from GET /gui/challenges/{guid}/session (which
// the journal does not keep, and which answers null for a session gone), and keeps it in this
// browser's localStorage whenever it changed. When the server no longer has the session (it expired,
// or the server was restarted), it offers it back
// with one click: PUT /challenger/{guid} with the kept JSON; then the page reloads and says it was
// restored. One entry per session id, so several sessions share a browser; at most KEPT entries,
// the least recently saved dropped first. Every value goes in as text, never as HTML.
// A module: its names are its own, not the page's (refresh.js runs beside it).

/** @typedef {{ xChallenger: string, xAuthToken: string, secretNote: string, challengeStatus: Record<string, boolean> }} SessionJson */
/** @typedef {{ savedAt: string, session: SessionJson }} Kept */

const PREFIX = 'api-challenges:session:'
const KEPT = 20
/** Set in sessionStorage just before the reload that follows a restore. */
const RESTORED = 'api-challenges:restored:'

/**
 * The page's element with this id: the server rendered it.
 * @param {string} id
 */
const byId = id => /** @type {HTMLElement} */ (document.getElementById(id))
const { base = '', guid = '', live = '' } = byId('challenges').dataset
// Session ids are issued in lowercase; the same UUID in capitals names the same session.
const id = guid.toLowerCase()
const key = PREFIX + id
const button = /** @type {HTMLButtonElement} */ (byId('restore-button'))
const result = byId('restore-result')

/** The session as this browser kept it, or null. */
function kept () {
  try {
    /** @type {Kept} */
    const found = JSON.parse(localStorage.getItem(key) ?? 'null')
    return found?.session?.xChallenger?.toLowerCase() === id ? found : null
  } catch {
    return null
  }
}

/** The JSON last kept, as text: only a change is written. */
let keptText = ''

/** @param {SessionJson} session */
function keep (session) {
  const text = JSON.stringify(session)
  if (text === keptText) return
  try {
    localStorage.setItem(key, JSON.stringify({ savedAt: new Date().toISOString(), session }))
    keptText = text
    forgetOldest()
  } catch {
    // Storage off or full: nothing is kept, and the page does not say it is.
    return
  }
  byId('kept').hidden = false
}

/** Drops the least recently saved sessions past KEPT. */
function forgetOldest () {
  /** @type {Array<[string, string]>} */
  const entries = []
  for (let i = 0; i < localStorage.length; i++) {
    const name = localStorage.key(i) ?? ''
    if (!name.startsWith(PREFIX)) continue
    let savedAt = ''
    try { savedAt = String(JSON.parse(localStorage.getItem(name) ?? '{}').savedAt ?? '') } catch {}
    entries.push([name, savedAt])
  }
  entries.sort((a, b) => a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0)
  for (const [name] of entries.slice(KEPT)) localStorage.removeItem(name)
}

/** @param {SessionJson} session */
function doneText (session) {
  const statuses = Object.values(session.challengeStatus ?? {})
  return statuses.filter(Boolean).length + ' of ' + statuses.length + ' challenges done'
}

/**
 * The server has no session by this id: the restore is offered, when this browser kept it.
 * @param {boolean} expired whether the server says it expired recently
 */
function offer (expired) {
  const found = kept()
  if (found === null) return
  const why = expired ? 'This session has expired' : 'The server no longer has this session (it expired, or the server was restarted)'
  byId('restore-text').textContent = why + '. This browser kept it at ' + new Date(found.savedAt).toLocaleTimeString() +
    ': ' + doneText(found.session) + ', its token and its note. Restore it to carry on where you were.'
  byId('restore').hidden = false
}

async function check () {
  try {
    const res = await fetch(base + '/gui/challenges/' + encodeURIComponent(guid) + '/session', { headers: { Accept: 'application/json' }, cache: 'no-store' })
    if (!res.ok) return
    /** @type {{ session: SessionJson | null, expired: boolean }} */
    const { session, expired } = await res.json()
    if (session === null) {
      offer(expired)
      return
    }
    keep(session)
    byId('restore').hidden = true
    // Made live again elsewhere (a PUT with curl, another tab): the server draws the live page.
    if (live !== '1') location.reload()
  } catch {}
}

button.addEventListener('click', async () => {
  const found = kept()
  if (found === null) return
  button.disabled = true
  result.className = ''
  result.textContent = 'Restoring…'
  let message = 'Not restored: the server could not be reached.'
  try {
    const res = await fetch(base + '/challenger/' + encodeURIComponent(guid), {
      method: 'PUT',
      // The page's own restore passes nothing: challenges 44 and 46 are the learner's to pass.
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Challenges-Page': '1' },
      body: JSON.stringify(found.session)
    })
    /** @type {SessionJson & { errorMessages: string[] }} */
    const answer = await res.json()
    if (res.ok) {
      keep(answer)
      sessionStorage.setItem(RESTORED + id, doneText(answer))
      location.reload()
      return
    }
    message = 'Not restored: ' + answer.errorMessages[0]
  } catch {}
  button.disabled = false
  result.className = 'error'
  result.textContent = message
})

// After the reload that followed a restore: the word that it worked.
try {
  const restored = sessionStorage.getItem(RESTORED + id)
  if (restored !== null) {
    sessionStorage.removeItem(RESTORED + id)
    byId('restored').textContent = 'Restored: your session is back on the server, with ' + restored + ', its token and its note.'
    byId('restored').hidden = false
  }
} catch {}
if (kept() !== null) byId('kept').hidden = false

check()
setInterval(check, 2000)
