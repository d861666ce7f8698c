// The fixture suites graded through the class server (issue 59, part 5), in full: the strong one by
// docs/bug-hunt.md's sh loop scores 100%, and the weak one by `grade --server` catches exactly what
// `grade` on this machine says it catches. Slow (a node --test run per base, three times over): in
// `npm run test:all` only (.taprc).
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { defects } from '../src/domain/defects/catalogue.js'
import type { GradeRuns } from '../src/domain/grades/runs.js'
import type { GradeResult } from '../src/grade/report.js'
import { graded, leanEnv, suites } from './grade-helper.js'
import { build, storeOf } from './helper.js'
import { root } from './processes.js'

const run = promisify(execFile)
const TOKEN = 'an-instructor-token-0123'
const node = (suite: string): string => `'${process.execPath}' --test '${join(suites, suite, 'api.test.mjs')}'`

function loopLines (): string[] {
  const doc = readFileSync(new URL('../docs/bug-hunt.md', import.meta.url), 'utf8')
  return (/<!-- grade-loop:sh[^>]*-->\n```sh\n([^`]*)```/.exec(doc)?.[1] as string).trimEnd().split('\n')
}

t.test('the strong suite, run by the documented sh loop, scores 100% through the server, and the board says so', async t => {
  const app = await build(t, { adminToken: TOKEN })
  const server = await app.listen({ port: 0, host: '127.0.0.1' })
  const me = (await app.inject({ method: 'POST', url: '/challenger', payload: { name: 'Strong' } })).headers['x-challenger'] as string
  const script = [`SERVER=${server} ME='${me}' SUITE="${node('strong')}"`, ...loopLines().slice(1)].join('\n')
  const { stdout } = await run('sh', ['-c', script], { cwd: root, env: leanEnv })
  t.equal(stdout, `caught ${defects.length} of ${defects.length} (100%)\n`)
  const board = await app.inject({ method: 'GET', url: '/admin/sessions?limit=1000', headers: { authorization: `Bearer ${TOKEN}` } })
  const row = (board.json().sessions as Array<{ name: string | null, grade: unknown }>).find(s => s.name === 'Strong')
  t.same(row?.grade, { caught: defects.length, total: defects.length, score: 100, complete: true, survivors: [] })
})

t.test('the weak suite, by grade --server, catches exactly the defects grade catches on this machine', async t => {
  const local = await graded(['--json', '--jobs', '2', '--', process.execPath, '--test', join(suites, 'weak/api.test.mjs')])
  const killed = (JSON.parse(local.stdout) as GradeResult).mutants.filter(m => m.outcome === 'killed').map(m => m.id).sort()
  const app = await build(t)
  const server = await app.listen({ port: 0, host: '127.0.0.1' })
  const remote = await graded(['--server', server, '--', process.execPath, '--test', join(suites, 'weak/api.test.mjs')])
  t.equal(remote.code, 0)
  const id = /grading run ([0-9a-f]{16})/.exec(remote.stderr)?.[1] as string
  const kept = await (storeOf(app).grades as GradeRuns).get(id)
  const caught = kept?.bases.filter(base => base.defect !== null && kept.results[base.id] !== 0).map(base => base.defect).sort()
  t.same(caught, killed, `the same defects caught: ${killed.join(', ')}`)
  t.match(remote.stdout, new RegExp(`^caught ${killed.length} of ${defects.length} `))
})
