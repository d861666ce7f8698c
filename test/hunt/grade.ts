// The grade command: its command line, what it says when it cannot grade, time-outs, interrupts,
// and its JSON and JUnit reports, on a few mutants each (--only). The fixture suites graded in full
// are in grade-suites.test.ts (slow).
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { XMLParser } from 'fast-xml-parser'
import { until } from '../until.js'
import t, { type Test } from 'tap'
import { defects, type Defect } from '../../src/domain/defects/catalogue.js'
import { parseGradeArgs, USAGE } from '../../src/grade/options.js'
import { FAMILY_HINTS, type GradeResult } from '../../src/grade/report.js'
import { invocation, runCommand } from '../../src/grade/run.js'
import { graded, leanEnv, suites } from '../grade-helper.js'
import { root, serverFile } from '../processes.js'
import { ignoreClosedPipe } from '../../src/server.js'

const weak = [process.execPath, '--test', join(suites, 'weak/api.test.mjs')]
// A one-line suite: GET /heartbeat must be 204.
const heartbeat = 'code=$(curl -s -o /dev/null -w "%{http_code}" "$API_BASE_URL/heartbeat"); echo "heartbeat: $code"; test "$code" = 204'

function tempDir (t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'grade-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  return dir
}

/** Whether process `pid` has ended: no such process, or one dead but not yet reaped (a zombie). */
function gone (pid: number): boolean {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return true
  }
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')
}

const ids = defects.map(d => d.id)

t.test('--help and -h print the usage, with every mutant id, and exit 0', async t => {
  for (const flag of ['--help', '-h']) {
    const { code, stdout, stderr } = await graded(['--json', flag, '--', 'true'])
    t.equal(code, 0)
    t.equal(stdout, USAGE)
    t.equal(stderr, '')
  }
  t.match(USAGE, /^Usage: api-challenges-fastify grade \[options\] -- <your test command…>\n/)
  t.equal(USAGE.slice(USAGE.indexOf('The mutants: ')).replace(/\s+/g, ' '), `The mutants: ${ids.join(', ')}. `)
  t.ok(USAGE.split('\n').every(line => line.length <= 100), 'no line over 100 characters')
})

