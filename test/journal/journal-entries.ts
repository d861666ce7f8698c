// A session's journal as a plain module (src/domain/journal/journal.ts): the ring of entries, the
// texts it keeps and their room, the session's own id, times, the form for Redis, and the view.
import t from 'tap'
import { nearMiss, progressFrom } from '../../src/domain/challenges/catalogue.js'
import {
  decodeEntry, encodeEntry, Journal, JOURNAL_TEXT_BYTES, journalText, keptText, knownText, MAX_JOURNAL_TEXT,
  sharedText, viewOf, worstSessionBytes, type JournalEntry
} from '../../src/domain/journal/journal.js'

const GUID = '6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b'
const OTHER = '0b1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f'
const AT = Date.UTC(2026, 10, 22, 10, 15, 30, 123)

// The journal plugin makes every route's path a known text, as it is registered.
for (const route of ['/heartbeat', '/secret/note', '/challenger/:guid', '/challenger/:guid/requests', '/gui/challenges/:guid']) knownText(route)

const entry = (overrides: Partial<JournalEntry> = {}): JournalEntry => ({
  at: AT,
  method: 'POST',
  path: '/secret/note',
  status: 415,
  token: 'valid',
  tokenSource: 'x-auth-token',
  contentType: 'application/x-www-form-urlencoded',
  passed: 0,
  hint: nearMiss('/secret/note', { method: 'POST', status: 415, token: 'valid', tokenSource: 'x-auth-token', contentType: 'application/x-www-form-urlencoded', override: null, authorization: 'none', namedSession: true }, 0),
  suggestion: null,
  ...overrides
})

/** A 404's entry, with its suggestion. */
const notFound = (path: string, suggestion: string | null = null): JournalEntry =>
  ({ at: AT, method: 'GET', path, status: 404, contentType: null, passed: 0, hint: -1, suggestion })

/** A stranger's text: `length` characters, unique for `n`. */
const hostile = (start: string, n: number, length = 200): string => `${start}${n}-`.padEnd(length, 'abcdefghijklmnopqrstuvwxyz0123456789')

/** A journal of `size` for the session GUID, with `entries` added oldest first. */
function journalWith (size: number, ...entries: JournalEntry[]): Journal {
  const journal = new Journal(size, GUID)
  for (const one of entries) journal.add(one)
  return journal
}

t.test('a journal keeps its newest entries, newest first, as they were recorded', async t => {
  const journal = new Journal(3, GUID)
  t.same(journal.entries(), [])
  journal.add(entry())
  t.same(journal.entries(), [entry()], 'an entry reads back whole')
  for (let i = 1; i < 7; i++) journal.add(entry({ status: 200 + i, at: AT + i }))
  t.same(journal.entries().map(e => [e.status, e.at]), [[206, AT + 6], [205, AT + 5], [204, AT + 4]], 'past its size, the oldest go')
  // Around the ring many times: the order holds at every step.
  for (let i = 7; i < 40; i++) {
    journal.add(entry({ status: 200 + i }))
    t.same(journal.entries().map(e => e.status), [200 + i, 199 + i, 198 + i], `after ${i + 1} entries`)
  }

  const one = journalWith(1, entry({ status: 201 }), entry({ status: 202 }))
  t.same(one.entries().map(e => e.status), [202], 'a journal of one keeps the last')
  t.throws(() => new Journal(0, GUID), RangeError)
  t.throws(() => new Journal(1.5, GUID), /at least one entry, not 1.5/)
})

