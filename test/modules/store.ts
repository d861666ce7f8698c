// The in-memory store's life cycle with a hand-moved clock: expiry, touch, capacity, restore.
import t from 'tap'
import { MAX_COUNTED, WindowCounts } from '../../src/domain/sessions/counts.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { EXPIRED_KEPT } from '../../src/domain/sessions/store.js'
import { fakeTime } from '../clock.js'
import { gradeRunsBehaviour } from '../grade-runs-behaviour.js'
import { storeBehaviour } from '../store-behaviour.js'

t.test('the registry behaviour, in memory', async t => {
  storeBehaviour(t, async maxSessions => new MemoryStore({ maxSessions }))
})

const IDLE = 10 * 60 * 1000

t.test('a session untouched for idleMs is gone; one millisecond less and it is alive', async t => {
  const time = fakeTime()
  const store = new MemoryStore({ idleMs: IDLE, now: time.now, every: time.every })
  const a = await store.create()
  time.advance(IDLE - 1)
  t.ok(await store.get(a.guid), 'alive at idleMs - 1 (and touched)')
  time.advance(IDLE - 1)
  t.ok(await store.get(a.guid), 'a touch extends its life')
  time.advance(IDLE)
  t.equal(await store.get(a.guid), undefined, 'gone at exactly idleMs')
  t.equal(store.size, 0, 'and its memory is released')
  await store.update(a.guid, { note: 'x' })
  t.equal(await store.get(a.guid), undefined, 'an update does not bring it back')
})

t.test('expired sessions are released without being asked for, a few per call and all on the timer', async t => {
  const time = fakeTime()
  const store = new MemoryStore({ idleMs: IDLE, now: time.now, every: time.every })
  for (let i = 0; i < 10; i++) await store.create()
  time.advance(IDLE)
  const fresh = await store.create()
  t.equal(store.size, 7, 'creating removed four expired sessions from the front')
  await store.get('nobody')
  t.equal(store.size, 5, 'a lookup removed two more')
  time.tick()
  t.equal(store.size, 1, 'the timer removed the rest')
  t.ok(await store.get(fresh.guid), 'and kept the live one')
  await store.close()
  t.equal(time.scheduled(), 0, 'close stops the timer')
})

t.test('at capacity the least recently used session makes room', async t => {
  const time = fakeTime()
  const store = new MemoryStore({ maxSessions: 3, now: time.now, every: time.every })
  const a = await store.create()
  const b = await store.create()
  const c = await store.create()
  await store.get(a.guid)
  const d = await store.create()
  t.equal(store.size, 3)
  t.equal(await store.get(b.guid), undefined, 'b was the least recently used')
  t.ok(await store.get(a.guid))
  t.ok(await store.get(c.guid))
  t.ok(await store.get(d.guid))
  // c, d, a are now in that order of use: a restore that creates evicts c.
  await store.get(d.guid)
  await store.get(a.guid)
  t.equal(await store.restore({ guid: b.guid, token: b.token, note: 'back', progress: 5 }), 'created')
  t.equal(await store.get(c.guid), undefined)
  t.same(await store.get(b.guid), { guid: b.guid, token: b.token, note: 'back', progress: 5 })
})

t.test('restore replaces a live session and recreates a gone one', async t => {
  const time = fakeTime()
  const store = new MemoryStore({ idleMs: IDLE, now: time.now, every: time.every })
  const a = await store.create()
  await store.update(a.guid, { note: 'old' })
  t.equal(await store.restore({ guid: a.guid, token: 'f'.repeat(32), note: 'new', progress: 3 }), 'replaced')
  t.same(await store.get(a.guid), { guid: a.guid, token: 'f'.repeat(32), note: 'new', progress: 3 })
  t.equal(store.size, 1)
  time.advance(IDLE)
  t.equal(await store.restore({ guid: a.guid, token: a.token, note: '', progress: 0 }), 'created')
  t.equal(store.size, 1)
})

t.test('a pinned session never expires and does not count toward capacity', async t => {
  const time = fakeTime()
  const store = new MemoryStore({ idleMs: IDLE, maxSessions: 1, now: time.now, every: time.every })
  const pinned = { guid: '00000000-0000-4000-8000-000000000001', token: 'a'.repeat(32), note: '', progress: 0 }
  t.equal(await store.restore(pinned, { pinned: true }), 'created')
  const other = await store.create()
  t.equal(store.size, 1)
  time.advance(IDLE * 10)
  time.tick()
  t.same(await store.get(pinned.guid), pinned)
  t.equal(await store.get(other.guid), undefined)
  await store.update(pinned.guid, { note: 'kept' })
  await store.update(pinned.guid, { passed: 4 })
  t.equal(await store.restore({ ...pinned, note: 'restored' }), 'replaced', 'restoring it keeps it pinned')
  time.advance(IDLE * 10)
  t.equal((await store.get(pinned.guid))?.note, 'restored')
})

