// @ts-check
// The class board's projector view (GET /admin?view=projector). admin.js reads the server every few
// seconds and hands the answers to draw(): the challenges' bars as columns, then a card per learner
// in an order that stays put between refreshes (by name, then by when they joined; unnamed ones
// after, by when they joined), so that learners find their own. The cards' type is the largest that
// lets every card fit on the screen without scrolling. Every value goes in as text; of the session
// id only its first 8 characters are shown (the whole id is the learner's password).

/** @typedef {import('./admin.js').Session} Session */
/** @typedef {import('./admin.js').Summary} Summary */
/** @typedef {import('./admin.js').Sessions} Sessions */

/** The cards' font size, in px: the largest that fits, down to the smallest (then the page scrolls). */
const LARGEST = 40
const SMALLEST = 12
const IDLE_MS = 10 * 60 * 1000

/** @param {string} id */
const $ = id => /** @type {HTMLElement} */ (document.getElementById(id))
const names = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true })

/**
 * The projector's order: named learners by name, then by when they joined; then the unnamed, by when
 * they joined. Ties (one name, one second) go by id, so that the order never flips between refreshes.
 * @param {Session} a
 * @param {Session} b
 */
export function order (a, b) {
  if (a.name !== b.name) {
    if (a.name === null) return 1
    if (b.name === null) return -1
    const byName = names.compare(a.name, b.name)
    if (byName !== 0) return byName
  }
  return (Date.parse(a.createdAt) - Date.parse(b.createdAt)) || (a.guid < b.guid ? -1 : a.guid > b.guid ? 1 : 0)
}

/**
 * A new `tag` element at the end of `parent`, holding `text`, with a class ('': none).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {HTMLElement} parent
 * @param {K} tag
 * @param {string} className
 * @param {string} text
 */
function element (parent, tag, className, text) {
  const node = document.createElement(tag)
  if (className !== '') node.className = className
  node.textContent = text
  parent.appendChild(node)
  return node
}

/** @param {number} id */
function pad (id) { return String(id).padStart(2, '0') }

/**
 * A challenge's column: how many of the live sessions passed it, its id beneath.
 * @param {import('./admin.js').ChallengeCount} c
 * @param {number} live
 */
function column (c, live) {
  const item = document.createElement('li')
  item.dataset.id = String(c.id)
  item.title = pad(c.id) + ' ' + c.name + ': passed by ' + c.passedBy + ' of ' + live
  element(item, 'span', 'count', String(c.passedBy))
  const fill = element(element(item, 'span', 'column', ''), 'span', 'fill', '')
  // A property of the element's style (CSSOM), which the CSP allows; a style attribute it would not.
  fill.style.height = (live === 0 ? 0 : Math.min(100, 100 * c.passedBy / live)) + '%'
  element(item, 'span', 'id', pad(c.id))
  return item
}

/**
 * A learner's card: name (or "unnamed") and short id, a bar and N of M, and their bug hunt.
 * @param {Session} s
 * @param {number} total
 * @param {Set<number>} ids
 * @param {number} now
 */
function card (s, total, ids, now) {
  const item = document.createElement('li')
  const count = s.passed.filter(id => ids.has(id)).length
  item.className = 'card' + (count === total ? ' finished' : '') + (now - Date.parse(s.lastSeen) > IDLE_MS ? ' idle' : '')
  item.dataset.short = s.guid.slice(0, 8)
  const who = element(item, 'p', 'who', '')
  if (s.name === null) element(who, 'span', 'unnamed', 'unnamed')
  else element(who, 'strong', 'name', s.name).title = s.name
  if (s.hunt !== null) {
    const hunt = element(who, 'span', 'hunt', 'hunt ' + s.hunt.found + '/' + s.hunt.hidden)
    if (s.hunt.found === s.hunt.hidden) hunt.classList.add('complete')
  }
  const how = element(item, 'p', 'how', '')
  element(how, 'code', '', s.guid.slice(0, 8))
  element(how, 'span', 'count', count + ' of ' + total)
  if (s.medals.length > 0) {
    const medals = element(how, 'span', 'medals', '★' + s.medals.length)
    medals.title = s.medals.map(m => m.name).join(', ')
    medals.setAttribute('aria-label', s.medals.length + ' medals: ' + medals.title)
  }
  // The latest grading run: caught of total, and the families of the defects that survived it.
  if (s.grade != null) {
    const families = [...new Set(s.grade.survivors)]
    element(how, 'span', 'grade', 'graded ' + s.grade.caught + '/' + s.grade.total + (families.length > 0 ? ' · ' + families.join(', ') : ''))
  }
  const bar = document.createElement('progress')
  bar.max = Math.max(total, 1)
  bar.value = count
  item.appendChild(bar)
  return item
}

/** Gives the cards the largest type with which the page does not scroll (a binary search: few layouts),
 * then a name too long for its card a smaller type, before it ends in "…". */
export function fit () {
  const grid = $('learner-grid')
  const page = document.scrollingElement ?? document.documentElement
  const fits = () => page.scrollHeight <= innerHeight && page.scrollWidth <= innerWidth
  let low = SMALLEST
  let high = LARGEST
  while (low < high) {
    const size = Math.ceil((low + high) / 2)
    grid.style.fontSize = size + 'px'
    if (fits()) low = size
    else high = size - 1
  }
  grid.style.fontSize = low + 'px'
  // Measured all at once, then changed all at once: three layouts, however many names (a resize starts again).
  const names = [...grid.querySelectorAll('.name')]
  for (const name of names) name.className = 'name'
  for (const smaller of ['long', 'longer']) {
    const over = names.filter(name => name.scrollWidth > name.clientWidth)
    for (const name of over) name.className = 'name ' + smaller
  }
}

/**
 * Redraws the bars and the cards.
 * @param {Summary} summary
 * @param {Sessions} list
 * @param {number} now
 */
export function draw (summary, list, now) {
  $('challenge-bars').replaceChildren(...summary.challenges.map(c => column(c, summary.live)))
  const ids = new Set(summary.challenges.map(c => c.id))
  const learners = [...list.list].sort(order)
  $('learner-grid').replaceChildren(...learners.map(s => card(s, summary.challenges.length, ids, now)))
  $('no-learners').hidden = learners.length > 0
  $('more').hidden = !list.more
  $('more').textContent = list.more
    ? 'Showing the ' + learners.length + ' most recently active of ' + list.total + ' learners: the board\'s Download CSV has them all.'
    : ''
  fit()
}

addEventListener('resize', fit)
