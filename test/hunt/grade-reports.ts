// grade's reports: what each request was (requests.ts), what caught each mutant or that nothing met
// it (caught.ts), the mutation-testing-report-schema JSON validated against the schema the package
// ships, the HTML, --incremental, and the clear-text's hints. A few real runs of a small shell
// suite (test/fixtures/grade/statuses.sh); the rest on gradings made here.
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import type { MutationTestResult } from 'mutation-testing-report-schema/api'
import t, { type Test } from 'tap'
import { defects, type Defect } from '../../src/domain/defects/catalogue.js'
import { caughtText, firstDifference, mutantResult, type MutantRun } from '../../src/grade/caught.js'
import { earlierResults, MAX_REPORT_BYTES, readEarlier } from '../../src/grade/incremental.js'
import { DEFAULT_THRESHOLDS, FAMILY_HINTS, gradeResult, type Grading, type MutantResult, type Status } from '../../src/grade/report.js'
import { clearTextReport, progressText } from '../../src/grade/reporters/clear-text.js'
import { gradeJson } from '../../src/grade/reporters/grade-json.js'
import { htmlReport } from '../../src/grade/reporters/html.js'
import { junitReport } from '../../src/grade/reporters/junit.js'
import { schemaReport } from '../../src/grade/reporters/schema.js'
import { ordinal, recordRequests, requestText, type SentRequest } from '../../src/grade/requests.js'
import Fastify from 'fastify'
import { createServer } from '../../src/server.js'
import { contractOf, coverageRows, coverageSummary, operationsOf, statusesText } from '../../src/grade/coverage.js'
import { graded } from '../grade-helper.js'

const suite = 'sh test/fixtures/grade/statuses.sh'
const defect = (id: string): Defect => defects.find(d => d.id === id) as Defect

function tempDir (t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'grade-reports-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  return dir
}

const schema = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('mutation-testing-report-schema/mutation-testing-report-schema.json'), 'utf8')) as object
const ajv = new Ajv({ allErrors: true, strict: false })
addFormats.default(ajv)
const validate = ajv.compile(schema)

const sent = (method: string, path: string, status: number, defect: string | null = null, route: string | null = path): SentRequest => ({ method, path, route, status, with: [], defect })

t.test('ordinals, and a request in words', async t => {
  t.same([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112].map(ordinal), ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '23rd', '101st', '111th', '112th'])
  t.equal(requestText({ ...sent('GET', '/secret/note', 403), with: ['with a wrong token (X-AUTH-TOKEN)', 'asking for application/xml'] }), 'GET /secret/note with a wrong token (X-AUTH-TOKEN), asking for application/xml')
  t.equal(requestText(sent('GET', '/heartbeat', 204)), 'GET /heartbeat')
})

t.test('what caught a mutant: the first request answered otherwise than the correct service, by place', async t => {
  const baseline = [sent('POST', '/challenger', 201), sent('GET', '/secret/note', 401), sent('GET', '/secret/note', 403)]
  t.equal(firstDifference(baseline, baseline), undefined)
  const swapped = [baseline[0] as SentRequest, sent('GET', '/secret/note', 403, 'swap'), sent('GET', '/secret/note', 401, 'swap')]
  const caught = firstDifference(baseline, swapped)
  t.same(caught, { position: 2, request: 'GET /secret/note', status: 403, correctStatus: 401 })
  t.equal(caughtText(caught as NonNullable<typeof caught>), 'your 2nd request, GET /secret/note (answered 403 where the correct service said 401)')
  // A header changed: the status is the same, the answer is not.
  const same = firstDifference(baseline, [sent('POST', '/challenger', 201, 'echo')])
  t.equal(caughtText(same as NonNullable<typeof same>), 'your 1st request, POST /challenger (answered 201, as the correct service did, but not the same answer)')
  // A status differs with no defect met (the suite went another way after an earlier answer).
  t.same(firstDifference(baseline, [baseline[0] as SentRequest, sent('GET', '/secret/note', 200)]), { position: 2, request: 'GET /secret/note', status: 200, correctStatus: 401 })
  const longer = firstDifference(baseline, [...baseline, sent('GET', '/heartbeat', 204)])
  t.equal(caughtText(longer as NonNullable<typeof longer>), 'your 4th request, GET /heartbeat (answered 204; the correct service\'s run sent no 4th request)')
})

