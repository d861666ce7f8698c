// The in-memory store's life cycle with a hand-moved clock: expiry, touch, capacity, restore.
import t from 'tap'
import { MemoryStore } from '../src/store.js'
import { fakeTime } from './clock.js'

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
  t.equal(await store.setNote(a.guid, 'x'), undefined)
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
  await store.setNote(a.guid, 'old')
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
  await store.setNote(pinned.guid, 'kept')
  await store.pass(pinned.guid, 4)
  t.equal(await store.restore({ ...pinned, note: 'restored' }), 'replaced', 'restoring it keeps it pinned')
  time.advance(IDLE * 10)
  t.equal((await store.get(pinned.guid))?.note, 'restored')
})

t.test('a looked-up record is a copy: changing the store does not change it', async t => {
  const store = new MemoryStore()
  t.teardown(() => store.close())
  const a = await store.create()
  const seen = await store.get(a.guid)
  await store.setNote(a.guid, 'later')
  t.equal(seen?.note, '')
})
