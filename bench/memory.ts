// Memory per idle session, printed as one JSON line (MemoryReport) for npm run bench:
// - heap: sessions created through the in-memory store's API in this process (stores of 1,000, 100,000
//   and 1,000,000; twenty stores of 1,000 at once), heap measured after a full gc. Run with --expose-gc
//   (npm run bench does). npm run bench takes the heap figures from a run with --no-opt --no-maglev:
//   with the optimizing compilers, the code they make (and drop) while the sessions are created lands on
//   the same heap, and moved the 1,000 figure between 227 and 258 bytes from run to run; without them
//   it is 237 every time (and the others move by 2 bytes at most), and the figure at 1,000,000
//   sessions is the same with them and without. The sessions' objects and strings are the same
//   either way; the timing (expiry µs) comes from a run with them.
//   With --no-redis, no Redis figure.
// - Redis: used_memory from INFO memory before and after creating BENCH_REDIS_SESSIONS sessions
//   (default 100,000) through the service's RedisStore, on a throwaway redis-server (when installed).
import { RedisStore } from '../src/domain/sessions/redis-store.js'
import { DEFAULT_JOURNAL_SIZE, knownText, type JournalEntry } from '../src/domain/journal/journal.js'
import { MemoryStore } from '../src/domain/sessions/memory-store.js'
import { hasRedis, startRedis } from './redis.js'
import { setting } from './settings.js'

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) {
  process.stderr.write('memory.js needs node --expose-gc\n')
  process.exit(1)
}

/** The JavaScript heap and the memory of ArrayBuffers, after a full gc. */
function heapAfterGc (): number {
  gc?.()
  gc?.()
  const { heapUsed, arrayBuffers } = process.memoryUsage()
  return heapUsed + arrayBuffers
}

export interface MemoryFigure {
  sessions: number
  bytesPerSession: number
  bytesPerSessionWithNote: number
  /** With a full journal (20 entries) as well, at 100,000 sessions only (null at the other sizes). */
  bytesPerSessionWithJournal: number | null
  /** Time the expiry sweep took per session once all of them had expired, in microseconds. */
  expiryMicrosPerSession: number
  /** Heap still held per session after they expired and a gc ran. */
  bytesPerSessionAfterExpiry: number
}

export interface RedisFigure {
  sessions: number
  /** used_memory (INFO memory) before and after the sessions were created, in bytes. */
  before: number
  after: number
  bytesPerSession: number
}

export interface MemoryReport {
  heap: MemoryFigure[]
  /** null when redis-server is not installed. */
  redis: RedisFigure | null
}

/**
 * Heap per session in stores of `sessions` sessions each, over `stores` such stores alive together:
 * at 1,000 sessions one store's figure moves by ±20 bytes from run to run (one-off allocations and
 * the gc's timing weigh as much as the sessions), so the small size is measured over several stores.
 */