t.test('a mutant\'s state from its run: Killed, Timeout, Survived, NoCoverage, RuntimeError', async t => {
  const baseline = [sent('GET', '/secret/note', 401)]
  const run: Omit<MutantRun, 'sent'> = { exitCode: 0, signal: null, timedOut: false, startError: undefined, shell: false, seconds: 1.23456, tail: '' }
  const d = defect('swap-401-403')
  const state = (over: Partial<MutantRun>) => mutantResult(d, { ...run, sent: [sent('GET', '/secret/note', 403, d.id)], ...over } as Parameters<typeof mutantResult>[1], baseline)
  t.match(state({ exitCode: 1 }), { status: 'Killed', seconds: 1.235, metAt: [1], caughtBy: { position: 1 }, reason: 'caught by your 1st request, GET /secret/note (answered 403 where the correct service said 401); the suite failed (exit code 1)' })
  t.match(state({ exitCode: null, signal: 'SIGKILL', timedOut: true }), { status: 'Timeout', reason: /; the suite ran past --timeout and was stopped$/ })
  t.match(state({ exitCode: 1, sent: [sent('GET', '/secret/note', 401)] }), { status: 'Killed', caughtBy: undefined, reason: 'the suite failed (exit code 1), though no answer differed from the correct service\'s (a suite that fails by chance?)' })
  t.match(state({}), { status: 'Survived', reason: 'met by your 1st request, yet the suite passed' })
  t.match(state({ sent: [sent('GET', '/secret/note', 403, d.id), sent('GET', '/secret/note', 403, d.id)] }), { status: 'Survived', metAt: [1, 2], reason: 'met by your 1st request and 1 more, yet the suite passed' })
  t.match(state({ sent: [sent('GET', '/heartbeat', 204)] }), { status: 'NoCoverage', metAt: [], reason: `never sent: ${d.untried}; no request of the suite met this mutant, so it could not be caught` })
  t.match(state({ exitCode: null, startError: Object.assign(new Error('spawn EMFILE'), { code: 'EMFILE' }) }), { status: 'RuntimeError', reason: 'the command could not be started (EMFILE)' })
  t.match(state({ exitCode: null, startError: new Error('odd') }), { status: 'RuntimeError', reason: 'the command could not be started (error)' })
})

t.test('the API\'s documented operations: from its OpenAPI document, anything odd in it passed over; the /api base and :params as the document writes them', async t => {
  t.same(operationsOf(null), [])
  t.same(operationsOf({ paths: [] }), [])
  t.same(operationsOf({ paths: { '/a': { parameters: [], get: { responses: { 200: {}, default: {}, '4XX': {} } }, post: {}, put: null }, '/b': 3 } }), [
    { path: '/a', method: 'GET', statuses: [200] },
    { path: '/a', method: 'POST', statuses: [] },
    { path: '/a', method: 'PUT', statuses: [] }
  ])
  const contract = [{ path: '/challenger/{guid}', method: 'GET', statuses: [200, 404] }]
  const rows = coverageRows([sent('GET', '/api/challenger/x', 200, null, '/api/challenger/:guid'), sent('GET', '/challenger/y', 404, null, '/challenger/:guid'), sent('HEAD', '/api/x', 200, null, '/api/x')], contract)
  t.same(rows.map(row => [row.path, row.method, statusesText(row.seen), row.unseen, row.documented]), [
    ['/challenger/{guid}', 'GET', '200, 404', [], true],
    ['/api/x', 'HEAD', '200', [], false]
  ])
  t.equal(coverageSummary(rows), '1 of 1 documented operations sent; 2 of their 2 documented statuses answered')
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: {} })
  t.teardown(() => app.close())
  t.match(await contractOf(app), [{ path: '/heartbeat', method: 'GET', statuses: [204, 503] }])
  const bare = Fastify()
  t.teardown(() => bare.close())
  t.same(await contractOf(bare), [], 'a service without a document: none')
})

