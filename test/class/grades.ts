// Grading a class from the class server (issue 59, part 5): POST /grades, the API under each base, a
// session carrying its base's defect, the results, the score, the limits, the board and the metrics.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import { defectById, defects } from '../../src/domain/defects/catalogue.js'
import { GRADE_LIMITS, type GradeRuns } from '../../src/domain/grades/runs.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { basic, build, errorMessages, storeOf } from '../helper.js'

const TOKEN = 'an-instructor-token-0123'
const admin = { authorization: `Bearer ${TOKEN}` }

interface RunJson {
  id: string
  results: string
  bases: Array<{ url: string, correct: boolean, exitCode: number | null }>
  caught: number
  survived: number
  pending: number
  total: number
  correctExitCode: number | null
  score: number | null
  complete: boolean
  survivors: Array<{ family: string, endpoint: string }>
}

/** The path of a base's URL (inject's answers name http://localhost:80). */
const pathOf = (url: string): string => new URL(url).pathname

async function learner (app: FastifyInstance, name?: string): Promise<string> {
  const made = await app.inject({ method: 'POST', url: '/challenger', ...(name === undefined ? {} : { payload: { name } }) })
  return made.headers['x-challenger'] as string
}

async function startRun (app: FastifyInstance, me: string): Promise<RunJson> {
  const started = await app.inject({ method: 'POST', url: '/grades', headers: { 'x-challenger': me } })
  if (started.statusCode !== 201) throw new Error(started.body)
  return started.json()
}

/** The defect of each base, as the store keeps it (the learner never sees it). */
async function defectsOf (app: FastifyInstance, run: RunJson): Promise<Map<string, string | null>> {
  const kept = await (storeOf(app).grades as GradeRuns).get(run.id)
  return new Map(kept?.bases.map(base => [`${run.bases[0]?.url.replace(/\/[0-9a-f]+$/, '')}/${base.id}`, base.defect]))
}

const report = async (app: FastifyInstance, run: RunJson, me: string, base: string, exitCode: number): Promise<LightMyRequestResponse> =>
  await app.inject({ method: 'POST', url: `/grades/${run.id}/results`, headers: { 'x-challenger': me }, payload: { base, exitCode } })

t.test('POST /grades: a base for the correct service and one per defect, under opaque ids, for the session in X-CHALLENGER', async t => {
  const app = await build(t)
  const me = await learner(app)
  const started = await app.inject({ method: 'POST', url: '/grades', headers: { 'x-challenger': me.toUpperCase() } })
  t.equal(started.statusCode, 201)
  const run = started.json() as RunJson
  t.equal(started.headers.location, `/grades/${run.id}`)
  t.equal(run.bases.length, defects.length + 1, 'one base per defect of the catalogue, and the correct one')
  t.same(run.bases.map(base => base.correct), [true, ...defects.map(() => false)], 'the correct one first, and only it labelled')
  t.equal(new Set(run.bases.map(base => base.url)).size, run.bases.length)
  for (const base of run.bases) t.match(pathOf(base.url), new RegExp(`^/grades/${run.id}/[0-9a-f]{12}$`), 'a base says nothing of its defect')
  t.same([run.caught, run.survived, run.pending, run.total, run.score, run.complete], [0, 0, defects.length, defects.length, null, false])
  t.equal(run.results, `http://localhost:80/grades/${run.id}/results`)
  const kept = await defectsOf(app, run)
  t.same([...kept.values()].filter(d => d !== null).sort(), defects.map(d => d.id).sort(), 'each defect has its base')

  const text = await app.inject({ method: 'POST', url: '/grades', headers: { 'x-challenger': me, accept: 'text/plain' } })
  t.equal(text.statusCode, 201)
  t.equal(text.headers['content-type'], 'text/plain; charset=utf-8')
  const lines = text.body.trimEnd().split('\n')
  t.equal(lines.length, defects.length + 2, 'for a shell: the run\'s URL, then each base\'s')
  t.match(lines[0], /^http:\/\/localhost:80\/grades\/[0-9a-f]{16}$/)
  t.ok(lines.slice(1).every(line => line.startsWith(`${lines[0] as string}/`)))
})

