// Adding a challenge, as the README's "Add a challenge" says, in a fixture: a new row in the list,
// sorted by id, with a bit never used before. Until a route asks for its trigger it is unreachable
// (the app refuses to start); stored progress keeps its meaning; a bit used twice is refused.
import t from 'tap'
import { createCatalogue, isPassed } from '../src/domain/catalogue.js'
import { challenges, type Challenge, type Trigger } from '../src/domain/challenge-list.js'

const added: Challenge = {
  id: 39,
  referenceName: 'HEAD_HEARTBEAT_204',
  name: 'HEAD /heartbeat (204)',
  description: 'Send HEAD to /heartbeat.',
  trigger: 'HEAD /heartbeat' as Trigger,
  bit: 19,
  hint: 'HEAD /heartbeat',
  nearMisses: [{ when: request => request.method === 'GET', says: () => 'Challenge 39 needs HEAD' }]
}
const list = [...challenges.filter(c => c.id < 39), added, ...challenges.filter(c => c.id > 39)]

t.test('a new challenge is unreachable until a route asks for its trigger', async t => {
  const catalogue = createCatalogue(list)
  for (const c of challenges) catalogue.bitFor(c.trigger)
  t.same(catalogue.unreachableChallenges().map(c => c.id), [39], 'the app would refuse to start, naming 39')
  t.equal(catalogue.bitFor(added.trigger), 1 << 19, 'its route asks for its bit')
  t.same(catalogue.unreachableChallenges(), [])
})

t.test('progress stored before the change means the same after it, and the new one fits in', async t => {
  const before = createCatalogue(challenges)
  const after = createCatalogue(list)
  const stored = before.progressFrom({ '01': true, 38: true, 42: true })
  const map = after.statusMap(stored)
  t.same(Object.keys(map).filter(id => map[id] === true).sort(), ['01', '38', '42'])
  t.equal(map['39'], false)
  const withNew = stored | after.bitFor(added.trigger)
  t.ok(isPassed(withNew, added))
  t.same(before.statusMap(withNew), before.statusMap(stored), 'the old list ignores the new bit')
  t.same(Object.keys(after.statusMap(0)).length, 20)
})

t.test('the list is checked: a bit or an id used twice, or a bit out of range, is refused', async t => {
  t.throws(() => createCatalogue([...list, { ...added, id: 43, referenceName: 'X', trigger: 'X' as Trigger }]), /bit 19 used twice/)
  t.throws(() => createCatalogue([...list, { ...added, bit: 20, referenceName: 'X', trigger: 'X' as Trigger }]), /id 39 used twice/)
  t.throws(() => createCatalogue([...list, { ...added, id: 43, bit: 31, referenceName: 'X', trigger: 'X' as Trigger }]), /challenge 43 has bit 31/)
  t.throws(() => createCatalogue([...list, { ...added, id: 43, bit: 20, referenceName: 'X', trigger: 'X' as Trigger, nearMisses: [] }]), /challenge 43 has no near miss/)
})

t.test('the app refuses to start while a challenge is unreachable, and names it', async t => {
  const real = await import('../src/domain/catalogue.js')
  const { default: app } = await t.mockImport<typeof import('../src/app.js')>('../src/app.js', {
    '../src/domain/catalogue.js': { ...real, unreachableChallenges: () => [added] }
  })
  const { default: Fastify } = await import('fastify')
  const server = Fastify()
  t.teardown(() => server.close())
  server.register(app)
  await t.rejects(async () => { await server.ready() }, /api-challenges: no route reports "HEAD \/heartbeat" \(challenge 39\)/)
})