t.test('each request kept in order, with the headers that decided its answer as kinds; the product\'s requests by inject are not', async t => {
  // foreign-token rewrites the token it is sent, at once: what was sent is kept as it came.
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { creationRateLimit: 0, basicGuessLimit: 0, defects: ['swap-401-403', 'foreign-token'] } })
  const kept = recordRequests(app)
  t.teardown(() => app.close())
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const guid = (await fetch(`${base}/challenger`, { method: 'POST' })).headers.get('x-challenger') as string
  const basic = `Basic ${btoa('admin:password')}`
  const token = (await fetch(`${base}/secret/token`, { method: 'POST', headers: { 'x-challenger': guid, authorization: basic } })).headers.get('x-auth-token') as string
  const asked: Array<[string, string, Record<string, string>, string?]> = [
    ['POST', '/secret/token', { 'x-challenger': guid }],
    ['POST', '/secret/token', { 'x-challenger': guid, authorization: 'Basic d3Jvbmc6d3Jvbmc=' }],
    ['POST', '/secret/token', { 'x-challenger': guid, authorization: 'Digest x' }],
    ['GET', '/secret/note', {}],
    ['GET', '/secret/note', { 'x-challenger': '00000000-0000-4000-8000-000000000000', 'x-auth-token': token }],
    ['GET', '/secret/note', { 'x-challenger': guid, authorization: `Bearer ${token}` }],
    ['GET', '/secret/note', { 'x-challenger': guid, 'x-auth-token': 'f'.repeat(32), accept: 'application/xml' }],
    ['POST', '/secret/note', { 'x-challenger': guid, 'x-auth-token': token, 'content-type': 'application/json; charset=utf-8' }, '{"note":"hi"}'],
    ['POST', '/secret/note', { 'x-challenger': guid, 'x-auth-token': token }, 'x'],
    ['POST', '/heartbeat', { 'x-http-method-override': 'P'.repeat(50), accept: '*/*' }],
    ['GET', '/no/such/path?q=1', {}]
  ]
  for (const [method, path, headers, body] of asked) {
    const answer = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : body === 'x' ? new Blob(['x']) : body })
    await answer.arrayBuffer()
  }
  await app.inject({ method: 'GET', url: '/heartbeat' })
  t.same(kept.map(r => [r.method, r.path, r.route, r.status, r.with.join(', '), r.defect]), [
    ['POST', '/challenger', '/challenger', 201, '', null],
    ['POST', '/secret/token', '/secret/token', 201, 'with the right Basic credentials', null],
    ['POST', '/secret/token', '/secret/token', 401, 'with no credentials', null],
    ['POST', '/secret/token', '/secret/token', 401, 'with wrong Basic credentials', null],
    ['POST', '/secret/token', '/secret/token', 401, 'with an Authorization that is not Basic', null],
    ['GET', '/secret/note', '/secret/note', 403, 'without X-CHALLENGER, with no token', 'swap-401-403'],
    ['GET', '/secret/note', '/secret/note', 403, 'with an X-CHALLENGER that names no live session, with a wrong token (X-AUTH-TOKEN)', 'swap-401-403'],
    ['GET', '/secret/note', '/secret/note', 200, 'with the session\'s token (Authorization: Bearer)', null],
    ['GET', '/secret/note', '/secret/note', 200, 'with a wrong token (X-AUTH-TOKEN), asking for application/xml', 'foreign-token'],
    ['POST', '/secret/note', '/secret/note', 200, 'with the session\'s token (X-AUTH-TOKEN), with a body of Content-Type application/json', null],
    ['POST', '/secret/note', '/secret/note', 400, 'with the session\'s token (X-AUTH-TOKEN), with a body and no Content-Type', null],
    ['POST', '/heartbeat', '/heartbeat', 405, `with X-HTTP-Method-Override: ${'P'.repeat(40)}…`, null],
    ['GET', '/no/such/path', null, 404, '', null]
  ])
})