t.test('POST /grades needs a live session, and an Accept it can answer', async t => {
  const app = await build(t)
  const none = await app.inject({ method: 'POST', url: '/grades' })
  t.equal(none.statusCode, 401)
  t.match(errorMessages(none), [/belongs to a session/])
  const unknown = await app.inject({ method: 'POST', url: '/grades', headers: { 'x-challenger': '00000000-0000-4000-8000-00000000abcd' } })
  t.equal(unknown.statusCode, 404)
  const me = await learner(app)
  const html = await app.inject({ method: 'POST', url: '/grades', headers: { 'x-challenger': me, accept: 'text/html' } })
  t.equal(html.statusCode, 406)
  t.equal((await app.inject({ method: 'GET', url: '/grades' })).statusCode, 405)
  t.equal((await app.inject({ method: 'OPTIONS', url: '/grades' })).headers.allow, 'POST, OPTIONS')
})

t.test('every route of the API answers under every base, in JSON and XML; the correct base as the root does', async t => {
  const app = await build(t)
  const run = await startRun(app, await learner(app))
  for (const [index, base] of run.bases.map(b => pathOf(b.url)).entries()) {
    const made = await app.inject({ method: 'POST', url: `${base}/challenger` })
    t.ok([200, 201].includes(made.statusCode), `${base}: a session is made`)
    const guid = made.headers['x-challenger'] as string
    const token = (await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { 'x-challenger': guid, authorization: basic('admin', 'password') } })).headers['x-auth-token'] as string
    const asked = [
      await app.inject({ method: 'GET', url: `${base}/heartbeat`, headers: { 'x-challenger': guid } }),
      await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { 'x-challenger': guid, 'x-auth-token': token }, payload: { note: 'hello' } }),
      await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: { 'x-challenger': guid, 'x-auth-token': token } }),
      await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: { 'x-challenger': guid, 'x-auth-token': token, accept: 'application/xml' } }),
      await app.inject({ method: 'GET', url: `${base}/challenges`, headers: { 'x-challenger': guid } }),
      await app.inject({ method: 'GET', url: `${base}/challenger/${guid}`, headers: { 'x-challenger': guid } })
    ]
    t.notOk(asked.some(answer => answer.statusCode === 404), `${base}: every route is there`)
    if (index === 0) {
      t.equal(made.statusCode, 201)
      t.same(asked.map(answer => answer.statusCode), [204, 200, 200, 200, 200, 200], 'the correct base answers as the root does')
      t.equal(asked[2]?.json().note, 'hello')
      t.match(asked[3]?.body, /<note>hello<\/note>/)
      t.equal((await storeOf(app).get(guid))?.graded, undefined, 'and its sessions carry nothing')
      const hints = (await app.inject({ method: 'GET', url: `${base}/challenges?hints=true` })).json() as { challenges: Array<{ id: number, hint: string }> }
      t.match(hints.challenges.find(c => c.id === 28)?.hint, `GET ${base}/heartbeat`, 'the hints\' paths are under the base, as sent')
    }
  }
})

