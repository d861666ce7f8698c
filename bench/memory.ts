// Memory per idle session, printed as one JSON line (MemoryReport) for npm run bench:
// - heap: sessions created through the in-memory store's API in this process (1,000, 100,000 and
//   1,000,000), heap measured after a full gc. Run with --expose-gc (npm run bench does).
// - Redis: used_memory from INFO memory before and after creating BENCH_REDIS_SESSIONS sessions
//   (default 100,000) through the service's RedisStore, on a throwaway redis-server (when installed).
import { RedisStore } from '../src/domain/redis-store.js'
import { DEFAULT_JOURNAL_SIZE, knownText, type JournalEntry } from '../src/domain/journal.js'
import { MemoryStore } from '../src/domain/store.js'
import { hasRedis, startRedis } from './redis.js'
import { setting } from './settings.js'

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) {
  process.stderr.write('memory.js needs node --expose-gc\n')
  process.exit(1)
}

/** The JavaScript heap and the memory of ArrayBuffers (a journal's integers live there), after a full gc. */
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

async function measure (sessions: number): Promise<MemoryFigure> {
  // The script's own list of guids is allocated before the first reading, so it is not counted.
  const guids = new Array<string>(sessions).fill('')
  // A hand-moved clock and the store's sweep task, so expiry can be timed without waiting.
  let now = 0
  let sweep = (): void => {}
  const store = new MemoryStore({ maxSessions: sessions, now: () => now, every: (_ms, task) => { sweep = task; return () => {} } })
  const before = heapAfterGc()
  for (let i = 0; i < sessions; i++) guids[i] = (await store.create()).guid
  if (store.size !== sessions) throw new Error(`${store.size} sessions live, not ${sessions}`)
  const idle = heapAfterGc()
  // A full-length note in every session, for context: the note text itself is the learner's.
  // JSON.parse makes each a flat string, as the service's body parser does.
  for (let i = 0; i < sessions; i++) await store.setNote(guids[i] as string, JSON.parse(`"${String(i).padStart(100, 'n')}"`))
  const withNote = heapAfterGc()
  // A full journal in every session (at 100,000 only): the entries a learner's requests leave, their
  // paths and content types the shared strings the journal plugin records for the service's routes.
  let withJournal: number | null = null
  if (sessions === 100_000) {
    // The service registers its routes' paths as known strings (plugins/journal.ts): do the same.
    knownText('/heartbeat')
    knownText('/secret/note')
    const kinds: JournalEntry[] = [
      { at: 0, method: 'GET', path: '/heartbeat', status: 204, contentType: null, passed: 0, hint: -1 },
      { at: 0, method: 'POST', path: '/secret/note', status: 200, token: 'valid', tokenSource: 'x-auth-token', contentType: 'application/json', passed: 0, hint: -1 },
      { at: 0, method: 'POST', path: '/secret/note', status: 415, token: 'valid', tokenSource: 'x-auth-token', contentType: 'text/plain', passed: 0, hint: 12 },
      { at: 0, method: 'GET', path: '/secret/note', status: 401, token: 'missing', contentType: null, passed: 1 << 9, hint: -1 }
    ]
    for (let i = 0; i < sessions; i++) {
      for (let j = 0; j < DEFAULT_JOURNAL_SIZE; j++) store.recordNow(guids[i] as string, { ...kinds[j % kinds.length] as JournalEntry, at: Date.now() })
    }
    withJournal = heapAfterGc()
  }
  now += 10 * 60 * 1000
  const started = process.hrtime.bigint()
  sweep()
  const micros = Number(process.hrtime.bigint() - started) / 1000
  if (store.size !== 0) throw new Error(`${store.size} sessions outlived their expiry`)
  const expired = heapAfterGc()
  const figure = {
    sessions,
    bytesPerSession: Math.round((idle - before) / sessions),
    bytesPerSessionWithNote: Math.round((withNote - before) / sessions),
    bytesPerSessionWithJournal: withJournal === null ? null : Math.round((withJournal - before) / sessions),
    expiryMicrosPerSession: Number((micros / sessions).toFixed(3)),
    bytesPerSessionAfterExpiry: Math.round((expired - before) / sessions)
  }
  await store.close()
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
  const store = new RedisStore({ url: redis.url, prefix: 'bench:', idleMs: 600_000, maxSessions: 1_000_000, commandTimeoutMs: 10_000 })
  try {
    await store.connected()
    // One session first, so that the scripts are loaded and the LRU sorted set and counter exist
    // before the first reading: what follows is what each further idle session costs.
    await store.create()
    const before = await usedMemory(store)
    const batch = 500
    for (let made = 0; made < sessions; made += batch) {
      await Promise.all(Array.from({ length: Math.min(batch, sessions - made) }, () => store.create()))
    }
    const after = await usedMemory(store)
    const keys = await store.client.dbsize()
    // The sessions, the first one, the LRU sorted set and the activity counter.
    if (keys !== sessions + 3) throw new Error(`Redis holds ${keys} keys, not ${sessions + 3}`)
    return { sessions, before, after, bytesPerSession: Math.round((after - before) / sessions) }
  } finally {
    await store.close()
    await redis.stop()
  }
}

const heap: MemoryFigure[] = []
for (const sessions of [1_000, 100_000, 1_000_000]) heap.push(await measure(sessions))
const report: MemoryReport = { heap, redis: hasRedis() ? await measureRedis(setting('BENCH_REDIS_SESSIONS', 100_000)) : null }
process.stdout.write(JSON.stringify(report) + '\n')