/** A grading of every mutant of the catalogue, their states in turn, made here (no run). */
function madeGrading (explain: boolean): Grading {
  const statuses: Status[] = ['Killed', 'Timeout', 'Survived', 'NoCoverage', 'RuntimeError']
  const baseline = [sent('POST', '/challenger', 201), sent('GET', '/secret/note', 401), sent('GET', '/secret/note', 403), sent('GET', '/nope', 404, null, null), sent('GET', '/nope', 404, null, null)]
  const mutants = defects.map((d, i): MutantResult => {
    const status = statuses[i % statuses.length] as Status
    const run = { exitCode: status === 'Killed' ? 1 : 0, signal: null, timedOut: status === 'Timeout', startError: status === 'RuntimeError' ? Object.assign(new Error('x'), { code: 'EMFILE' }) : undefined, shell: false, seconds: 0.5, tail: '' }
    // The killer is the 2nd request, or (every fourth) the 9th, past the baseline's: no test of the report names it.
    const hit = status === 'NoCoverage' ? [] : i % 4 === 0 ? [sent('GET', '/heartbeat', 200, d.id)] : []
    const runSent = i % 4 === 0 && status !== 'NoCoverage' ? [...baseline, ...Array.from({ length: 4 }, () => sent('GET', '/heartbeat', 204)), ...hit] : [baseline[0] as SentRequest, sent('GET', '/secret/note', 403, status === 'NoCoverage' ? null : d.id)]
    return mutantResult(d, { ...run, sent: runSent }, baseline)
  })
  const contract = [
    { path: '/challenger', method: 'POST', statuses: [201, 400] },
    { path: '/secret/note', method: 'GET', statuses: [200, 401, 403] },
    { path: '/heartbeat', method: 'DELETE', statuses: [405] }
  ]
  return gradeResult({ command: ['sh', 'suite <sh>'], baseline: { seconds: 1, requests: baseline, contract }, timeoutSeconds: 60, thresholds: DEFAULT_THRESHOLDS, mutants, explain })
}

t.test('the schema report validates against mutation-testing-report-schema\'s JSON schema, every mutant at its line of its family\'s file', async t => {
  for (const explain of [false, true]) {
    const grading = madeGrading(explain)
    const report = schemaReport(grading)
    t.ok(validate(report), JSON.stringify(validate.errors))
    t.equal(report.schemaVersion, '2')
    t.same(report.thresholds, { high: 80, low: 60 })
    const mutants = Object.values(report.files).flatMap(file => file.mutants)
    t.same(mutants.map(m => m.id).sort(), defects.map(d => d.id).sort())
    const tests = new Set(Object.values(report.testFiles ?? {}).flatMap(file => file.tests.map(test => test.id)))
    t.equal(tests.size, grading.baseline.requests.length)
    for (const [name, file] of Object.entries(report.files)) {
      const lines = file.source.split('\n')
      for (const m of file.mutants) {
        const d = defect(m.id)
        t.equal(name, `${d.family}.http`)
        t.equal(m.mutatorName, d.family)
        t.equal(lines[m.location.start.line - 1], `${d.endpoint}: ${d.untried}`, `${m.id}'s line`)
        for (const id of [...m.killedBy ?? [], ...m.coveredBy ?? []]) t.ok(tests.has(id), `${m.id} names test ${id}`)
        t.equal(m.description?.includes(d.check), explain, `${m.id}: the check only with --explain`)
      }
    }
    const config = report.config as { mutantHashes: Record<string, string>, break: null }
    t.same(Object.keys(config.mutantHashes).sort(), defects.map(d => d.id).sort())
    t.equal(config.break, null)
  }
  const killed = Object.values(schemaReport(madeGrading(false)).files).flatMap(file => file.mutants).find(m => m.status === 'Killed' && m.killedBy !== undefined)
  t.same(killed?.killedBy, ['request-2'])
  const survived = Object.values(schemaReport(madeGrading(false)).files).flatMap(file => file.mutants).find(m => m.status === 'Survived')
  t.match(survived?.statusReason, new RegExp(`\\. Hint \\(${survived?.mutatorName}\\): `))
})

