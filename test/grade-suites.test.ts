// The three fixture suites (test/fixtures/suites/), each graded in full by the grade command: a
// weak one (status codes only), a strong one, and a bash script with curl. Slow (48 runs, each a
// process or a dozen), so in `npm run test:all` only (.taprc).
import { join } from 'node:path'
import t from 'tap'
import { defects } from '../src/domain/defects/catalogue.js'
import type { GradeResult } from '../src/grade/report.js'
import { graded, suites } from './grade-helper.js'

const fixtures = {
  weak: [process.execPath, '--test', join(suites, 'weak/api.test.mjs')],
  strong: [process.execPath, '--test', join(suites, 'strong/api.test.mjs')],
  // One word with spaces: run by sh -c.
  curl: [`bash '${join(suites, 'curl/suite.sh')}'`]
}

// Graded first, one after the other, two mutants at a time each (on two cores); the tests read the results.
const results = new Map<string, { code: number, stderr: string, result: GradeResult }>()
for (const [name, command] of Object.entries(fixtures)) {
  const { code, stdout, stderr } = await graded(['--json', '--jobs', '2', '--', ...command])
  results.set(name, { code, stderr, result: JSON.parse(stdout) as GradeResult })
}

const survivors = (name: string): string[] => results.get(name)?.result.mutants.filter(m => m.outcome !== 'killed').map(m => m.id) ?? []

t.test('the correct service passes every fixture suite', async t => {
  for (const [name, { code, stderr, result }] of results) {
    t.equal(code, 0, name)
    t.match(stderr, /^grade: running .* against the correct service\ngrade: passed against the correct service/, name)
    t.ok(result.baseline.requests > 0, `${name} sent ${result.baseline.requests} requests`)
  }
  t.equal(results.size, 3)
})

t.test('weak (status codes only): caught 4 of 15, and the survivors are the ones a status cannot show', async t => {
  t.same([results.get('weak')?.result.caught, results.get('weak')?.result.total], [4, 15])
  t.same(survivors('weak'), [
    'foreign-token', 'note-cut-at-99', 'no-challenger-echo', 'bearer-loses', 'patch-heartbeat-405', 'override-ignored',
    'lost-write', 'any-password', 'no-www-authenticate', 'json-as-text', 'xml-ignored'
  ])
})

t.test('strong: caught 15 of 15', async t => {
  t.same([results.get('strong')?.result.caught, results.get('strong')?.result.total], [15, 15])
  t.same(survivors('strong'), [])
})

t.test('curl (a bash script): caught 11 of 15, missing the edges it does not try', async t => {
  t.same([results.get('curl')?.result.caught, results.get('curl')?.result.total], [11, 15])
  t.same(survivors('curl'), ['foreign-token', 'note-cut-at-99', 'bearer-loses', 'override-ignored'])
})

t.test('every mutant is caught by at least one fixture suite', async t => {
  const caught = new Set([...results.values()].flatMap(({ result }) => result.mutants.filter(m => m.outcome === 'killed').map(m => m.id)))
  t.same(defects.map(d => d.id).filter(id => !caught.has(id)), [])
})