t.test('every field reads back as recorded, with no verdict where there was none', async t => {
  const cases: JournalEntry[] = [
    entry(),
    entry({ method: 'PROPFIND', status: 405, token: undefined, tokenSource: undefined, contentType: null, hint: -1, path: '/heartbeat' }),
    entry({ token: 'missing', tokenSource: undefined, status: 401, passed: 1 << 30, hint: -1 }),
    entry({ token: 'wrong', tokenSource: 'bearer', status: 403, at: Date.UTC(2060, 0, 1, 0, 0, 0, 999) }),
    entry({ method: 'BREW', status: 599, contentType: 'application/json' })
  ]
  for (const one of cases) {
    const clean = JSON.parse(JSON.stringify(one)) as JournalEntry
    t.same(journalWith(1, one).entries(), [clean])
    t.same(Object.keys(journalWith(1, one).entries()[0] as JournalEntry).sort(), Object.keys(clean).sort(), 'no field of undefined')
  }
})

t.test('texts of its own: the newest whole, older ones "…", within the journal\'s room', async t => {
  const journal = new Journal(20, GUID)
  for (let n = 0; n < 20; n++) journal.add(entry({ path: hostile('/', n), contentType: hostile('application/x-', n) }))
  const list = journal.entries()
  t.same([list[0]?.path, list[0]?.contentType], [journalText(hostile('/', 19)), journalText(hostile('application/x-', 19))], 'the newest, cut as shown')
  t.equal(list[0]?.path.length, MAX_JOURNAL_TEXT)
  t.same(list.slice(1).map(e => [e.path, e.contentType]), Array(19).fill(['…', '…']), 'a 200-character text takes 120 bytes: 2 fit in 320')
  t.same(list.map(e => e.status), Array(20).fill(415), 'the entries themselves are all there')

  // A journal of one still keeps both of its texts whole.
  const small = journalWith(1, entry({ path: '/' + 'p'.repeat(300), contentType: 't/' + 'x'.repeat(250) }))
  t.same(small.entries().map(e => [e.path, e.contentType]), [[`/${'p'.repeat(98)}…`, `t/${'x'.repeat(97)}…`]])

  // A learner's typos and an odd type, again and again: equal texts take their room once, so all are kept.
  const learner = new Journal(20, GUID)
  const sent: Array<[string, string | null]> = []
  for (let n = 0; n < 20; n++) {
    const [path, type] = n % 2 === 0 ? [`/secret/notes/${n % 7}`, 'application/vnd.api+json'] : ['/heartbeat', null]
    learner.add(entry({ path, contentType: type }))
    sent.unshift([path, type])
  }
  t.same(learner.entries().map(e => [e.path, e.contentType]), sent)

  // Any mix of lengths, over and over: each text as sent or "…", every one older than a "…" a "…" too.
  const mixed = new Journal(5, GUID)
  const history: Array<[string, string | null]> = []
  let seed = 7
  const next = (): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed }
  for (let n = 0; n < 400; n++) {
    const path = next() % 3 === 0 ? '/heartbeat' : hostile('/', n, 5 + next() % 120)
    const type = next() % 2 === 0 ? null : hostile('type/', n, 5 + next() % 120)
    mixed.add(entry({ path, contentType: type }))
    history.unshift([path, type])
    let lost = false
    let bytes = 0
    for (const [i, e] of mixed.entries().entries()) {
      // Room goes to the newest first, and within an entry to its path first.
      for (const [shown, sent] of [[e.path, history[i]?.[0]], [e.contentType, history[i]?.[1]]]) {
        if (shown === '…') lost = true
        else if (shown !== (sent === null ? null : journalText(sent as string))) t.fail(`entry ${i} after ${n}: ${shown} is not ${sent}`)
        else if (shown !== null && shown !== '/heartbeat') {
          if (lost) t.fail(`entry ${i} after ${n}: a text kept older than one pushed out`)
          bytes += 16 + Math.ceil(Math.min(shown.length, MAX_JOURNAL_TEXT + 1) / 8) * 8
        }
      }
    }
    if (bytes > 240) t.fail(`after ${n}: ${bytes} bytes of texts, more than the room of a journal of 5`)
  }
})