t.test('clear-text, junit and --json of every state; a grading where nothing could run scores 0', async t => {
  const grading = madeGrading(false)
  const text = clearTextReport(grading)
  t.match(text, /^Mutation score \d+\.\d\d%: \d+ of \d+ mutants detected \(killed \d+, timed out \d+; survived \d+, not covered \d+; \d+ could not run and do not count\)\n/)
  t.match(text, '\nCould not run (')
  t.match(text, '\nAPI coverage: your suite\'s 5 requests against the correct service, by the API\'s document: 2 of 3 documented operations sent; 3 of their 6 documented statuses answered.\n' +
    '  path                   method  answered    documented, never answered\n' +
    '  /challenger            POST    201         400\n' +
    '  /secret/note           GET     401, 403    200\n' +
    '  /heartbeat             DELETE  never sent  405\n' +
    '  /nope (no such route)  GET     404 ×2      (not in the API\'s document)\n')
  t.match(htmlReport(grading), '<tr><td><code>/nope (no such route)</code></td><td>GET</td><td>404 ×2</td><td>(not in the API&#39;s document)</td></tr>')
  t.match(htmlReport(grading), '<tr class="unsent"><td><code>/heartbeat</code></td><td>DELETE</td><td>never sent</td><td>405</td></tr>')
  // A suite that failed though no answer differed.
  const flaky = mutantResult(defects[0] as Defect, { exitCode: 1, signal: null, timedOut: false, startError: undefined, shell: false, seconds: 1, tail: '', sent: grading.baseline.requests }, grading.baseline.requests)
  t.match(clearTextReport(gradeResult({ ...grading, mutants: [flaky] })), `\n  ${flaky.id}: the suite failed (exit code 1), though no answer differed from the correct service's (a suite that fails by chance?)\n`)
  const lines: Record<Status, string> = {
    Killed: 'caught (exit code 1, 0.5 s)',
    Timeout: 'timed out after 60 s (detected)',
    Survived: 'survived (exit code 0, 0.5 s)',
    NoCoverage: 'not covered (exit code 0, 0.5 s)',
    RuntimeError: 'could not run (the command could not be started (EMFILE))'
  }
  for (const m of grading.mutants) t.equal(progressText(m, 60), lines[m.status], m.status)
  for (const d of defects) t.notMatch(text, d.check, `${d.id}: no exact check without --explain`)
  const explained = clearTextReport(madeGrading(true))
  const survivor = madeGrading(true).mutants.find(m => m.status === 'Survived') as MutantResult
  t.match(explained, `\n  ${survivor.id}: ${survivor.name}\n    ${survivor.reason}\n    hint (${survivor.family}): ${FAMILY_HINTS[survivor.family]}\n    wrong: ${survivor.breaks}\n    check: ${survivor.check}\n`)
  t.notMatch(explained, 'Each is named by its family and endpoint only')
  const junit = junitReport(grading)
  t.match(junit, '<error type="RuntimeError" message="the command could not be started (EMFILE)"/>')
  t.match(junitReport(madeGrading(true)), `wrong: ${survivor.breaks.replace(/'/g, '&apos;')}`)
  const json = JSON.parse(gradeJson(grading)) as { mutants: Array<{ outcome: string, status: string }> }
  const outcomes: Record<string, string> = { Killed: 'killed', Timeout: 'timed-out', Survived: 'survived', NoCoverage: 'survived', RuntimeError: 'error' }
  for (const m of json.mutants) t.equal(m.outcome, outcomes[m.status], m.status)
  const none = gradeResult({ ...grading, mutants: grading.mutants.filter(m => m.status === 'RuntimeError') })
  t.same([none.valid, none.score, none.passed], [0, 0, true])
  t.match(clearTextReport(none), /^Mutation score 0\.00%: 0 of 0 mutants detected/)
})