t.test('every mistake on the command line is said, and nothing runs', async t => {
  const cases: Array<[string[], string]> = [
    [[], 'no test command: put it after --, as in: grade [options] -- npm test'],
    [['--json'], 'no test command: put it after --, as in: grade [options] -- npm test'],
    [['--'], 'no test command: put it after --, as in: grade [options] -- npm test'],
    [['--', ''], 'no test command: put it after --, as in: grade [options] -- npm test'],
    [['npm', 'test'], '"npm" is not an option: put your test command after --, as in: grade [options] -- npm test'],
    [['-j', '2', '--', 'true'], 'unknown option -j'],
    [['--jbos', '2', '--', 'true'], 'unknown option --jbos; did you mean --jobs?'],
    [['--colour', '--', 'true'], 'unknown option --colour'],
    [['--json', '--json', '--', 'true'], '--json is given twice'],
    [['--json=yes', '--', 'true'], '--json takes no value'],
    [['--timeout', '--', 'true'], '--timeout needs a value: --timeout <seconds>'],
    [['--junit'], '--junit needs a value: --junit <file>'],
    [['--only=', '--', 'true'], '--only needs a value: --only <id,…>'],
    [['--timeout', '0', '--', 'true'], '--timeout must be a number of seconds above 0 and at most 86400, got "0"'],
    [['--timeout', 'soon', '--', 'true'], '--timeout must be a number of seconds above 0 and at most 86400, got "soon"'],
    [['--timeout=86401', '--', 'true'], '--timeout must be a number of seconds above 0 and at most 86400, got "86401"'],
    [['--jobs', '0', '--', 'true'], '--jobs must be a whole number from 1 to 64, got "0"'],
    [['--jobs', '1.5', '--', 'true'], '--jobs must be a whole number from 1 to 64, got "1.5"'],
    [['--jobs', '65', '--', 'true'], '--jobs must be a whole number from 1 to 64, got "65"'],
    [['--min-score', '101', '--', 'true'], '--min-score must be a percentage from 0 to 100, got "101"'],
    [['--min-score', '-5', '--', 'true'], '--min-score must be a percentage from 0 to 100, got "-5"'],
    [['--min-score', 'most', '--', 'true'], '--min-score must be a percentage from 0 to 100, got "most"'],
    [['--only', 'swap-401-403,nope', '--', 'true'], `--only: unknown defect "nope" (the defects are ${ids.join(', ')})`],
    [['--skip', 'nope', '--', 'true'], `--skip: unknown defect "nope" (the defects are ${ids.join(', ')})`],
    [['--only', ' , ', '--', 'true'], '--only needs at least one mutant id'],
    [['--skip', ids.join(','), '--', 'true'], '--skip leaves no mutant to grade (it names them all)'],
    [['--only', 'lost-write', '--skip', 'lost-write', '--', 'true'], '--skip leaves no mutant to grade (with --only)'],
    [['--reporter', 'htlm', '--', 'true'], '--reporter: unknown reporter "htlm" (the reporters are clear-text, json, html, junit); did you mean html?'],
    [['--reporter', 'pdf', '--', 'true'], '--reporter: unknown reporter "pdf" (the reporters are clear-text, json, html, junit)'],
    [['--reporter', ' , ', '--', 'true'], '--reporter needs at least one of clear-text, json, html, junit'],
    [['--json', '--reporter', 'clear-text,html', '--', 'true'], '--json puts its JSON on standard output, where clear-text goes: leave clear-text out of --reporter'],
    [['--min-score', '50', '--thresholds', '80,60,50', '--', 'true'], '--min-score and --thresholds\' break are the same threshold: give one of them'],
    ...['80', '80,60,50,40', '60,80', '80.5,60', '101,60', '80,60,101', '80,60,soon', 'high,low'].map((value): [string[], string] => [['--thresholds', value, '--', 'true'],
      `--thresholds must be high,low or high,low,break: percentages from 0 to 100, high and low whole and high not below low, got ${JSON.stringify(value)}`])
  ]
  for (const [argv, error] of cases) t.same(parseGradeArgs(argv), { error }, argv.join(' '))
  const { code, stdout, stderr } = await graded(['--only', 'nope', '--', 'true'])
  t.equal(code, 2)
  t.equal(stdout, '')
  t.equal(stderr, `grade: --only: unknown defect "nope" (the defects are ${ids.join(', ')})\n(grade --help for the options)\n`)
})

t.test('the options as given: values, lists, and the command kept word for word', async t => {
  t.same(parseGradeArgs(['--json', '--junit=out.xml', '--timeout', '2.5', '--jobs=3', '--only', 'lost-write, swap-401-403', '--min-score', '80%', '--verbose', '--', 'npm', 'test', '--', '--json']), {
    options: {
      command: ['npm', 'test', '--', '--json'],
      // In the catalogue's order, whatever the order given.
      mutants: ['swap-401-403', 'lost-write'],
      // --junit is the junit reporter into its file; --json takes clear-text's place on stdout.
      reporters: ['junit'],
      jsonToStdout: true,
      reportDir: 'reports/mutation',
      junit: 'out.xml',
      timeoutSeconds: 2.5,
      jobs: 3,
      // --min-score is the break threshold.
      thresholds: { high: 80, low: 60, break: 80 },
      incremental: undefined,
      explain: false,
      verbose: true
    }
  })
  t.same(parseGradeArgs(['--skip', 'lost-write', '--', 'make check']), {
    options: {
      command: ['make check'],
      mutants: ids.filter(id => id !== 'lost-write'),
      reporters: ['clear-text'],
      jsonToStdout: false,
      reportDir: 'reports/mutation',
      junit: undefined,
      timeoutSeconds: 60,
      jobs: 1,
      thresholds: { high: 80, low: 60, break: null },
      incremental: undefined,
      explain: false,
      verbose: false
    }
  })
  const reports = parseGradeArgs(['--reporter', 'junit, html,clear-text,json', '--report-dir', 'out', '--thresholds', '90, 70', '--incremental', 'old.json', '--explain', '--', 'true'])
  t.match(reports, { options: { reporters: ['clear-text', 'json', 'html', 'junit'], reportDir: 'out', thresholds: { high: 90, low: 70, break: null }, incremental: 'old.json', explain: true } })
  t.match(parseGradeArgs(['--thresholds', '100,0,12.5', '--', 'true']), { options: { thresholds: { high: 100, low: 0, break: 12.5 } } })
  t.match(parseGradeArgs(['--json', '--reporter', 'json', '--', 'true']), { options: { reporters: ['json'], jsonToStdout: true } })
  t.same(invocation(['make check']), { file: 'sh', args: ['-c', 'make check'], shell: true })
  t.same(invocation(['make', 'check it']), { file: 'make', args: ['check it'], shell: false })
  t.same(invocation(['make']), { file: 'make', args: [], shell: false })
})

