// The example suites learners copy (examples/): pytest + requests, and a Postman collection run by
// newman, each graded in full by the grade command as the READMEs say. Each must pass against the
// correct service and catch at least what it caught when measured (docs/bug-hunt.md, "Example
// suites"): a lower bound, as the catalogue grows. Where python3 (with pytest and requests) or newman
// is missing, that suite is skipped and says why; in CI, which installs them (.ci/run), it fails.
// Slow (a run per defect, each a process), so in `npm run test:all` only (.taprc).
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import type { GradeResult } from '../src/grade/report.js'
import { graded, leanEnv } from './grade-helper.js'
import { root } from './processes.js'

/** Why a suite cannot run here, or false when it can. */
const python = spawnSync('python3', ['-c', 'import pytest, requests'], { encoding: 'utf8' })
const pytestMissing: false | string = python.status === 0
  ? false
  : `python3 with pytest and requests is not installed here (${(python.error?.message ?? python.stderr).trim().split('\n').at(-1) ?? ''}): apt-get install python3-pytest python3-requests`
const newman = join(root, 'node_modules/.bin/newman')
const newmanMissing: false | string = existsSync(newman) ? false : `newman is not installed (${newman} is missing): npm ci installs it, a devDependency`

const examples = [
  {
    name: 'pytest + requests',
    missing: pytestMissing,
    // As examples/pytest/README.md says; no .pytest_cache or __pycache__ left in the clone.
    command: ['python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'examples/pytest'],
    env: { ...leanEnv, PYTHONDONTWRITEBYTECODE: '1' },
    atLeast: 28
  },
  {
    name: 'Postman collection (newman)',
    missing: newmanMissing,
    // One word with spaces: run by sh -c, which expands $API_BASE_URL (examples/postman/README.md).
    command: ['node_modules/.bin/newman run examples/postman/api-challenges.postman_collection.json --env-var baseUrl=$API_BASE_URL'],
    env: leanEnv,
    atLeast: 21
  }
]

for (const example of examples) {
  if (example.missing !== false && process.env.CI === 'true') {
    t.fail(`${example.name}: ${example.missing}`)
    continue
  }
  t.test(`${example.name}: passes against the correct service, and catches at least ${example.atLeast} defects`, { skip: example.missing }, async t => {
    const { code, stdout, stderr } = await graded(['--json', '--jobs', '2', '--', ...example.command], example.env)
    t.equal(code, 0, stderr)
    t.match(stderr, /^grade: running .* against the correct service\ngrade: passed against the correct service/)
    const result = JSON.parse(stdout) as GradeResult
    t.ok(result.baseline.requests > 0, `it sent ${result.baseline.requests} requests`)
    const caught = result.mutants.filter(m => m.outcome === 'killed').length
    t.equal(result.caught, caught, 'the score is the count of defects caught')
    t.ok(caught >= example.atLeast, `caught ${caught} of ${result.total} (at least ${example.atLeast})`)
    t.comment(`${example.name}: caught ${caught} of ${result.total}`)
  })
}
