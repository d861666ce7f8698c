// Grading runs and the graded session's defect, the same in every store (in memory, Redis): one
// suite, two backends, as store-behaviour.ts is for sessions.
import type { Test } from 'tap'
import { GRADE_LIMITS, newBases, type GradeRun, type GradeRuns } from '../src/domain/grades/runs.js'
import type { SessionStore } from '../src/domain/sessions/store.js'
import { until } from './until.js'

const LIMITS = { runMs: GRADE_LIMITS.runMs, perSession: 2, total: 3 }

/** `make` returns a fresh, empty store; the suite closes it. */
export function gradeRunsBehaviour (t: Test, make: () => Promise<SessionStore>): void {
  const runsOf = async (t: Test): Promise<[SessionStore, GradeRuns]> => {
    const store = await make()
    t.teardown(() => store.close())
    return [store, store.grades as GradeRuns]
  }

  t.test('a run is kept with its owner, bases and times, and reads back the same', async t => {
    const [, runs] = await runsOf(t)
    const bases = newBases()
    const run = await runs.start('owner-a', bases, LIMITS) as GradeRun
    t.match(run.id, /^[0-9a-f]{16}$/)
    t.equal(run.expiresAt - run.createdAt, LIMITS.runMs)
    t.same(await runs.get(run.id), { ...run, results: {} })
    t.same((await runs.get(run.id))?.bases, bases, 'the bases in their order, the correct one first')
    t.equal(await runs.get('0123456789abcdef'), undefined, 'no run by another id')
    t.equal(await runs.live(), 1)
  })

  t.test('a result is kept once: the first word stands; another run\'s base or no run is said', async t => {
    const [, runs] = await runsOf(t)
    const bases = newBases()
    const run = await runs.start('owner-a', bases, LIMITS) as GradeRun
    const [correct, first] = bases as [typeof bases[0], typeof bases[0]]
    t.equal(await runs.report(run.id, correct.id, 0), 'recorded')
    t.equal(await runs.report(run.id, first.id, 3), 'recorded')
    t.equal(await runs.report(run.id, first.id, 0), 'already')
    t.equal(await runs.report(run.id, 'ffffffffffff', 0), 'no-base')
    t.equal(await runs.report('0123456789abcdef', first.id, 0), 'gone')
    t.same((await runs.get(run.id))?.results, { [correct.id]: 0, [first.id]: 3 })
  })

  t.test('a session has at most perSession live runs, the server total; each refusal says how long to wait', async t => {
    const [, runs] = await runsOf(t)
    await runs.start('owner-a', newBases(), LIMITS)
    await runs.start('owner-a', newBases(), LIMITS)
    const refused = await runs.start('owner-a', newBases(), LIMITS)
    t.match(refused, { refused: 'session' })
    const wait = (refused as { retryAfterSeconds: number }).retryAfterSeconds
    t.ok(wait > LIMITS.runMs / 1000 - 60 && wait <= LIMITS.runMs / 1000, `until the oldest ends: ${wait} s`)
    t.match(await runs.start('owner-b', newBases(), LIMITS), { owner: 'owner-b' }, 'another session may start one')
    t.match(await runs.start('owner-c', newBases(), LIMITS), { refused: 'total' }, 'but not past the total')
    t.equal(await runs.live(), 3)
    const [, empty] = await runsOf(t)
    t.match(await empty.start('owner-c', newBases(), { ...LIMITS, total: 0 }), { refused: 'total', retryAfterSeconds: 1 }, 'with no run to wait for: a second')
  })

  t.test('the board reads each owner\'s latest run, and nothing for an owner with none', async t => {
    const [, runs] = await runsOf(t)
    await runs.start('owner-a', newBases(), LIMITS)
    const later = await runs.start('owner-a', newBases(), LIMITS) as GradeRun
    const other = await runs.start('owner-b', newBases(), LIMITS) as GradeRun
    await runs.report(later.id, later.bases[1]?.id as string, 1)
    const latest = await runs.latest(['owner-a', 'owner-b', 'owner-c'])
    t.same([...latest.keys()].sort(), ['owner-a', 'owner-b'])
    t.equal(latest.get('owner-a')?.id, later.id)
    t.same(latest.get('owner-a')?.results, { [later.bases[1]?.id as string]: 1 })
    t.equal(latest.get('owner-b')?.id, other.id)
    t.equal((await runs.latest([])).size, 0)
  })

  t.test('a run ends after runMs: gone, uncounted, and its results refused', async t => {
    const [, runs] = await runsOf(t)
    const run = await runs.start('owner-a', newBases(), { ...LIMITS, runMs: 1 }) as GradeRun
    await until('the run ends', async () => await runs.get(run.id) === undefined)
    t.equal(await runs.live(), 0)
    t.equal(await runs.report(run.id, run.bases[0]?.id as string, 0), 'gone')
    t.equal((await runs.latest(['owner-a'])).size, 0)
    t.match(await runs.start('owner-a', newBases(), LIMITS), { owner: 'owner-a' }, 'and counts against no limit')
  })

  t.test('a session made under a grading base carries its defect: read back, kept by a restore, and no other session has it', async t => {
    const [store] = await runsOf(t)
    const graded = await store.create(undefined, 0, undefined, 'lost-write')
    t.equal(graded.graded, 'lost-write')
    t.equal((await store.get(graded.guid))?.graded, 'lost-write')
    t.equal(await store.restore({ ...graded, graded: undefined, note: 'kept' }), 'replaced')
    t.equal((await store.get(graded.guid))?.graded, 'lost-write', 'a restore without it keeps the live session\'s')
    const plain = await store.create()
    t.equal((await store.get(plain.guid))?.graded, undefined)
    t.equal(await store.restore({ guid: '00000000-0000-4000-8000-00000000abcd', token: 'f'.repeat(32), note: '', progress: 0, graded: 'json-as-text' }), 'created')
    t.equal((await store.get('00000000-0000-4000-8000-00000000abcd'))?.graded, 'json-as-text', 'a recreated session takes the one given')
    await store.restore({ guid: '00000000-0000-4000-8000-00000000abce', token: 'f'.repeat(32), note: '', progress: 0 })
    t.equal((await store.get('00000000-0000-4000-8000-00000000abce'))?.graded, undefined, 'and one recreated without it has none')
  })
}
