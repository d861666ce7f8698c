// The session counts /metrics exports (src/domain/sessions/class-counts.ts): counted in the background,
// one count at a time, read without waiting, with their age; by a clock the test moves.
import t from 'tap'
import { ClassCounts, type Counts } from '../../src/domain/sessions/class-counts.js'
import { fakeTime } from '../clock.js'

/** A count the test answers by hand: `answer` settles the oldest one asked for. */
function manualCount () {
  const pending: Array<{ resolve: (counts: Counts) => void, reject: (error: Error) => void }> = []
  return {
    count: async (): Promise<Counts> => await new Promise<Counts>((resolve, reject) => { pending.push({ resolve, reject }) }),
    asked: () => pending.length,
    answer: async (counts: Counts | Error): Promise<void> => {
      const next = pending.shift()
      if (counts instanceof Error) next?.reject(counts)
      else next?.resolve(counts)
      // Let the count's then and finally run.
      await new Promise(resolve => setImmediate(resolve))
    }
  }
}

t.test('before the first count answers: NaN counts and age, at once', async t => {
  const time = fakeTime()
  const store = manualCount()
  const counts = new ClassCounts(store.count, { everyMs: 5000, now: time.now, every: time.every })
  counts.start()
  t.equal(store.asked(), 1, 'the first count is asked for at start')
  t.same(counts.read(), { live: NaN, active: NaN, ageSeconds: NaN })
})

t.test('a count is read with its age, measured from when it was asked for; each period asks again', async t => {
  const time = fakeTime()
  const store = manualCount()
  const counts = new ClassCounts(store.count, { everyMs: 5000, now: time.now, every: time.every })
  counts.start()
  time.advance(300)
  await store.answer({ live: 12, active: 7 })
  t.same(counts.read(), { live: 12, active: 7, ageSeconds: 0.3 })
  time.advance(4700)
  t.same(counts.read(), { live: 12, active: 7, ageSeconds: 5 })
  time.tick()
  t.equal(store.asked(), 1, 'the next period asks again')
  await store.answer({ live: 13, active: 8 })
  t.same(counts.read(), { live: 13, active: 8, ageSeconds: 0 })
})

t.test('a count that hangs: never two at once, the last figures kept and their age growing; then one answers', async t => {
  const time = fakeTime()
  const store = manualCount()
  const counts = new ClassCounts(store.count, { everyMs: 5000, now: time.now, every: time.every })
  counts.start()
  await store.answer({ live: 3, active: 2 })
  time.tick()
  for (let i = 0; i < 5; i++) {
    time.advance(5000)
    time.tick()
  }
  t.equal(store.asked(), 1, 'one count under way, however many periods pass')
  t.same(counts.read(), { live: 3, active: 2, ageSeconds: 25 })
  await store.answer({ live: 4, active: 4 })
  t.same(counts.read(), { live: 4, active: 4, ageSeconds: 25 }, 'as of when it was asked for')
  time.tick()
  t.equal(store.asked(), 1, 'then the next period asks again')
})

t.test('a count that fails keeps the last one, whose age grows; the next period tries again', async t => {
  const time = fakeTime()
  const store = manualCount()
  const counts = new ClassCounts(store.count, { everyMs: 5000, now: time.now, every: time.every })
  counts.start()
  await store.answer({ live: 9, active: 1 })
  time.advance(5000)
  time.tick()
  await store.answer(new Error('store unavailable'))
  t.same(counts.read(), { live: 9, active: 1, ageSeconds: 5 })
  time.advance(5000)
  time.tick()
  t.equal(store.asked(), 1)
  await store.answer({ live: 10, active: 2 })
  t.same(counts.read(), { live: 10, active: 2, ageSeconds: 0 })
})

t.test('start is once; stop ends the periods', async t => {
  const time = fakeTime()
  const store = manualCount()
  const counts = new ClassCounts(store.count, { everyMs: 5000, now: time.now, every: time.every })
  counts.start()
  counts.start()
  t.equal(time.scheduled(), 1)
  t.equal(store.asked(), 1)
  counts.stop()
  t.equal(time.scheduled(), 0)
  counts.stop()
})

t.test('with the real timer: counted at start, and the timer keeps no process alive', async t => {
  let asked = 0
  const counts = new ClassCounts(async () => { asked++; return { live: 1, active: 1 } }, { everyMs: 60_000 })
  counts.start()
  t.teardown(() => { counts.stop() })
  await new Promise(resolve => setImmediate(resolve))
  t.equal(asked, 1)
  t.equal(counts.read().live, 1)
  t.ok(counts.read().ageSeconds >= 0 && counts.read().ageSeconds < 60)
})
