// The ids of the last sessions to end (src/domain/sessions/last-ids.ts): a ring, the oldest forgotten first.
import t from 'tap'
import { LastIds } from '../../src/domain/sessions/last-ids.js'

t.test('the last `limit` ids added are known; the oldest is forgotten first', async t => {
  const ids = new LastIds(3)
  t.equal(ids.has('a'), false, 'none at first')
  for (const id of ['a', 'b', 'c']) ids.add(id)
  t.same(['a', 'b', 'c'].map(id => ids.has(id)), [true, true, true])
  ids.add('d')
  t.same(['a', 'b', 'c', 'd'].map(id => ids.has(id)), [false, true, true, true], 'the fourth pushes out the first')
  for (let n = 0; n < 10; n++) ids.add(`x${n}`)
  t.same(['b', 'x6', 'x7', 'x8', 'x9'].map(id => ids.has(id)), [false, false, true, true, true], 'round the ring and on')
})

t.test('an id added again is kept from its newer slot, not forgotten with its older one', async t => {
  const ids = new LastIds(3)
  for (const id of ['a', 'b', 'a']) ids.add(id)
  ids.add('c')
  t.same(['a', 'b', 'c'].map(id => ids.has(id)), [true, true, true], 'its older slot, overwritten, takes nothing away')
  ids.add('d')
  t.same(['a', 'b', 'c', 'd'].map(id => ids.has(id)), [true, false, true, true], 'the oldest other one goes')
  ids.clear()
  t.same(['a', 'c', 'd'].map(id => ids.has(id)), [false, false, false], 'cleared: none')
  ids.add('e')
  t.equal(ids.has('e'), true, 'and it starts again')
})
