// The registry's behaviour, the same for every store (in memory, Redis): one suite, two backends.
import type { Test } from 'tap'
import type { ChallengerStore } from '../src/domain/store.js'

/** `make` returns a fresh, empty store with room for `maxSessions`; the suite closes it. */
export function storeBehaviour (t: Test, make: (maxSessions: number) => Promise<ChallengerStore>): void {
  t.test('create, get, setNote and pass', async t => {
    const store = await make(100)
    t.teardown(() => store.close())
    const a = await store.create()
    const b = await store.create()
    t.not(a.guid, b.guid)
    t.not(a.token, b.token)
    t.same(await store.get(a.guid), { guid: a.guid, token: a.token, note: '', progress: 0 })
    t.equal(await store.get('11111111-2222-4333-8444-555555555555'), undefined)
    t.equal(await store.get('__proto__'), undefined)
    t.equal(await store.setNote(a.guid, 'hi <&> 😀'), 'hi <&> 😀')
    t.equal(await store.setNote('nobody', 'x'), undefined)
    await store.pass(a.guid, 0b101)
    await store.pass(a.guid, 0b110)
    await store.pass('nobody', 1)
    t.same(await store.get(a.guid), { guid: a.guid, token: a.token, note: 'hi <&> 😀', progress: 0b111 })
    t.same(await store.get(b.guid), { guid: b.guid, token: b.token, note: '', progress: 0 }, 'the other session is untouched')
    t.equal(store.available(), true)
  })

  t.test('setNote with bits passes them in the same step; without, progress stays as it was', async t => {
    const store = await make(100)
    t.teardown(() => store.close())
    const a = await store.create()
    await store.pass(a.guid, 0b1)
    t.equal(await store.setNote(a.guid, 'first', 0b1100), 'first')
    t.same(await store.get(a.guid), { guid: a.guid, token: a.token, note: 'first', progress: 0b1101 })
    t.equal(await store.setNote(a.guid, 'second'), 'second')
    t.same(await store.get(a.guid), { guid: a.guid, token: a.token, note: 'second', progress: 0b1101 })
    t.equal(await store.setNote('nobody', 'x', 0b10), undefined, 'a session that is gone stays gone')
    t.equal(await store.get('nobody'), undefined)
  })

  t.test('restore replaces a live session and creates a missing one', async t => {
    const store = await make(100)
    t.teardown(() => store.close())
    const a = await store.create()
    t.equal(await store.restore({ guid: a.guid, token: 'f'.repeat(32), note: 'new', progress: 3 }), 'replaced')
    t.same(await store.get(a.guid), { guid: a.guid, token: 'f'.repeat(32), note: 'new', progress: 3 })
    const guid = '6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b'
    t.equal(await store.restore({ guid, token: 'e'.repeat(32), note: '', progress: 1 }), 'created')
    t.same(await store.get(guid), { guid, token: 'e'.repeat(32), note: '', progress: 1 })
  })

  t.test('at capacity the least recently used makes room; a pinned session does not count', async t => {
    const store = await make(3)
    t.teardown(() => store.close())
    const pinned = { guid: '00000000-0000-4000-8000-000000000001', token: 'a'.repeat(32), note: '', progress: 0 }
    await store.restore(pinned, { pinned: true })
    const a = await store.create()
    const b = await store.create()
    const c = await store.create()
    await store.get(a.guid)
    const d = await store.create()
    t.equal(await store.get(b.guid), undefined, 'b was the least recently used')
    for (const s of [a, c, d]) t.ok(await store.get(s.guid))
    t.same(await store.get(pinned.guid), pinned, 'the pinned session stays')
    t.equal(await store.restore({ ...pinned, note: 'again' }), 'replaced')
    t.equal((await store.get(pinned.guid))?.note, 'again')
  })

  t.test('a record handed out is a copy', async t => {
    const store = await make(100)
    t.teardown(() => store.close())
    const a = await store.create()
    const seen = await store.get(a.guid)
    await store.setNote(a.guid, 'later')
    t.equal(seen?.note, '')
  })
}