t.test('a session made under a base carries the base\'s defect, and meets it at the root too; a base\'s own id never shows', async t => {
  const app = await build(t)
  const run = await startRun(app, await learner(app))
  const kept = await defectsOf(app, run)
  const baseOf = (id: string): string => pathOf([...kept].find(([, defect]) => defect === id)?.[0] as string)
  for (const [url, defect] of kept) {
    if (defect === null) continue
    const made = await app.inject({ method: 'POST', url: `${pathOf(url)}/challenger` })
    const guid = made.headers['x-challenger'] as string
    t.equal((await storeOf(app).get(guid))?.graded, defect, `${defect}: carried`)
    const json = await app.inject({ method: 'GET', url: `/challenger/${guid}`, headers: { 'x-challenger': guid } })
    t.notMatch(json.body, defect, 'GET /challenger/{guid} does not tell it')
  }
  // Two defects of the catalogue, as examples of the way a learner meets them.
  t.ok(defectById('created-200') !== undefined && defectById('note-write-201') !== undefined)
  t.equal((await app.inject({ method: 'POST', url: `${baseOf('created-200')}/challenger` })).statusCode, 200, 'the creation meets its session\'s defect')
  const writer = (await app.inject({ method: 'POST', url: `${baseOf('note-write-201')}/challenger` })).headers['x-challenger'] as string
  const token = (await app.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': writer, authorization: basic('admin', 'password') } })).headers['x-auth-token'] as string
  const written = await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': writer, 'x-auth-token': token }, payload: { note: 'x' } })
  t.equal(written.statusCode, 201, 'at the root too: the defect is the session\'s')
  // A request without a session under a base meets the base's defect, as grade's service meets its own.
  t.ok(defectById('heartbeat-200') !== undefined)
  t.equal((await app.inject({ method: 'GET', url: `${baseOf('heartbeat-200')}/heartbeat` })).statusCode, 200, 'no session: the base\'s defect')
  t.equal((await app.inject({ method: 'GET', url: `${pathOf(run.bases[0]?.url as string)}/heartbeat` })).statusCode, 204, 'the correct base\'s: none')
  const heartbeatBase = (await app.inject({ method: 'POST', url: `${baseOf('heartbeat-200')}/challenger` })).headers['x-challenger'] as string
  t.equal((await app.inject({ method: 'GET', url: `${baseOf('created-200')}/heartbeat`, headers: { 'x-challenger': heartbeatBase } })).statusCode, 200, 'under another base, the session\'s defect, not that base\'s')
})

t.test('a service with defects everywhere (grade\'s) has them under every base too, the correct one included', async t => {
  const app = await build(t, { defects: ['heartbeat-200'] })
  const run = await startRun(app, await learner(app))
  t.equal((await app.inject({ method: 'GET', url: `${pathOf(run.bases[0]?.url as string)}/heartbeat` })).statusCode, 200)
})

t.test('a base that is no run\'s is 404, and a base makes at most sessionsPerBase sessions', async t => {
  const app = await build(t)
  const run = await startRun(app, await learner(app))
  for (const url of [`/grades/${run.id}/0123456789ab/challenger`, `/grades/0123456789abcdef/${pathOf(run.bases[1]?.url as string).slice(-12)}/challenger`, '/grades/x/y/challenger', `/grades/${run.id}/0123456789ab/heartbeat`]) {
    const refused = await app.inject({ method: 'POST', url })
    t.equal(refused.statusCode, 404, url)
    t.match(errorMessages(refused), [/No grading base/])
  }
  const base = pathOf(run.bases[0]?.url as string)
  for (let i = 0; i < GRADE_LIMITS.sessionsPerBase; i++) await app.inject({ method: 'POST', url: `${base}/challenger` })
  const over = await app.inject({ method: 'POST', url: `${base}/challenger` })
  t.equal(over.statusCode, 429)
  t.ok(Number(over.headers['retry-after']) > 0)
})

t.test('a restore under a base says where the session is, under that base', async t => {
  const app = await build(t)
  const run = await startRun(app, await learner(app))
  const base = pathOf(run.bases[0]?.url as string)
  const put = await app.inject({ method: 'PUT', url: `${base}/challenger/00000000-0000-4000-8000-00000000abcd`, payload: { xChallenger: '00000000-0000-4000-8000-00000000abcd' } })
  t.equal(put.statusCode, 201)
  t.equal(put.headers.location, `${base}/challenger/00000000-0000-4000-8000-00000000abcd`)
})

t.test('results: the owner reports each base once; the score is caught of total, survivors by family and endpoint only', async t => {
  const app = await build(t, { adminToken: TOKEN })
  const me = await learner(app, 'Ada')
  const run = await startRun(app, me)
  const kept = await defectsOf(app, run)
  const [correct, survivor, ...caught] = run.bases
  const url = `/grades/${run.id}/results`
  t.equal((await app.inject({ method: 'POST', url, payload: { base: correct?.url, exitCode: 0 } })).statusCode, 401)
  t.equal((await report(app, run, await learner(app), correct?.url as string, 0)).statusCode, 403)
  t.equal((await report(app, run, me, 'http://localhost/grades/x/0123456789ab', 0)).statusCode, 400)
  t.equal((await report(app, run, me, 'not a base', 0)).statusCode, 400)
  t.equal((await report(app, run, me, correct?.url as string, 256)).statusCode, 400)
  t.equal((await app.inject({ method: 'POST', url: '/grades/0123456789abcdef/results', headers: { 'x-challenger': me }, payload: { base: correct?.url, exitCode: 0 } })).statusCode, 404)
  t.equal((await app.inject({ method: 'POST', url, headers: { 'x-challenger': me, accept: 'image/png' }, payload: { base: correct?.url, exitCode: 0 } })).statusCode, 406)

  const first = await report(app, run, me, `${correct?.url as string}/`, 0)
  t.equal(first.statusCode, 200)
  t.equal(first.json().correctExitCode, 0)
  const again = await report(app, run, me, correct?.url as string, 1)
  t.equal(again.statusCode, 409, 'the first word stands')
  t.equal((await report(app, run, me, pathOf(survivor?.url as string).slice(-12), 0)).statusCode, 200, 'a base by its id')
  for (const base of caught) await report(app, run, me, base.url, 1)
  const scored = await app.inject({ method: 'GET', url: `/grades/${run.id}` })
  const score = scored.json() as RunJson
  t.same([score.caught, score.survived, score.pending, score.total, score.complete], [defects.length - 1, 1, 0, defects.length, true])
  t.equal(score.score, Math.round((defects.length - 1) / defects.length * 10_000) / 100, 'Stryker\'s score: caught / (caught + survived)')
  const defect = defectById(kept.get(survivor?.url as string) as string)
  t.same(score.survivors, [{ family: defect?.family, endpoint: defect?.endpoint }], 'the survivor\'s family and endpoint')
  t.notMatch(scored.body, defect?.check as string, 'never its check')
  t.notMatch(scored.body, defect?.id as string, 'nor its id')
  const text = await app.inject({ method: 'GET', url: `/grades/${run.id}`, headers: { accept: 'text/plain' } })
  t.equal(text.body, `caught ${defects.length - 1} of ${defects.length} (${score.score as number}%)\nsurvived: a defect of the ${defect?.family as string} family, on ${defect?.endpoint as string}\n`)
  t.equal((await app.inject({ method: 'GET', url: '/grades/nothing' })).statusCode, 404)
  t.equal((await app.inject({ method: 'GET', url: `/grades/${run.id}`, headers: { accept: 'text/html' } })).statusCode, 406)

  // The board: the learner's latest score and the survivors' families; the metrics count runs and results.
  const board = await app.inject({ method: 'GET', url: '/admin/sessions', headers: admin })
  const row = (board.json().sessions as Array<{ name: string | null, grade: unknown }>).find(s => s.name === 'Ada')
  t.same(row?.grade, { caught: defects.length - 1, total: defects.length, score: score.score, complete: true, survivors: [defect?.family] })
  t.equal((board.json().sessions as Array<{ name: string | null, grade: unknown }>).find(s => s.name === null)?.grade, null, 'no run: null')
  const metrics = (await app.inject({ method: 'GET', url: '/metrics', headers: admin })).body
  t.match(metrics, /^api_challenges_grade_runs_total 1$/m)
  t.match(metrics, /^api_challenges_grade_results_total\{outcome="caught"\} /m)
  t.match(metrics, new RegExp(`^api_challenges_grade_results_total\\{outcome="caught"\\} ${defects.length - 1}$`, 'm'))
  t.match(metrics, /^api_challenges_grade_results_total\{outcome="survived"\} 1$/m)
  t.match(metrics, /^api_challenges_grade_results_total\{outcome="correct-passed"\} 1$/m)
  t.match(metrics, /^api_challenges_grade_results_total\{outcome="correct-failed"\} 0$/m)
})

t.test('a suite that fails on the correct base grades nothing: no score', async t => {
  const app = await build(t, { adminToken: TOKEN })
  const me = await learner(app)
  const run = await startRun(app, me)
  for (const base of run.bases) await report(app, run, me, base.url, 1)
  const score = (await app.inject({ method: 'GET', url: `/grades/${run.id}` })).json() as RunJson
  t.same([score.correctExitCode, score.score, score.complete, score.caught], [1, null, false, defects.length])
  const text = (await app.inject({ method: 'GET', url: `/grades/${run.id}`, headers: { accept: 'text/plain' } })).body
  t.match(text, /^your suite failed against the correct base \(exit code 1\)/)
  t.match((await app.inject({ method: 'GET', url: '/metrics', headers: admin })).body, /^api_challenges_grade_results_total\{outcome="correct-failed"\} 1$/m)
  const fresh = await startRun(app, me)
  t.match((await app.inject({ method: 'GET', url: `/grades/${fresh.id}`, headers: { accept: 'text/plain' } })).body, /^the correct base has no result yet/)
})

t.test('limits: live runs per session, runs per address; each 429 with Retry-After and the one error body', async t => {
  const app = await build(t)
  const me = await learner(app)
  for (let i = 0; i < GRADE_LIMITS.perSession; i++) await startRun(app, me)
  const over = await app.inject({ method: 'POST', url: '/grades', headers: { 'x-challenger': me } })
  t.equal(over.statusCode, 429)
  t.ok(Number(over.headers['retry-after']) > 0)
  t.match(errorMessages(over), [/grading runs under way/])
  // The address's count includes the refused one.
  let started = GRADE_LIMITS.perSession + 1
  while (started < GRADE_LIMITS.perAddress) {
    const other = await learner(app)
    for (let i = 0; i < GRADE_LIMITS.perSession && started < GRADE_LIMITS.perAddress; i++, started++) await startRun(app, other)
  }
  const address = await app.inject({ method: 'POST', url: '/grades', headers: { 'x-challenger': await learner(app) } })
  t.equal(address.statusCode, 429)
  t.match(errorMessages(address), [/This address has started/])
})

t.test('the server keeps at most GRADE_LIMITS.total live runs', async t => {
  const store = new MemoryStore()
  const app = await build(t, { store })
  const full = { runMs: GRADE_LIMITS.runMs, perSession: GRADE_LIMITS.total, total: GRADE_LIMITS.total }
  for (let i = 0; i < GRADE_LIMITS.total; i++) await store.grades.start('someone', [], full)
  const over = await app.inject({ method: 'POST', url: '/grades', headers: { 'x-challenger': await learner(app) } })
  t.equal(over.statusCode, 429)
  t.match(errorMessages(over), [/The server has 1000 grading runs under way/])
})

t.test('a run that ends as its result comes is 404; a session carrying a defect the catalogue no longer has meets none', async t => {
  const store = new MemoryStore()
  const app = await build(t, { store })
  const me = await learner(app)
  const run = await startRun(app, me)
  store.grades.report = async () => 'gone'
  const late = await report(app, run, me, run.bases[0]?.url as string, 0)
  t.equal(late.statusCode, 404)
  t.match(errorMessages(late), [/ended as the result came/])
  const old = await store.create(undefined, 0, undefined, 'a-defect-since-removed')
  t.equal((await app.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': old.guid } })).statusCode, 204)
})

t.test('no grading where the store keeps no runs, or in single-player mode', async (t: Test) => {
  const store = new MemoryStore()
  Object.defineProperty(store, 'grades', { value: undefined })
  const app = await build(t, { store, adminToken: TOKEN })
  t.equal((await app.inject({ method: 'POST', url: '/grades', headers: { 'x-challenger': await learner(app) } })).statusCode, 404)
  const board = await app.inject({ method: 'GET', url: '/admin/sessions', headers: admin })
  t.equal(board.json().sessions[0].grade, null)
  const single = await build(t, { mode: 'single' })
  t.equal((await single.inject({ method: 'POST', url: '/grades' })).statusCode, 404)
})