t.test('a looked-up record is a copy: changing the store does not change it', async t => {
  const store = new MemoryStore()
  t.teardown(() => store.close())
  const a = await store.create()
  const seen = await store.get(a.guid)
  await store.update(a.guid, { note: 'later' })
  t.equal(seen?.note, '')
})

t.test('pinning a live session takes it out of the count', async t => {
  const store = new MemoryStore()
  t.teardown(() => store.close())
  const a = await store.create()
  t.equal(await store.restore({ ...a, note: 'pinned now' }, { pinned: true }), 'replaced')
  t.equal(store.size, 0)
  t.equal((await store.get(a.guid))?.note, 'pinned now')
})

t.test('expiry, touch and eviction (unused sessions first) agree with a plain model over many random steps', async t => {
  // A seeded generator (mulberry32, in 32-bit integer arithmetic: a product of doubles past 2^53
  // loses its low bits, and gave only even numbers): the same steps on every run.
  let seed = 42
  const random = (n: number): number => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), seed | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) % n
  }
  const time = fakeTime()
  const store = new MemoryStore({ idleMs: 50, maxSessions: 8, now: time.now, every: time.every })
  // The model: guid → last activity and whether a lookup has found it since it was made, in order of last activity.
  let model: Array<{ guid: string, seen: number, used: boolean }> = []
  const guids: string[] = []
  let mismatches = 0
  const evicted = { unused: 0, used: 0 }
  for (let step = 0; step < 3000; step++) {
    const now = time.now()
    model = model.filter(entry => now - entry.seen < 50)
    const choice = random(10)
    // Phases of 300 steps: sessions made faster than they are used, then, with the clock still, every
    // live one used in turn.
    const using = Math.floor(step / 300) % 2 === 1
    if (choice < (using ? 1 : 3)) {
      const created = await store.create()
      guids.push(created.guid)
      if (model.length >= 8) {
        const unused = model.findIndex(entry => !entry.used)
        evicted[unused === -1 ? 'used' : 'unused']++
        model.splice(Math.max(unused, 0), 1)
      }
      model.push({ guid: created.guid, seen: now, used: false })
    } else if (choice < 8 && guids.length > 0) {
      // Mostly the sessions made last, most of which are live; sometimes one long gone.
      const recent = guids.length - 1 - (using ? step % Math.min(guids.length, 8) : random(Math.min(guids.length, 8)))
      const guid = guids[random(4) === 0 ? random(guids.length) : recent] as string
      const found = await store.get(guid)
      const index = model.findIndex(entry => entry.guid === guid)
      if ((found !== undefined) !== (index !== -1)) mismatches++
      if (index !== -1) model.push(...model.splice(index, 1).map(entry => ({ ...entry, seen: now, used: true })))
    } else if (choice === 8 || using) {
      time.tick()
    } else {
      time.advance(random(20))
    }
    if (store.size > 8) mismatches++
  }
  const now = time.now()
  const live = model.filter(entry => now - entry.seen < 50).map(entry => entry.guid)
  for (const guid of guids) if ((await store.get(guid) !== undefined) !== live.includes(guid)) mismatches++
  t.equal(mismatches, 0)
  t.ok(guids.length > 500, `${guids.length} sessions were created`)
  t.ok(evicted.unused > 20 && evicted.used > 20, `both kinds made room: ${evicted.unused} unused, ${evicted.used} used`)
})

t.test('the board in memory: times from the wall clock, activity within the window, expired sessions left out', async t => {
  const time = fakeTime(0)
  const wall = 1_800_000_000_000
  const store = new MemoryStore({ idleMs: IDLE, now: time.now, every: time.every, wallClock: () => wall })
  t.teardown(() => store.close())
  const a = await store.create('a')
  time.advance(5000)
  const b = await store.create()
  time.advance(1000)
  await store.get(a.guid)
  const page = await store.list(10)
  t.same(page.sessions.map(s => [s.guid, s.createdAt, s.lastSeen]), [[a.guid, wall, wall + 6000], [b.guid, wall + 5000, wall + 5000]])
  t.equal((await store.summary(1000)).active, 1, 'only a was active within the last second')
  t.equal((await store.summary(1001 + 5000)).active, 2)
  time.advance(IDLE - 1000)
  t.same((await store.list(10)).sessions.map(s => s.guid), [a.guid], 'b has expired')
  t.same(await store.summary(IDLE), { live: 1, active: 1, passedBy: new Array(32).fill(0) })
})