t.test('a command that is not found, or cannot be run, is said, exit code 2', async t => {
  const missing = await graded(['--', 'no-such-runner-48', '--all'])
  t.equal(missing.code, 2)
  t.equal(missing.stderr, 'grade: running no-such-runner-48 --all against the correct service\n' +
    'grade: command "no-such-runner-48" not found (is it installed, and on PATH?)\n')
  const shell = await graded(['--', 'no-such-runner-48 --all'])
  t.equal(shell.code, 2)
  t.match(shell.stderr, /grade: the shell found no such command in "no-such-runner-48 --all" \(sh exit code 127\)\nThe end of its output:\n {2}\| .*no-such-runner-48.*not found\n$/)
  const notExecutable = await graded(['--', join(suites, 'weak/api.test.mjs')])
  t.equal(notExecutable.code, 2)
  t.match(notExecutable.stderr, /grade: command ".*weak\/api\.test\.mjs" could not be started \(EACCES\)\n$/)
})

t.test('a suite that fails against the correct service grades nothing, and says how it failed', async t => {
  const wrong = 'code=$(curl -s -o /dev/null -w "%{http_code}" -X POST "$API_BASE_URL/challenger"); echo "POST /challenger: $code, expected 200"; test "$code" = 200'
  const failed = await graded(['--junit', 'never.xml', '--', wrong])
  t.equal(failed.code, 2)
  t.equal(failed.stdout, '')
  t.match(failed.stderr, /^grade: running .* against the correct service\ngrade: your suite fails against the correct service \(exit code 1\), so it grades nothing: a suite must pass on a correct service before its failures can point at a bug\. Fix the suite \(or what it assumes\), then grade it again\.\nThe end of its output:\n {2}\| POST \/challenger: 201, expected 200\n$/)
  const silent = await graded(['--', 'false'])
  t.equal(silent.code, 2)
  t.match(silent.stderr, /grade: your suite fails against the correct service \(exit code 1\), so it grades nothing: .*again\.\n$/)
  const signalled = await graded(['--', 'kill -TERM $$'])
  t.match(signalled.stderr, /grade: your suite fails against the correct service \(ended by SIGTERM\)/)
  const idle = await graded(['--', 'true'])
  t.equal(idle.code, 2)
  t.match(idle.stderr, /grade: your suite passed without sending a single request to the service, so it grades nothing: does it read the service's address from API_BASE_URL \(or BASE_URL\)\?\n$/)
  const slow = await graded(['--timeout', '0.5', '--', 'sleep 30'])
  t.equal(slow.code, 2)
  t.match(slow.stderr, /grade: your suite took longer than --timeout 0\.5 s against the correct service, and was stopped: raise --timeout, or see what it waits for \(--verbose shows its output\)\n$/)
})

t.test('--junit into a folder that is not there is refused before anything runs', async t => {
  const { code, stderr } = await graded(['--junit', 'no/such/folder/grade.xml', '--', 'true'])
  t.equal(code, 2)
  t.equal(stderr, `grade: --junit no/such/folder/grade.xml: there is no folder ${join(root, 'no/such/folder')} to write it in\n`)
})

// A shell suite that passes on the correct service, hangs when GET /heartbeat is not 204, ends
// itself by SIGTERM when PATCH /heartbeat is not 500, and passes otherwise. It notes each process it
// leaves waiting in $PIDS.
const odd = [
  'hb=$(curl -s -o /dev/null -w "%{http_code}" "$API_BASE_URL/heartbeat")',
  'patch=$(curl -s -o /dev/null -w "%{http_code}" -X PATCH "$API_BASE_URL/heartbeat")',
  'echo "heartbeat $hb, patch $patch"',
  'if [ "$hb" != 204 ]; then sleep 30 & echo $! >> "$PIDS"; echo waiting; wait; fi',
  'if [ "$patch" != 500 ]; then kill -TERM $$; fi'
].join('; ')

t.test('a run past --timeout is stopped with what it started, said on its line, detected (Timeout); the others carry on', async t => {
  const dir = tempDir(t)
  const pids = join(dir, 'pids')
  const junit = join(dir, 'grade.xml')
  const chosen = ['heartbeat-200', 'patch-heartbeat-405', 'note-write-201']
  const { code, stdout, stderr } = await graded(['--only', chosen.join(','), '--timeout', '3', '--jobs', '2', '--junit', junit, '--', odd], { ...leanEnv, PIDS: pids })
  t.equal(code, 0)
  // A mutant missed is named by its place, family and endpoint: its id would say what is wrong.
  const selected = defects.filter(d => chosen.includes(d.id))
  const write = defects.find(d => d.id === 'note-write-201') as Defect
  const heartbeat = defects.find(d => d.id === 'heartbeat-200') as Defect
  const patch = `patch-heartbeat-405: ${defects.find(d => d.id === 'patch-heartbeat-405')?.name}`
  const label = `mutant ${selected.indexOf(write) + 1} (${write.family}, ${write.endpoint})`
  const progress = stderr.split('\n').filter(line => /^grade: \[\d\/3\]/.test(line)).map(line => line.replace(/^grade: \[\d\/3\] /, '').replace(/\d+\.\d s\)/, 'n s)')).sort()
  t.same(progress, [
    'heartbeat-200        timed out after 3 s (detected)',
    `${label} not covered (exit code 0, n s)`,
    'patch-heartbeat-405  caught (ended by SIGTERM, n s)'
  ].sort())
  t.match(stderr, /grade: passed against the correct service \(\d+\.\d s, 2 requests\); now 3 mutants, 2 at a time, each run at most 3 s\n/)
  t.match(stderr, `grade: wrote the JUnit report to ${junit}\n`)
  const left = readFileSync(pids, 'utf8').trim().split('\n').map(Number)
  t.equal(left.length, 1)
  t.ok(gone(left[0] as number), 'the timed-out run\'s sleep was killed with it')
  t.match(stdout, /^Mutation score 66\.66%: 2 of 3 mutants detected \(killed 1, timed out 1; survived 0, not covered 1\)\n/)
  t.match(stdout, '\n  heartbeat-200 (timed out): by your 1st request, GET /heartbeat (answered 200 where the correct service said 204)\n')
  t.match(stdout, '\n  patch-heartbeat-405: by your 2nd request, PATCH /heartbeat (answered 405 where the correct service said 500)\n')
  t.match(stdout, `\nNot covered (1): your suite never sent a request that could meet these.\n  ${label}, severity ${write.severity}\n    never sent: ${write.untried}; `)
  t.notMatch(stdout, write.check, 'no exact check without --explain')
  const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(junit, 'utf8'))
  t.same([xml.testsuites.name, xml.testsuites.tests, xml.testsuites.failures, xml.testsuites.errors], ['grade', '3', '1', '0'])
  const cases = xml.testsuites.testsuite.testcase as Array<Record<string, unknown>>
  t.equal(xml.testsuites.testsuite.name, 'api-challenges-fastify grade: detected 2 of 3')
  const byName = new Map(cases.map(c => [c.name, c]))
  t.same(cases.map(c => c.name).sort(), [`heartbeat-200: ${heartbeat.name}`, patch, label].sort())
  t.same(byName.get(label)?.failure, { type: 'NoCoverage', message: `never sent: ${write.untried}; no request of the suite met this mutant, so it could not be caught`, '#text': `hint (status): ${FAMILY_HINTS.status}` })
  t.equal(byName.get(label)?.classname, 'mutants.status')
  t.equal(byName.get(patch)?.['system-out'], 'caught by your 2nd request, PATCH /heartbeat (answered 405 where the correct service said 500); the suite failed (ended by SIGTERM)')
})

