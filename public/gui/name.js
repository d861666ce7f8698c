// @ts-check
// The name form of the challenges page (served, and named by the page, only with the class board
// on): it sends the form as PATCH /challenger/{guid}, then shows the name as the server kept it, or
// why not. That request is the learner's own, and the journal shows it. The name goes in as text.
// A module: its names are its own, not the page's (refresh.js runs beside it).

/**
 * The page's element with this id: the server rendered it.
 * @param {string} id
 */
const byId = id => /** @type {HTMLElement} */ (document.getElementById(id))
const { base = '', guid = '' } = byId('challenges').dataset
const nameForm = document.getElementById('name-form')

nameForm?.addEventListener('submit', async event => {
  event.preventDefault()
  const input = /** @type {HTMLInputElement} */ (byId('name'))
  const result = byId('name-result')
  let message = 'Not saved: the server could not be reached.'
  let ok = false
  try {
    const res = await fetch(base + '/challenger/' + encodeURIComponent(guid), {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ name: input.value })
    })
    /** @type {{ name: string, errorMessages: string[] }} */
    const answer = await res.json()
    ok = res.ok
    if (ok) {
      byId('current-name').textContent = answer.name
      byId('name-line').hidden = false
      input.value = answer.name
      message = 'Saved.'
    } else {
      message = 'Not saved: ' + answer.errorMessages[0]
    }
  } catch {}
  result.className = ok ? '' : 'error'
  result.textContent = message
})
