// The three fixture suites (test/fixtures/suites/), each graded in full by the grade command: a
// weak one (status codes only), a strong one, and a bash script with curl. Slow (a run per defect and
// one more, for each: each a process or a dozen), so in `npm run test:all` only (.taprc).
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

// The caught and the survivors, in the catalogue's order, as the last full run of each suite gave them.
const caughtBy = (name: string): string[] => results.get(name)?.result.mutants.filter(m => m.outcome === 'killed').map(m => m.id) ?? []

t.test('weak (status codes only): caught 4, and the survivors are the ones a status it sends cannot show', async t => {
  t.same([results.get('weak')?.result.caught, results.get('weak')?.result.total], [4, defects.length])
  t.same(caughtBy('weak'), ['swap-401-403', 'note-write-201', 'created-200', 'heartbeat-200'])
  t.equal(survivors('weak').length, defects.length - 4)
})

t.test('strong: caught every one', async t => {
  t.same([results.get('strong')?.result.caught, results.get('strong')?.result.total], [defects.length, defects.length])
  t.same(survivors('strong'), [])
})

t.test('curl (a bash script): caught 15, missing the edges and the bodies it does not try', async t => {
  t.same([results.get('curl')?.result.caught, results.get('curl')?.result.total], [15, defects.length])
  t.same(caughtBy('curl'), [
    'swap-401-403', 'note-write-201', 'patch-heartbeat-405', 'created-200', 'heartbeat-200', 'no-challenger-echo',
    'no-www-authenticate', 'login-challenge-bearer', 'json-as-text', 'json-no-charset', 'xml-charset-latin1',
    'any-password', 'lost-write', 'stale-read', 'xml-ignored'
  ])
})

t.test('every mutant is caught by at least one fixture suite', async t => {
  const caught = new Set([...results.values()].flatMap(({ result }) => result.mutants.filter(m => m.outcome === 'killed').map(m => m.id)))
  t.same(defects.map(d => d.id).filter(id => !caught.has(id)), [])
})
