// MAX_SESSIONS in memory with a hand-moved clock (issue 50): sessions at work never make room, and a
// refusal lasts only until a session ends. The rule itself, in both stores: test/store-behaviour.ts.
import t from 'tap'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { AT_WORK_PASSES, atWork, TOKEN_BITS } from '../../src/domain/sessions/worth.js'
import { fakeTime } from '../clock.js'
import { logged, type LogLine } from '../logged.js'

t.test('a session is at work with a note, its token issued or used, or three challenges passed; not with less', async t => {
  t.equal(AT_WORK_PASSES, 3)
  t.equal(TOKEN_BITS, (1 << 7) | (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15), 'token issued (07), note read and written with X-AUTH-TOKEN or Bearer')
  const cases: Array<[number, string, boolean]> = [
    [0, '', false],
    [0b1, '', false],
    [0b100001, '', false],
    [0b100011, '', true],
    [1 << 7, '', true],
    [1 << 15, '', true],
    [0, 'a note', true],
    [2 ** 31, '', false],
    [(2 ** 31) | 0b11, '', true]
  ]
  for (const [progress, note, expected] of cases) t.equal(atWork(progress, note), expected, `${progress.toString(2)} ${JSON.stringify(note)}`)
})

t.test('with every session at work the store refuses a new one until one expires, then the expired one makes room', async t => {
  const time = fakeTime()
  const store = new MemoryStore({ idleMs: 60_000, maxSessions: 2, now: time.now, every: time.every })
  t.teardown(() => store.close())
  const first = await store.create()
  await store.update(first.guid, { note: 'one' })
  time.advance(10_000)
  const second = await store.create()
  await store.update(second.guid, { note: 'two' })
  await store.get(first.guid)
  await store.get(second.guid)
  await t.rejects(store.create(), { name: 'SessionsFullError', statusCode: 503 })
  time.advance(59_999)
  await t.rejects(store.create(), { name: 'SessionsFullError' }, 'a millisecond before the first expires')
  await store.get(second.guid)
  time.advance(1)
  const third = await store.create()
  t.equal(store.size, 2)
  t.equal(await store.get(first.guid), undefined, 'the expired one made room')
  t.equal((await store.get(second.guid))?.note, 'two')
  t.ok(await store.get(third.guid))
})

t.test('the first refusal for MAX_SESSIONS is logged once, at warn, with its code; later ones are not', async t => {
  const store = new MemoryStore({ maxSessions: 1 })
  const { app, lines } = await logged(t, { store })
  const guid = (await app.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
  await store.update(guid, { note: 'at work' })
  await store.get(guid)
  const refused = [await app.inject({ method: 'POST', url: '/challenger' }), await app.inject({ method: 'POST', url: '/challenger' })]
  t.same(refused.map(res => res.statusCode), [503, 503])
  const warned = lines.filter(line => line.level === 40)
  t.same(warned.map(line => [(line as LogLine & { code?: string }).code, line.msg]), [['APICH_SESSIONS_FULL',
    'MAX_SESSIONS reached with every session at work: new sessions are refused (503) until one expires; see "Which session makes room" in docs/operations.md']])
})