t.test('--json: the score, the baseline and each mutant with its state and what caught it; --min-score sets the exit code', async t => {
  const { code, stdout, stderr } = await graded(['--json', '--jobs', '2', '--only', 'swap-401-403,foreign-token', '--min-score', '50', '--', ...weak])
  t.equal(code, 0)
  t.match(stderr, /grade: \[1\/2\]/)
  const result = JSON.parse(stdout) as GradeResult
  const mutant = (id: string) => defects.find(d => d.id === id) as Defect
  t.same({ ...result, baseline: { ...result.baseline, seconds: 0 }, mutants: result.mutants.map(m => ({ ...m, seconds: 0 })) }, {
    command: weak,
    // The weak suite's seven requests.
    baseline: { seconds: 0, requests: 7 },
    timeoutSeconds: 60,
    caught: 1,
    total: 2,
    score: 50,
    minScore: 50,
    thresholds: { high: 80, low: 60, break: 50 },
    passed: true,
    mutants: [{
      id: 'swap-401-403',
      name: mutant('swap-401-403').name,
      outcome: 'killed',
      status: 'Killed',
      family: 'status',
      endpoint: mutant('swap-401-403').endpoint,
      exitCode: 1,
      signal: null,
      seconds: 0,
      requests: 7,
      caughtBy: 'your 6th request, GET /secret/note with no token (answered 403 where the correct service said 401)',
      reason: 'caught by your 6th request, GET /secret/note with no token (answered 403 where the correct service said 401); the suite failed (exit code 1)',
      breaks: mutant('swap-401-403').breaks,
      check: mutant('swap-401-403').check
    }, {
      id: 'foreign-token',
      name: mutant('foreign-token').name,
      // The weak suite has one session: it never sends another's token.
      outcome: 'survived',
      status: 'NoCoverage',
      family: 'auth',
      endpoint: mutant('foreign-token').endpoint,
      exitCode: 0,
      signal: null,
      seconds: 0,
      requests: 7,
      caughtBy: null,
      // Missed, without --explain: no answer to copy.
      reason: `never sent: ${mutant('foreign-token').untried}; no request of the suite met this mutant, so it could not be caught`
    }]
  })
  const explained = JSON.parse((await graded(['--json', '--explain', '--only', 'foreign-token', '--', heartbeat])).stdout) as GradeResult
  t.match(explained.mutants, [{ id: 'foreign-token', status: 'NoCoverage', breaks: mutant('foreign-token').breaks, check: mutant('foreign-token').check }], 'with --explain, a mutant missed says what is wrong and the check')
  const below = await graded(['--only', 'foreign-token,heartbeat-200', '--min-score', '50.5', '--', heartbeat])
  t.equal(below.code, 1)
  t.match(below.stdout, /^Mutation score 50\.00%: 1 of 2 mutants detected[^]*\n\nBelow the break threshold 50\.5%: exit code 1\.\n$/)
  const broken = await graded(['--only', 'foreign-token,heartbeat-200', '--thresholds', '50,40,51', '--', heartbeat])
  t.equal(broken.code, 1)
  t.match(broken.stdout, /^Mutation score 50\.00%[^]*\nThresholds high 50, low 40, break 51: the score is at or above high \(50\): good\.\n[^]*\n\nBelow the break threshold 51%: exit code 1\.\n$/)
})

