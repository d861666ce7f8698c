// node --expose-gc dist/bench/journal-memory.js (after npm run build): what a session and its journal
// (src/domain/journal/journal.ts) cost, without a server. Each case runs in a process of its own:
// JOURNAL_SESSIONS sessions (default 8,000), each an object shaped like the memory store's, in a Map,
// with a Journal of the default size:
// - idle: no request recorded yet (the store makes a journal at the first);
// - empty: a journal made, nothing in it;
// - learner: 20 entries of a learner's requests (the service's routes, the session's own URL);
// - stranger: 20 requests with a unique 200-character path and Content-Type each.
// The heap, the old generation and the RSS are read before and after, each after a full gc (and
// after garbage that fills the young generation, so that its pages are in the RSS both times),
// divided by the sessions. One JSON line per case; beside them, worstSessionBytes, the bound the
// start-up check counts with.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { getHeapSpaceStatistics } from 'node:v8'
import { DEFAULT_JOURNAL_SIZE, Journal, knownText, worstSessionBytes, type JournalEntry } from '../src/domain/journal/journal.js'
import { newGuid, newToken } from '../src/domain/sessions/ids.js'
import { setting } from './settings.js'

const SESSIONS = setting('JOURNAL_SESSIONS', 8_000)
const CASES = ['idle', 'empty', 'learner', 'stranger'] as const
type Case = typeof CASES[number]

/** A session as the memory store keeps it (SessionState), on its list of activity. */
interface FakeSession {
  guid: string
  token: string
  note: string
  progress: number
  created: number
  seq: number
  journal: Journal | null
  seen: number
  older: FakeSession | null
  newer: FakeSession | null
}

// The journal plugin makes every route's path a known text.
for (const route of ['/heartbeat', '/challenges', '/challenger', '/challenger/:guid', '/challenger/:guid/requests', '/secret/token', '/secret/note']) knownText(route)

/** `length` characters, unique for (session, request). */
function unique (start: string, session: number, n: number, length = 200): string {
  return `${start}${session.toString(36)}-${n.toString(36)}-`.padEnd(length, 'abcdefghijklmnopqrstuvwxyz0123456789')
}

/** The entry a request made, fresh, as plugins/journal.ts makes it. */
function entryOf (kind: Case, guid: string, session: number, n: number): JournalEntry {
  const at = Date.now()
  if (kind === 'stranger') return { at, method: 'GET', path: unique('/', session, n), status: 404, contentType: unique('application/x-', session, n), passed: 0, hint: -1, suggestion: null }
  switch (n % 5) {
    case 0: return { at, method: 'GET', path: '/heartbeat', status: 204, contentType: null, passed: 0, hint: -1, suggestion: null }
    case 1: return { at, method: 'POST', path: '/secret/note', status: 200, token: 'valid', tokenSource: 'x-auth-token', contentType: 'application/json', passed: 1 << 30, hint: -1, suggestion: null }
    case 2: return { at, method: 'GET', path: `/challenger/${guid}`, status: 200, contentType: null, passed: 0, hint: -1, suggestion: null }
    case 3: return { at, method: 'POST', path: '/secret/note', status: 415, token: 'valid', tokenSource: 'x-auth-token', contentType: 'text/plain', passed: 0, hint: 12, suggestion: null }
    default: return { at, method: 'GET', path: '/challenges', status: 200, contentType: null, passed: 2, hint: -1, suggestion: null }
  }
}

function sessions (kind: Case, from: number, count = SESSIONS): Map<string, FakeSession> {
  const all = new Map<string, FakeSession>()
  let older: FakeSession | null = null
  for (let s = from; s < from + count; s++) {
    const guid = newGuid()
    const session: FakeSession = { guid, token: newToken(), note: '', progress: 0, created: s * 2, seq: s, journal: null, seen: s, older, newer: null }
    if (older !== null) older.newer = session
    older = session
    all.set(guid, session)
    if (kind === 'idle') continue
    const journal = new Journal(DEFAULT_JOURNAL_SIZE, guid)
    session.journal = journal
    if (kind === 'empty') continue
    for (let n = 0; n < DEFAULT_JOURNAL_SIZE; n++) journal.add(entryOf(kind, guid, s, n))
  }
  return all
}

/** Heap used and RSS after a full gc, with the young generation's pages in use as they are in a busy process. */
function memory (): { heap: number, rss: number, old: number } {
  let garbage: object[] = []
  for (let i = 0; i < 3_000_000; i++) {
    garbage.push({ i })
    if (garbage.length === 1000) garbage = []
  }
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error('journal-memory.js needs node --expose-gc')
  for (let i = 0; i < 4; i++) gc()
  const { heapUsed, rss } = process.memoryUsage()
  const old = getHeapSpaceStatistics().find(space => space.space_name === 'old_space')?.space_size ?? 0
  return { heap: heapUsed, rss, old }
}

function measure (kind: Case): void {
  // A first round of 500, let go, so that the code and the shared texts and outcomes exist before the first reading.
  sessions(kind, SESSIONS, 500)
  const before = memory()
  const kept = sessions(kind, 0)
  const after = memory()
  if (kept.size !== SESSIONS) throw new Error(`${kept.size} sessions, not ${SESSIONS}`)
  const journal = [...kept.values()][0]?.journal?.entries() ?? []
  process.stdout.write(JSON.stringify({
    case: kind,
    sessions: SESSIONS,
    entries: journal.length,
    heapPerSession: Math.round((after.heap - before.heap) / SESSIONS),
    rssPerSession: Math.round((after.rss - before.rss) / SESSIONS),
    oldSpacePerSession: Math.round((after.old - before.old) / SESSIONS),
    newestTexts: [journal[0]?.path.length, journal[0]?.contentType?.length],
    bound: worstSessionBytes(DEFAULT_JOURNAL_SIZE)
  }) + '\n')
}

const only = process.argv[2] as Case | undefined
if (only !== undefined) measure(only)
else {
  // The young generation of one size throughout (V8 grows it as it goes), so that both readings hold all of it.
  const young = ['--min-semi-space-size=16', '--max-semi-space-size=16']
  for (const kind of CASES) process.stdout.write(execFileSync(process.execPath, [...process.execArgv, ...young, fileURLToPath(import.meta.url), kind], { encoding: 'utf8' }))
}
