// The journal's tables shared by every session of a process (src/domain/journal/journal.ts's outcomes, texts.ts's
// known texts), filled past their bounds. A process of its own: once full they stay full, and the other journal
// tests (test/journal/, one process) expect room in them.
import t from 'tap'
import { Journal, knownText, sharedText, type JournalEntry } from '../src/domain/journal/journal.js'

const GUID = '6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b'
const AT = Date.UTC(2026, 10, 22)

const entry = (overrides: Partial<JournalEntry> = {}): JournalEntry =>
  ({ at: AT, method: 'POST', path: '/heartbeat', status: 405, contentType: null, passed: 0, hint: -1, suggestion: null, ...overrides })

t.test('past the pool of outcomes, what a request sent is dropped rather than kept at a cost', async t => {
  const journal = new Journal(2, GUID)
  for (let n = 0; n < 66_000; n++) journal.add(entry({ override: `M${n}` }))
  t.same(journal.entries().map(e => e.override), [undefined, undefined], 'new combinations, once the pool is full: the plain outcome')
  journal.add(entry({ override: 'M5' }))
  t.same(journal.entries().map(e => [e.method, e.status, e.override]), [['POST', 405, 'M5'], ['POST', 405, undefined]], 'one pooled before: whole')
  // The plain pool fills too: past it, an entry keeps its own, and reads the same.
  for (let n = 0; n < 66_000; n++) journal.add(entry({ override: 'x', passed: n + 1 }))
  t.same(journal.entries().map(e => e.passed), [66_000, 65_999])
})

t.test('past the known texts, a path is the journal\'s own, and reads the same', async t => {
  for (let i = 0; i < 600; i++) knownText(`/filler/${i}`)
  t.equal(sharedText('/filler/499'), '/filler/499')
  const journal = new Journal(1, GUID)
  journal.add(entry({ path: '/filler/599' }))
  t.same(journal.entries().map(e => e.path), ['/filler/599'])
})