t.test('one mutant, caught: the summary says so; --verbose shows the suite\'s output; a report that cannot be written is said', async t => {
  const dir = tempDir(t)
  const { code, stdout, stderr } = await graded(['--verbose', '--only', 'heartbeat-200', '--junit', dir, '--', heartbeat])
  t.equal(code, 2)
  t.match(stdout, 'Mutation score 100.00%: 1 of 1 mutant detected (killed 1, timed out 0; survived 0, not covered 0)\n' +
    'Thresholds high 80, low 60, break none: the score is at or above high (80): good.\n\n' +
    'Caught (1): the first answer each mutant gave otherwise than the correct service.\n' +
    '  heartbeat-200: by your 1st request, GET /heartbeat (answered 200 where the correct service said 204)\n\n' +
    'Every mutant was detected: your suite would notice each of these bugs.\n\n' +
    'API coverage: your suite\'s 1 request against the correct service, by the API\'s document: 1 of ')
  // Every documented operation is a row: the one sent, and those never sent.
  t.match(stdout, /\n {2}\/heartbeat +GET +204 +503\n/)
  t.match(stdout, /\n {2}\/secret\/note +GET +never sent +200, 401, 403\n/)
  t.match(stderr, /grade: ── the correct service at http:\/\/127\.0\.0\.1:\d+ ──\nheartbeat: 204\n/)
  t.match(stderr, /grade: ── heartbeat-200 at http:\/\/127\.0\.0\.1:\d+ ──\nheartbeat: 200\n/)
  t.match(stderr, /now 1 mutant, 1 at a time/)
  t.match(stderr, new RegExp(`grade: could not write the JUnit report to ${dir}: EISDIR`))
})