t.test('the HTML: one file with the component\'s bundle and the report inlined, a row per mutant, the exact check behind a click', async t => {
  const grading = madeGrading(false)
  const html = htmlReport(grading)
  t.match(html, /^<!DOCTYPE html>\n/)
  t.notMatch(html, /<script[^>]+src=|<link[^>]+href=/, 'nothing loaded from elsewhere')
  t.equal(html.match(/<\/script>/g)?.length, 2, 'the bundle and the report, each closed once')
  t.equal(html.match(/<tr data-mutant=/g)?.length, defects.length)
  t.match(html, 'sh suite &#60;sh&#62;', 'the command escaped')
  const report = html.slice(html.lastIndexOf('.report = ') + 10, html.lastIndexOf('</script>'))
  t.notMatch(report, '<', 'the report\'s JSON holds no <')
  t.same((JSON.parse(report) as MutationTestResult).testFiles?.['your suite']?.source, 'sh suite <sh>\n')
  for (const d of defects) t.match(html, `<details><summary>what is wrong, and the check</summary><p><b>${d.id}</b>: `)
})

t.test('a real grading: every reporter at once, files named on stderr; then --incremental reuses the killed and runs the rest', async t => {
  const dir = tempDir(t)
  const chosen = ['swap-401-403', 'foreign-token', 'no-challenger-echo']
  const first = await graded(['--reporter', 'clear-text,json,html,junit', '--report-dir', join(dir, 'out'), '--only', chosen.join(','), '--', suite])
  t.equal(first.code, 0)
  const json = join(dir, 'out/mutation.json')
  t.match(first.stderr, `grade: wrote the JSON report (mutation-testing-report-schema) to ${json}\ngrade: wrote the HTML report to ${join(dir, 'out/mutation.html')}\ngrade: wrote the JUnit report to ${join(dir, 'out/junit.xml')}\n`)
  t.match(first.stdout, /^Mutation score 33\.33%: 1 of 3 mutants detected \(killed 1, timed out 0; survived 1, not covered 1\)\n/)
  t.match(first.stdout, '\n  swap-401-403: by your 2nd request, GET /secret/note with no token (answered 403 where the correct service said 401)\n')
  const report = JSON.parse(readFileSync(json, 'utf8')) as MutationTestResult
  t.ok(validate(report), JSON.stringify(validate.errors))
  const states = Object.fromEntries(Object.values(report.files).flatMap(file => file.mutants).map(m => [m.id, m.status]))
  t.same(states, { 'swap-401-403': 'Killed', 'foreign-token': 'NoCoverage', 'no-challenger-echo': 'Survived' })
  t.same(report.testFiles?.['your suite']?.tests.map(test => test.name), [
    '1st request: POST /challenger → 201',
    '2nd request: GET /secret/note with no token → 401',
    '3rd request: POST /secret/token with the right Basic credentials → 201',
    '4th request: GET /secret/note with the session\'s token (X-AUTH-TOKEN) → 200'
  ])
  t.match(readFileSync(join(dir, 'out/mutation.html'), 'utf8'), '<tr data-mutant="swap-401-403">')

  const second = await graded(['--reporter', 'json', '--report-dir', join(dir, 'out'), '--incremental', json, '--only', chosen.join(','), '--', suite])
  t.equal(second.code, 0)
  t.match(second.stderr, `now 2 mutants, 1 at a time, each run at most 60 s\ngrade: reused 1 killed from ${json}; ran 2\n`)
  t.equal(second.stdout, '')
  const afterSecond = readFileSync(json, 'utf8')
  const again = JSON.parse(afterSecond) as MutationTestResult
  const swap = Object.values(again.files).flatMap(file => file.mutants).find(m => m.id === 'swap-401-403')
  t.match(swap, { status: 'Killed', statusReason: 'caught by your 2nd request, GET /secret/note with no token (answered 403 where the correct service said 401); the suite failed (exit code 1) (taken from an earlier report).' })

  // Taken again from a report that took it: said once.
  await graded(['--reporter', 'json', '--report-dir', join(dir, 'out'), '--incremental', json, '--only', 'swap-401-403', '--', suite])
  const twice = Object.values((JSON.parse(readFileSync(json, 'utf8')) as MutationTestResult).files).flatMap(file => file.mutants).find(m => m.id === 'swap-401-403')
  t.equal(twice?.statusReason, swap?.statusReason)

  // A defect changed since (its hash): it runs again; a timed-out mutant is reused as one.
  const edited = JSON.parse(afterSecond) as MutationTestResult & { config: { mutantHashes: Record<string, string> } }
  edited.config.mutantHashes['swap-401-403'] = 'changed'
  const old = join(dir, 'old.json')
  writeFileSync(old, JSON.stringify(edited))
  const third = await graded(['--incremental', old, '--only', 'swap-401-403', '--', suite])
  t.match(third.stderr, `grade: reused 0 killed from ${old}; ran 1\n`)
  const echo = Object.values(edited.files).flatMap(file => file.mutants).find(m => m.id === 'no-challenger-echo') as { status: string }
  echo.status = 'Timeout'
  writeFileSync(old, JSON.stringify(edited))
  const fourth = await graded(['--incremental', old, '--only', 'swap-401-403,no-challenger-echo', '--', suite])
  t.match(fourth.stderr, `grade: reused 0 killed and 1 timed out from ${old}; ran 1\n`)
  t.match(fourth.stdout, `\nDetected mutants taken from ${old} (--incremental): 1.\n`)
})