async function measure (sessions: number, stores = 1): Promise<MemoryFigure> {
  const total = sessions * stores
  // The script's own lists of guids are allocated before the first reading, so they are not counted.
  const guids = Array.from({ length: stores }, () => new Array<string>(sessions).fill(''))
  // A hand-moved clock and each store's sweep task, so expiry can be timed without waiting.
  let now = 0
  const sweeps: Array<() => void> = []
  const made = Array.from({ length: stores }, () => new MemoryStore({ maxSessions: sessions, now: () => now, every: (_ms, task) => { sweeps.push(task); return () => {} } }))
  const before = heapAfterGc()
  for (const [s, store] of made.entries()) {
    const list = guids[s] as string[]
    for (let i = 0; i < sessions; i++) list[i] = (await store.create()).guid
    if (store.size !== sessions) throw new Error(`${store.size} sessions live, not ${sessions}`)
  }
  const idle = heapAfterGc()
  // A full-length note in every session, for context: the note text itself is the learner's.
  // JSON.parse makes each a flat string, as the service's body parser does.
  for (const [s, store] of made.entries()) {
    const list = guids[s] as string[]
    for (let i = 0; i < sessions; i++) {
      const guid = list[i] as string
      await store.update(guid, { note: JSON.parse(`"${String(i).padStart(100, 'n')}"`) as string })
    }
  }
  const withNote = heapAfterGc()
  // A full journal in every session (at 100,000 only): the entries a learner's requests leave, their
  // paths and content types the shared strings the journal plugin records for the service's routes.
  let withJournal: number | null = null
  if (total === 100_000) {
    // The service registers its routes' paths as known strings (plugins/journal.ts): do the same.
    knownText('/heartbeat')
    knownText('/secret/note')
    const kinds: JournalEntry[] = [
      { at: 0, method: 'GET', path: '/heartbeat', status: 204, contentType: null, passed: 0, hint: -1, suggestion: null },
      { at: 0, method: 'POST', path: '/secret/note', status: 200, token: 'valid', tokenSource: 'x-auth-token', contentType: 'application/json', passed: 0, hint: -1, suggestion: null },
      { at: 0, method: 'POST', path: '/secret/note', status: 415, token: 'valid', tokenSource: 'x-auth-token', contentType: 'text/plain', passed: 0, hint: 12, suggestion: null },
      { at: 0, method: 'GET', path: '/secret/note', status: 401, token: 'missing', contentType: null, passed: 1 << 9, hint: -1, suggestion: null }
    ]
    for (const [s, store] of made.entries()) {
      const list = guids[s] as string[]
      for (let i = 0; i < sessions; i++) {
        for (let j = 0; j < DEFAULT_JOURNAL_SIZE; j++) store.record(list[i] as string, { ...kinds[j % kinds.length] as JournalEntry, at: Date.now() })
      }
    }
    withJournal = heapAfterGc()
  }
  // The script's lists keep their slots (counted in the first reading) but let go of the guids, so
  // that what is left after expiry is what the stores keep.
  for (const list of guids) list.fill('')
  now += 10 * 60 * 1000
  const started = process.hrtime.bigint()
  for (const sweep of sweeps) sweep()
  const micros = Number(process.hrtime.bigint() - started) / 1000
  const left = made.reduce((sum, store) => sum + store.size, 0)
  if (left !== 0) throw new Error(`${left} sessions outlived their expiry`)
  const expired = heapAfterGc()
  // The lists stay alive up to that reading, as at the first one, compiled or not.
  if (guids.some(list => list.length !== sessions)) throw new Error('a list of guids was cut short')
  const figure = {
    sessions,
    bytesPerSession: Math.round((idle - before) / total),
    bytesPerSessionWithNote: Math.round((withNote - before) / total),
    bytesPerSessionWithJournal: withJournal === null ? null : Math.round((withJournal - before) / total),
    expiryMicrosPerSession: Number((micros / total).toFixed(3)),
    bytesPerSessionAfterExpiry: Math.round((expired - before) / total)
  }
  for (const store of made) await store.close()
  return figure
}

async function usedMemory (store: RedisStore): Promise<number> {
  const info = await store.client.info('memory')
  const found = /^used_memory:(\d+)/m.exec(info)
  if (found === null) throw new Error('INFO memory has no used_memory')
  return Number(found[1])
}

async function measureRedis (sessions: number): Promise<RedisFigure> {
  const redis = await startRedis()
  const store = new RedisStore({ url: redis.url, prefix: 'bench:', idleMs: 600_000, maxSessions: sessions + 1, commandTimeoutMs: 10_000 })
  try {
    await store.connected()
    // One session first, so that the scripts are loaded and the sessions' hash and the activity index
    // exist before the first reading: what follows is what each further idle session costs.
    await store.create()
    const before = await usedMemory(store)
    const batch = 500
    for (let made = 0; made < sessions; made += batch) {
      await Promise.all(Array.from({ length: Math.min(batch, sessions - made) }, () => store.create()))
    }
    const after = await usedMemory(store)
    // Two keys (the sessions' hash and the activity index), holding the sessions and the first one.
    const keys = await store.client.dbsize()
    const held = await store.client.hlen('bench:sessions')
    if (keys !== 2 || held !== sessions + 1) throw new Error(`Redis holds ${keys} keys and ${held} sessions, not 2 and ${sessions + 1}`)
    return { sessions, before, after, bytesPerSession: Math.round((after - before) / sessions) }
  } finally {
    await store.close()
    await redis.stop()
  }
}

// A first, unmeasured round: the store's code is compiled (its bytecode and feedback live on the heap
// too) before any reading, as it is in a service that has served requests.
await measure(1_000)
const heap: MemoryFigure[] = []
// 1,000 sessions in each of 20 stores (see measure); one store of 100,000 and of 1,000,000.
for (const [sessions, stores] of [[1_000, 20], [100_000, 1], [1_000_000, 1]] as const) heap.push(await measure(sessions, stores))
const withRedis = hasRedis() && !process.argv.includes('--no-redis')
const report: MemoryReport = { heap, redis: withRedis ? await measureRedis(setting('BENCH_REDIS_SESSIONS', 100_000)) : null }
process.stdout.write(JSON.stringify(report) + '\n')