t.test('the board\'s cursor holds across thousands of touches (its marks are compacted) and when its session is gone', async t => {
  const store = new MemoryStore({ maxSessions: 100 })
  t.teardown(() => store.close())
  const made: string[] = []
  for (let i = 0; i < 100; i++) made.push((await store.create()).guid)
  // 40,000 touches: more marks than the first limit (1,024 marks, one per 32 touches), so stale ones are dropped.
  for (let i = 0; i < 40_000; i++) store.get(made[(i * 7) % 100] as string)
  const first = await store.list(10)
  const expected = (await store.list(100)).sessions.map(s => s.guid)
  t.same(first.sessions.map(s => s.guid), expected.slice(0, 10))
  // The cursor's own session is evicted: the next page still starts right after it.
  const cursorSession = first.sessions[9]?.guid as string
  await store.restore({ guid: cursorSession, token: 'a'.repeat(32), note: '', progress: 0 }, { pinned: true })
  const second = await store.list(10, first.next as string)
  t.same(second.sessions.map(s => s.guid), expected.slice(10, 20))
  // A cursor older than every session left: an empty last page.
  const last = await store.list(98)
  const oldest = expected[expected.length - 1] as string
  await store.restore({ guid: oldest, token: 'a'.repeat(32), note: '', progress: 0 }, { pinned: true })
  const older = await store.list(1, last.next as string)
  t.same(older.sessions.length, 0)
  t.equal(older.next, null)
})

t.test('calls by guid reach the live session only, and the one that replaced it', async t => {
  const time = fakeTime()
  const store = new MemoryStore({ idleMs: IDLE, maxSessions: 1, now: time.now, every: time.every })
  const a = await store.create()
  t.ok(await store.get(a.guid), 'found')
  await store.update(a.guid, { passed: 4 })
  t.equal((await store.get(a.guid))?.progress, 4)
  // Made to make room (the only session, so it goes though it was used): calls by its guid find nothing.
  await store.create()
  t.equal(store.size, 1)
  t.equal(await store.setName(a.guid, 'lost'), undefined, 'evicted: not named')
  await store.update(a.guid, { passed: 8 })
  t.equal(await store.journal(a.guid), undefined)

  // Found, then expired: gone on the next lookup.
  const b = await store.create()
  t.ok(await store.get(b.guid))
  time.advance(IDLE)
  t.equal(await store.get(b.guid), undefined)
  t.equal(await store.setName(b.guid, 'late'), undefined, 'expired: not named')

  // A pinned session found, then replaced by restore: the calls reach the new record.
  const pinned = { guid: '00000000-0000-4000-8000-000000000001', token: 'f'.repeat(32), note: 'old', progress: 1 }
  await store.restore(pinned, { pinned: true })
  t.equal((await store.get(pinned.guid))?.note, 'old')
  await store.restore({ ...pinned, note: 'new', progress: 2 }, { pinned: true })
  await store.update(pinned.guid, { passed: 16 })
  t.same(await store.get(pinned.guid), { ...pinned, note: 'new', progress: 18, name: undefined }, 'the replacement was written, not the record it replaced')

  // Closed: nothing is found.
  await store.close()
  t.equal(await store.setName(pinned.guid, 'closed'), undefined)
})

t.test('the counts in memory: a window closes windowMs after it opened, by the store\'s clock; closed ones are forgotten on the timer', async t => {
  const time = fakeTime()
  const store = new MemoryStore({ now: time.now, every: time.every })
  t.teardown(() => store.close())
  t.same(await store.countCreation('127.0.0.2', 60_000), { count: 1, msLeft: 60_000 })
  time.advance(59_999)
  t.same(await store.countCreation('127.0.0.2', 60_000), { count: 2, msLeft: 1 })
  t.same(await store.countCreation('127.0.0.2', 60_000, 0), { count: 2, msLeft: 1 })
  time.advance(1)
  t.same(await store.countCreation('127.0.0.2', 60_000, 0), { count: 0, msLeft: 0 }, 'closed at windowMs')
  t.same(await store.countCreation('127.0.0.2', 60_000), { count: 1, msLeft: 60_000 }, 'a new window')
})

