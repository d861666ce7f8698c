// The class server grading a suite over a socket: docs/bug-hunt.md's five-line sh loop, run as
// written with sh and curl (its first line's values the test's), and `grade --server`. A weak suite
// (it checks one status) scores what grade's own service says it catches, and the board shows it.
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import t, { type Test } from 'tap'
import { defects } from '../../src/domain/defects/catalogue.js'
import { build } from '../helper.js'
import { parseGradeArgs, type GradeOptions } from '../../src/grade/options.js'
import { gradeOnServer, reported } from '../../src/grade/server-run.js'
import { graded, leanEnv } from '../grade-helper.js'
import { root } from '../processes.js'

const run = promisify(execFile)
const TOKEN = 'an-instructor-token-0123'

/** The loop's lines in docs/bug-hunt.md, below its marker. */
function loopLines (): string[] {
  const doc = readFileSync(new URL('../../docs/bug-hunt.md', import.meta.url), 'utf8')
  const block = /<!-- grade-loop:sh[^>]*-->\n```sh\n([^`]*)```/.exec(doc)?.[1] as string
  return block.trimEnd().split('\n')
}

// One status checked: the creation's. It catches the defects that change that status, and no other.
const WEAK = 'test "$(curl -s -o /dev/null -w "%{http_code}" -X POST "$API_BASE_URL/challenger")" = 201'

/** The defects whose own service (grade's way: the `defects` option) answers a creation other than 201, found once. */
let weakCatches: string[] | undefined
async function caughtByWeak (t: Test): Promise<string[]> {
  if (weakCatches !== undefined) return weakCatches
  weakCatches = []
  for (const defect of defects) {
    const app = await build(t, { defects: [defect.id] })
    if ((await app.inject({ method: 'POST', url: '/challenger' })).statusCode !== 201) weakCatches.push(defect.id)
    await app.close()
  }
  return weakCatches
}

t.test('the documented sh loop grades a suite through the server: its score is grade\'s, and the board shows it', async t => {
  const lines = loopLines()
  t.equal(lines.length, 5, 'five lines')
  t.match(lines[0], /^SERVER=\S+ ME='<your session id>' SUITE='[^']+'$/, 'the first sets the three values')
  const app = await build(t, { adminToken: TOKEN })
  const server = await app.listen({ port: 0, host: '127.0.0.1' })
  const me = (await app.inject({ method: 'POST', url: '/challenger', payload: { name: 'Grace' } })).headers['x-challenger'] as string
  const script = [`SERVER=${server} ME='${me}' SUITE='${WEAK}'`, ...lines.slice(1)].join('\n')
  const { stdout } = await run('sh', ['-c', script], { cwd: root, env: leanEnv })
  const expected = await caughtByWeak(t)
  t.ok(expected.length > 0 && expected.length < defects.length, `the weak suite catches some: ${expected.join(', ')}`)
  const percent = Math.round(expected.length / defects.length * 10_000) / 100
  t.match(stdout, new RegExp(`^caught ${expected.length} of ${defects.length} \\(${percent}%\\)\n`), 'the score, in the loop\'s last line')
  t.equal(stdout.split('\n').filter(line => line.startsWith('survived: ')).length, defects.length - expected.length, 'a line per survivor')

  const board = await app.inject({ method: 'GET', url: '/admin/sessions', headers: { authorization: `Bearer ${TOKEN}` } })
  const row = (board.json().sessions as Array<{ name: string | null, grade: { caught: number, total: number, score: number, complete: boolean } | null }>).find(s => s.name === 'Grace')
  t.match(row?.grade, { caught: expected.length, total: defects.length, score: percent, complete: true }, 'the board shows the learner\'s score')
})

t.test('grade --server does the same from the CLI, and says when the suite fails on the correct base', async t => {
  const app = await build(t)
  const server = await app.listen({ port: 0, host: '127.0.0.1' })
  const expected = (await caughtByWeak(t)).length
  const weak = await graded(['--server', server, '--json', '--min-score', '100', '--', 'sh', '-c', WEAK])
  t.equal(weak.code, 1, 'below --min-score')
  t.equal(JSON.parse(weak.stdout).caught, expected)
  t.match(weak.stderr, /grading run [0-9a-f]{16}: \d+ defect bases and the correct one/)
  const none = await graded(['--server', `${server}/`, '--verbose', '--', 'sh', '-c', 'echo said by the suite'])
  t.match(none.stderr, /said by the suite/, '--verbose shows the suite\'s output')
  t.equal(none.code, 0, 'graded, at the default --min-score')
  t.equal(none.stdout.split('\n')[0], `caught 0 of ${defects.length} (0%)`, 'the score as the server says it')
  const failing = await graded(['--server', server, '--', 'false'])
  t.equal(failing.code, 2)
  t.match(failing.stderr, /fails against the correct base \(exit code 1\), so it grades nothing/)
  const slow = await graded(['--server', server, '--timeout', '0.5', '--', 'sh', '-c', 'case "$API_BASE_URL" in *) test -f /nonexistent || sleep 5;; esac'])
  t.equal(slow.code, 2, 'a time-out on the correct base grades nothing')
  const nowhere = await graded(['--server', 'http://127.0.0.1:1', '--', 'true'])
  t.equal(nowhere.code, 2)
  t.match(nowhere.stderr, /the server could not grade/)
  t.match((await graded(['--server', 'ftp://x', '--', 'true'])).stderr, /--server must be an http:\/\/ or https:\/\/ URL/)
})

t.test('grade --server: a run past --timeout counts as not caught (reported 0), as grade counts it; an interrupt grades nothing', async t => {
  t.same([reported({ timedOut: true, exitCode: null }), reported({ timedOut: false, exitCode: null }), reported({ timedOut: false, exitCode: 3 }), reported({ timedOut: false, exitCode: 0 })], [0, 0, 3, 0])
  const app = await build(t)
  const server = await app.listen({ port: 0, host: '127.0.0.1' })
  const options = (parseGradeArgs(['--server', server, '--verbose', '--', 'sh', '-c', 'echo started; sleep 5']) as { options: GradeOptions }).options
  const quiet = { stdout: { write: () => true }, stderr: { write: () => true }, env: leanEnv, cwd: root }
  t.equal(await gradeOnServer(server, options, quiet, AbortSignal.abort()), 2, 'stopped before the server answered')
  const interrupt = new AbortController()
  // Stopped once the suite has said it started: the run is under way.
  const watching = { ...quiet, stderr: { write: (text: string) => { if (text.includes('started')) interrupt.abort() } } }
  t.equal(await gradeOnServer(server, options, watching, interrupt.signal), 2, 'stopped while the suite ran')
  const single = await build(t, { mode: 'single' })
  const nowhere = await graded(['--server', await single.listen({ port: 0, host: '127.0.0.1' }), '--', 'true'])
  t.equal(nowhere.code, 2)
  t.match(nowhere.stderr, /the server could not grade: POST http:\/\/127\.0\.0\.1:\d+\/grades answered 404/, 'a server that offers no grading says so')
})