t.test('SIGINT or SIGTERM stops the runs under way, with what they started, and grades nothing', async t => {
  const dir = tempDir(t)
  const pids = join(dir, 'pids')
  // Against the correct service: the suite waits, and the signal comes once it says so.
  const waiting = 'sleep 30 & echo $! >> "$PIDS"; echo waiting; wait'
  const signal = (name: string) => (text: string) => { if (/^waiting$/m.test(text)) process.emit(name as NodeJS.Signals, name as NodeJS.Signals) }
  const first = await graded(['--verbose', '--', waiting], { ...leanEnv, PIDS: pids }, signal('SIGINT'))
  t.equal(first.code, 130)
  t.match(first.stderr, /grade: stopped by SIGINT: the runs under way were ended, nothing is graded\n$/)
  // Against a mutant: the odd suite waits on heartbeat-200.
  const second = await graded(['--verbose', '--only', 'heartbeat-200', '--', odd], { ...leanEnv, PIDS: pids }, signal('SIGTERM'))
  t.equal(second.code, 143)
  t.match(second.stderr, /passed against the correct service[^]*grade: stopped by SIGTERM: the runs under way were ended, nothing is graded\n$/)
  t.equal(second.stdout, '')
  const left = readFileSync(pids, 'utf8').trim().split('\n').map(Number)
  t.equal(left.length, 2)
  // The group's SIGKILL ends each sleep; a dying process closes its output (which ends the run) before the
  // kernel makes it a zombie, and under load /proc was read between the two (issue 58): wait for that last step.
  await until('each run\'s sleep gone', () => left.every(gone))
  t.ok(left.every(gone), 'each run\'s sleep was killed with it')
  t.same(process.listeners('SIGINT').filter(listener => listener.name === 'onSignal'), [], 'grade\'s own listeners are gone')
})

t.test('a run: the end of its output is kept, and what it leaves holding its output does not hold the run', async t => {
  const controller = new AbortController()
  const options = { env: leanEnv, cwd: root, timeoutMs: 30_000, signal: controller.signal }
  const long = await runCommand(['seq', '1', '100'], options)
  t.same([long.exitCode, long.tail], [0, Array.from({ length: 25 }, (_, i) => String(76 + i)).join('\n')])
  t.equal((await runCommand(['printf', 'no newline'], options)).tail, 'no newline')
  // setsid: a process of another group, which the run's own group kill does not reach.
  // It is in its own session once it has said so through the FIFO; then the run ends.
  const fifo = join(tempDir(t), 'fifo')
  execFileSync('mkfifo', [fifo])
  const held = await runCommand(['setsid sh -c \'echo ready > "$FIFO"; exec sleep 30\' & read -r ready < "$FIFO"; echo $!'], { ...options, env: { ...leanEnv, FIFO: fifo } })
  t.teardown(() => { process.kill(Number(held.tail), 'SIGKILL') })
  t.same([held.exitCode, held.timedOut], [0, false])
  t.match(held.tail, /^\d+$/)
})

t.test('the process: api-challenges-fastify grade, as npx runs it, with its exit code', async t => {
  const child = spawn(process.execPath, [...process.execArgv, serverFile, 'grade', '--json', '--only', 'heartbeat-200', '--', heartbeat], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  const [code] = await once(child, 'close')
  t.equal(code, 0)
  const result = JSON.parse(stdout) as GradeResult
  t.same([result.caught, result.total, result.mutants[0]?.outcome, result.mutants[0]?.status], [1, 1, 'killed', 'Killed'])
})

t.test('grade --help into a pipe closed early (| head -1) ends without a stack trace', async t => {
  const child = spawn(process.execPath, [...process.execArgv, serverFile, 'grade', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  // The reader goes away before the text is all written.
  child.stdout.destroy()
  const [code] = await once(child, 'close')
  t.equal(code, 0)
  t.notMatch(stderr, /EPIPE|Error/)
})

t.test('ignoreClosedPipe: a reader gone early (EPIPE) is no error; any other error of standard output is', async t => {
  t.doesNotThrow(() => { ignoreClosedPipe(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })) })
  t.throws(() => { ignoreClosedPipe(Object.assign(new Error('write EIO'), { code: 'EIO' })) }, { code: 'EIO' })
})