t.test('WindowCounts keeps at most MAX_COUNTED clients: the closed windows go first, then the one opened first', async t => {
  const time = fakeTime(0)
  const counts = new WindowCounts(time.now)
  counts.count('early', 1000, 1)
  time.advance(500)
  for (let i = 1; i < MAX_COUNTED; i++) counts.count(`c${i}`, 1000, 1)
  t.equal(counts.size, MAX_COUNTED)
  counts.count('c1', 1000, 1)
  t.equal(counts.size, MAX_COUNTED, 'a client already counted takes no room')
  counts.count('late', 1000, 1)
  t.equal(counts.size, MAX_COUNTED, 'a new one makes room')
  t.equal(counts.count('early', 1000, 0).count, 0, 'by forgetting the window opened first')
  t.equal(counts.count('c1', 1000, 0).count, 2, 'and no other')
  time.advance(1000)
  counts.count('later', 1000, 1)
  t.equal(counts.size, 1, 'when full, the closed windows at the front go first: here all of them')
  counts.count('another', 5000, 1)
  time.advance(1000)
  counts.sweep()
  t.equal(counts.size, 1, 'the sweep forgets every closed window')
  t.equal(counts.count('another', 5000, 0).count, 1, 'and keeps the open ones')
})

t.test('expiredRecently in memory: a session that expired, found on sight or swept by the timer, is remembered; a pinned or replaced one never ends', async t => {
  const time = fakeTime()
  const store = new MemoryStore({ idleMs: IDLE, now: time.now, every: time.every })
  t.teardown(() => store.close())
  const seen = await store.create()
  const swept = await store.create()
  const pinned = { guid: '00000000-0000-4000-8000-000000000001', token: 'a'.repeat(32), note: '', progress: 0 }
  await store.restore(pinned, { pinned: true })
  await store.restore({ ...seen, note: 'replaced' })
  t.equal(await store.expiredRecently(seen.guid), false, 'replaced by a restore: not ended')
  time.advance(IDLE - 1)
  t.equal(await store.expiredRecently(seen.guid), false, 'idle for less than the idle time: not ended')
  time.advance(1)
  t.equal(await store.expiredRecently(seen.guid), false, 'past the idle time, not yet removed: nothing says it ended')
  t.equal(await store.get(seen.guid), undefined)
  t.equal(await store.expiredRecently(seen.guid), true, 'removed on sight: remembered')
  time.tick()
  t.equal(await store.expiredRecently(swept.guid), true, 'removed by the timer: remembered')
  t.equal(await store.expiredRecently(pinned.guid), false, 'a pinned session never expires')
  await store.close()
  t.equal(await store.expiredRecently(seen.guid), false, 'closed: forgotten')
})

t.test(`expiredRecently in memory remembers the last EXPIRED_KEPT (${EXPIRED_KEPT}) sessions to end, the oldest forgotten first`, async t => {
  const time = fakeTime()
  const store = new MemoryStore({ idleMs: IDLE, now: time.now, every: time.every })
  t.teardown(() => store.close())
  const guids: string[] = []
  for (let i = 0; i < EXPIRED_KEPT + 2; i++) guids.push((await store.create()).guid)
  time.advance(IDLE)
  time.tick()
  t.equal(store.size, 0)
  const remembered = async (): Promise<boolean[]> => await Promise.all(guids.map(async guid => await store.expiredRecently(guid)))
  const first = await remembered()
  t.equal(first.filter(Boolean).length, EXPIRED_KEPT, 'no more than EXPIRED_KEPT')
  t.same(first.slice(0, 4), [false, false, true, true], 'the two that ended first are forgotten')
  t.equal(first[guids.length - 1], true, 'the last to end is remembered')
  // Ended again, an id is the newest: the next to end pushes out the oldest other one.
  await store.restore({ guid: guids[2] as string, token: 'b'.repeat(32), note: '', progress: 0 })
  time.advance(IDLE)
  time.tick()
  await store.create()
  time.advance(IDLE)
  time.tick()
  t.same((await remembered()).slice(0, 5), [false, false, true, false, true], 'restored and expired again, the third is kept; the fourth made room')
})

t.test('grading runs, in memory', async t => {
  gradeRunsBehaviour(t, async () => new MemoryStore())
})