t.test('a route\'s path with the session\'s own id takes no room, and reads back with the id', async t => {
  const journal = journalWith(20, entry({ path: `/challenger/${GUID}`, contentType: null }))
  for (let n = 0; n < 19; n++) journal.add(entry({ path: hostile('/', n), contentType: hostile('application/x-', n) }))
  const list = journal.entries()
  t.equal(list[19]?.path, `/challenger/${GUID}`, 'the oldest, behind texts pushed out, still whole')
  t.equal(list[18]?.path, '…')
  // Another session's id, the id in capitals, a path that is no route, ":guid" itself: each as sent.
  const paths = [`/challenger/${OTHER}`, `/challenger/${GUID.toUpperCase()}`, `/challenger/${GUID}/nope`, '/challenger/:guid', `/challenger/${GUID}/requests`]
  const other = journalWith(5, ...paths.map(path => entry({ path })))
  t.same(other.entries().map(e => e.path).reverse(), paths)
  const elsewhere = new Journal(1, OTHER)
  elsewhere.add(entry({ path: `/challenger/${GUID}` }))
  t.same(elsewhere.entries().map(e => e.path), [`/challenger/${GUID}`], 'in another session\'s journal, the id is text')
})

t.test('a 404\'s suggestion is a route\'s path: with the session\'s id when the path sent had it', async t => {
  const entries = [
    notFound('/heartbeats', '/heartbeat'),
    notFound(`/challenger/${GUID}/request`, `/challenger/${GUID}/requests`),
    notFound(`/challenger/${OTHER}/request`, `/challenger/${OTHER}/requests`),
    notFound('/xyz/abc/q', '/xyz/abc/r'),
    notFound('/nowhere')
  ]
  const journal = journalWith(5, ...entries)
  t.same(journal.entries().map(e => e.suggestion).reverse(), ['/heartbeat', `/challenger/${GUID}/requests`, '/challenger/:guid/requests', null, null],
    'known; the own id; another\'s id: the route as registered; not a route: none kept')
  t.same(journal.entries().map(e => e.path).reverse(), entries.map(e => e.path), 'the paths as sent')
  t.equal(viewOf(journal.entries()[4] as JournalEntry, GUID).hint, 'did you mean /heartbeat?')
  t.equal(viewOf(journal.entries()[0] as JournalEntry, GUID).hint, null)
})

t.test('times to the millisecond, however far apart; an entry twelve days older than the newest is forgotten', async t => {
  const day = 24 * 60 * 60 * 1000
  const journal = journalWith(5, entry({ at: AT, status: 200 }), entry({ at: AT + 1, status: 201 }), entry({ at: AT + 11 * day + 7, status: 202 }))
  t.same(journal.entries().map(e => e.at), [AT + 11 * day + 7, AT + 1, AT])
  journal.add(entry({ at: AT + 13 * day + 3, status: 203 }))
  t.same(journal.entries().map(e => [e.status, e.at]), [[203, AT + 13 * day + 3], [202, AT + 11 * day + 7]])
  // A clock set back by a month: the entries after it are forgotten, and it goes on from there.
  journal.add(entry({ at: AT - 20 * day, status: 204 }))
  journal.add(entry({ at: AT - 20 * day + 5, status: 205 }))
  t.same(journal.entries().map(e => [e.status, e.at]), [[205, AT - 20 * day + 5], [204, AT - 20 * day]])
})

t.test('the texts an entry keeps, and the known ones', async t => {
  t.equal(keptText('application/json'), 'application/json')
  t.equal(keptText('y'.repeat(500)), 'y'.repeat(MAX_JOURNAL_TEXT + 1), 'one character more than shown, so that it reads cut')
  t.equal(keptText('/short'), '/short')
  t.equal(journalText('x'.repeat(500)), `${'x'.repeat(MAX_JOURNAL_TEXT - 1)}…`)
  t.equal(journalText('x'.repeat(MAX_JOURNAL_TEXT)), 'x'.repeat(MAX_JOURNAL_TEXT), 'a text of the limit is whole')
  t.equal(sharedText(['/secret', 'note'].join('/')), '/secret/note')
  t.equal(sharedText('/unknown'), '/unknown')
  knownText('/heartbeat')
  t.equal(sharedText('/heartbeat'), '/heartbeat', 'registered twice, still one')
})

