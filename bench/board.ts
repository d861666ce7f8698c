// The class board's cost (issue 17): one page of GET /admin/sessions (100 sessions) at 1,000 and
// 100,000 live sessions, in memory and in Redis, at the top of the list, deep in it (the page
// after the 50,000th session), and from a cursor whose session has moved since (touched: its
// place is found from the marks, not from the session). O(page) means the three stay flat as the
// number of sessions grows a hundredfold. Also the summary, which reads every live session.
// Run: npm run build && npm run bench:board
import { performance } from 'node:perf_hooks'
import { RedisStore } from '../src/domain/sessions/redis-store.js'
import { MemoryStore } from '../src/domain/sessions/memory-store.js'
import type { SessionStore, SessionPage } from '../src/domain/sessions/store.js'
import { hasRedis, startRedis } from './redis.js'
import { setting } from './settings.js'

const PAGE = 100
const rounds = setting('BENCH_BOARD_ROUNDS', 50)

/** The median time of `rounds` runs of `task`, in ms. */
async function median (task: () => Promise<unknown>): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < rounds; i++) {
    const start = performance.now()
    await task()
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)] as number
}

async function fill (store: SessionStore, count: number): Promise<string[]> {
  const guids: string[] = []
  // In batches, so that a networked store gets them pipelined.
  for (let made = 0; made < count; made += 1000) {
    const batch = await Promise.all(Array.from({ length: Math.min(1000, count - made) }, async () => (await store.create()).guid))
    guids.push(...batch)
  }
  return guids
}

interface Figures { sessions: number, top: number, deep: number, moved: number, summary: number }

async function measure (store: SessionStore, count: number): Promise<Figures> {
  const guids = await fill(store, count)
  const list = store.list?.bind(store) as NonNullable<SessionStore['list']>
  // The cursor after about half the sessions.
  let page: SessionPage = await list(PAGE)
  for (let seen = PAGE; seen < count / 2; seen += PAGE) page = await list(PAGE, page.next as string)
  const deepCursor = page.next as string
  const top = await median(async () => await list(PAGE))
  const deep = await median(async () => await list(PAGE, deepCursor))
  // The cursor's own session is touched, and so are a thousand others: its place comes from the marks.
  await store.get(page.sessions[PAGE - 1]?.guid as string)
  await Promise.all(guids.slice(0, 1000).map(async guid => await store.get(guid)))
  const moved = await median(async () => await list(PAGE, deepCursor))
  const summarize = store.summary?.bind(store) as NonNullable<SessionStore['summary']>
  const summary = await median(async () => await summarize(600_000))
  return { sessions: count, top, deep, moved, summary }
}

const rows: Array<[string, Figures]> = []
for (const count of [1_000, 100_000]) {
  const store = new MemoryStore({ maxSessions: count })
  rows.push(['memory', await measure(store, count)])
  await store.close()
}
if (hasRedis()) {
  const redis = await startRedis()
  try {
    for (const count of [1_000, 100_000]) {
      const store = new RedisStore({ url: redis.url, prefix: `board${count}:`, idleMs: 600_000, maxSessions: count })
      await store.connected()
      rows.push(['Redis', await measure(store, count)])
      await store.close()
    }
  } finally {
    await redis.stop()
  }
} else {
  process.stdout.write('redis-server is not installed: the Redis rows are left out\n')
}

const ms = (n: number): string => n.toFixed(3)
process.stdout.write(`One page of ${PAGE} sessions (GET /admin/sessions's store call), median of ${rounds} runs, ms:\n\n`)
process.stdout.write('| store | live sessions | first page | page after 50% | from a moved cursor | summary (reads all) |\n|---|---|---|---|---|---|\n')
for (const [name, f] of rows) {
  process.stdout.write(`| ${name} | ${f.sessions.toLocaleString('en-US')} | ${ms(f.top)} | ${ms(f.deep)} | ${ms(f.moved)} | ${ms(f.summary)} |\n`)
}