t.test('--incremental and --report-dir: what is wrong with them is said before anything runs', async t => {
  const dir = tempDir(t)
  const file = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text)
    return join(dir, name)
  }
  const cases: Array<[string, string]> = [
    [join(dir, 'none.json'), 'cannot be read (ENOENT)'],
    [file('text.json', 'hello'), 'not JSON (Unexpected token'],
    [file('array.json', '[]'), 'not a mutation-testing-report-schema report (no schemaVersion, or no files)'],
    [file('nofiles.json', '{"schemaVersion":"2"}'), 'not a mutation-testing-report-schema report (no schemaVersion, or no files)'],
    [file('nomutants.json', '{"schemaVersion":"2","files":{"a":{}}}'), 'not a mutation-testing-report-schema report (a file without mutants)'],
    [file('notafile.json', '{"schemaVersion":"2","files":{"a":1}}'), 'not a mutation-testing-report-schema report (a file without mutants)'],
    [file('noid.json', '{"schemaVersion":"2","files":{"a":{"mutants":[{"status":"Killed"}]}}}'), 'not a mutation-testing-report-schema report (a mutant without id or status)'],
    [file('big.json', ''), `is ${MAX_REPORT_BYTES + 1} bytes, more than the ${MAX_REPORT_BYTES} read`]
  ]
  truncateSync(join(dir, 'big.json'), MAX_REPORT_BYTES + 1)
  for (const [path, problem] of cases) {
    const { code, stdout, stderr } = await graded(['--incremental', path, '--', 'true'])
    t.equal(code, 2)
    t.equal(stdout, '')
    t.match(stderr, `grade: --incremental ${path} ${problem}`)
  }
  t.match(await readEarlier(dir), /^cannot be read \(EISDIR\)$/)
  t.same(earlierResults('{"schemaVersion":"2","files":{"a":{"mutants":[{"id":"x","status":"Killed"},{"id":"y","status":"Survived","statusReason":"r"}]}}}'), new Map())
  t.same(earlierResults('{"schemaVersion":"2","config":{"mutantHashes":{"x":"h"}},"files":{"a":{"mutants":[{"id":"x","status":"Killed"}]}}}'), new Map([['x', { status: 'Killed', reason: 'detected', hash: 'h' }]]))
  const blocked = file('blocked', '')
  const { code, stderr } = await graded(['--reporter', 'html', '--report-dir', join(blocked, 'reports'), '--', 'true'])
  t.equal(code, 2)
  t.equal(stderr, `grade: --report-dir ${join(blocked, 'reports')}: cannot make the folder (ENOTDIR)\n`)
})