t.test('for Redis: a short array, texts cut as shown; today\'s entries and older ones read back', async t => {
  for (const token of [undefined, 'missing', 'valid', 'wrong'] as const) {
    for (const tokenSource of token === undefined || token === 'missing' ? [undefined] : ['x-auth-token', 'bearer'] as const) {
      const one = entry({ token, tokenSource })
      t.same(decodeEntry(encodeEntry(one)), JSON.parse(JSON.stringify(one)), `${token} ${tokenSource}`)
    }
  }
  const long = entry({ path: hostile('/', 1, 5000), contentType: hostile('application/x-', 1, 5000), suggestion: hostile('/', 2, 300) })
  const decoded = decodeEntry(encodeEntry(long))
  t.same([decoded.path, decoded.contentType, decoded.suggestion], [journalText(long.path), journalText(long.contentType as string), journalText(long.suggestion as string)])
  t.ok(encodeEntry(long).length < 3 * MAX_JOURNAL_TEXT + 100)
  t.equal(encodeEntry(notFound('/x')), '[1795342530123,"GET","/x",404,0,null,0,-1,null]', 'the form Redis already holds')
  t.equal(encodeEntry({ ...notFound('/x'), defect: 'heartbeat-200' }), '[1795342530123,"GET","/x",404,0,null,0,-1,null,"heartbeat-200"]', 'a defect, when there was one, at the end')
  t.equal(decodeEntry(encodeEntry({ ...notFound('/x'), defect: 'heartbeat-200' })).defect, 'heartbeat-200')
  t.same(decodeEntry('[1790000000000,"GET","/heartbeats",404,0,null,0,-1]'), { ...notFound('/heartbeats'), at: 1790000000000 }, 'an entry from before suggestions has none')
  t.same(decodeEntry('[1790000000000,"GET","/secret/note",401,1,"text/plain",512,-1,null]'),
    { at: 1790000000000, method: 'GET', path: '/secret/note', status: 401, token: 'missing', contentType: 'text/plain', passed: 512, hint: -1, suggestion: null })
})

t.test('the view: ISO time, ids, the sentence, no verdict where there was none', async t => {
  t.same(viewOf(entry({ passed: progressFrom({ '01': true, 34: true }), hint: -1, defect: 'note-write-201' }), GUID), {
    id: `${Date.parse('2026-11-22T10:15:30.123Z')}-${GUID.slice(0, 8)}`,
    at: '2026-11-22T10:15:30.123Z',
    method: 'POST',
    path: '/secret/note',
    status: 415,
    token: 'valid',
    tokenSource: 'x-auth-token',
    contentType: 'application/x-www-form-urlencoded',
    passed: [1, 34],
    hint: null
  })
  t.equal(viewOf(entry(), GUID).hint, 'Challenge 34 needs a JSON body such as {"note": "hi"}; this one had Content-Type application/x-www-form-urlencoded')
  const plain = viewOf(journalWith(1, entry({ token: undefined, tokenSource: undefined })).entries()[0] as JournalEntry, GUID)
  t.notOk('token' in plain || 'tokenSource' in plain)
})

t.test('a session\'s most memory, for the start-up check', async t => {
  // The session, the journal and its array, 64 bytes an entry (its object and its slot), and the text room.
  t.equal(worstSessionBytes(20), 300 + 120 + 20 * 64 + 20 * JOURNAL_TEXT_BYTES)
  t.equal(worstSessionBytes(1), 300 + 120 + 64 + 240, 'a small journal\'s room still holds its newest two texts whole')
  t.equal(worstSessionBytes(0), 300)
})
