// Replaying the journal (issue 49): what an entry keeps of a request for a replay (kinds, never
// values), GET /challenger/{guid}/requests?format=curl|http, and the two formats as the module writes
// them. Running the script back against a fresh service, and the .http file: test/journal/journal-replay-run.ts.
import { request as httpRequest } from 'node:http'
import t from 'tap'
import { decodeEntry, encodeEntry, Journal, journalText, knownText, MAX_JOURNAL_TEXT, type JournalEntry, type JournalView } from '../../src/domain/journal/journal.js'
import { curlScript, httpFile, type ReplayContext } from '../../src/domain/journal/replay.js'
import { requestHtml } from '../../src/domain/pages/pages.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { basic, build, newSession } from '../helper.js'

/* eslint-disable no-template-curly-in-string -- the expected scripts are shell, whose ${…} is its own */

const GUID = '6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b'
const OTHER = '0b1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f'

const context: ReplayContext = { base: 'http://h:1/p', prefix: '/p', guid: GUID, username: 'admin', password: 'password', noteMaxLength: 5, bodyLimit: 64 }

/** A view as GET …/requests shows it; `overrides` on a GET /p/heartbeat that answered 204. */
const view = (overrides: Partial<JournalView> = {}): JournalView =>
  ({ id: `1763806530123-${GUID.slice(0, 8)}`, at: '2026-11-22T10:15:30.123Z', method: 'GET', path: '/p/heartbeat', status: 204, contentType: null, passed: [], hint: null, ...overrides })

/** The curl command of the script's only entry. */
function curlOf (one: Partial<JournalView>, ctx: ReplayContext = context): string {
  const lines = curlScript([view(one)], ctx).split('\n')
  return lines[lines.length - 3] as string
}

/** The request of the .http file's only entry: its lines after the ### line. */
function httpOf (one: Partial<JournalView>, ctx: ReplayContext = context): string[] {
  const lines = httpFile([view(one)], ctx).trimEnd().split('\n')
  return lines.slice(lines.findIndex(line => line.startsWith('### ')) + 1)
}

t.test('a script: oldest first, each entry what it was answered and one command, the session and the token variables', async t => {
  const script = curlScript([
    view({ id: '3-6a1f8e2c', method: 'POST', path: '/p/secret/note', status: 200, token: 'valid', tokenSource: 'x-auth-token', contentType: 'application/json', passed: [34], body: 'note' }),
    view({ id: '2-6a1f8e2c', path: '/p/heartbeats', status: 404, query: 'a=1&b=2', hint: 'did you mean /p/heartbeat?' }),
    view({ id: '1-6a1f8e2c', method: 'POST', path: '/p/challenger', status: 201, passed: [1], challengerHeader: false })
  ], context)
  const lines = script.split('\n')
  t.equal(lines[0], '#!/bin/sh')
  t.ok(lines.includes('BASE=${BASE:-http://h:1/p}'), 'the server as the journal was read there, the variable taking precedence')
  t.match(script, /if \[ -z "\$\{CHALLENGER:-\}" \]; then\n {2}CHALLENGER=\$\(curl -sS -o \/dev\/null -D - -X POST "\$\{BASE\}\/challenger"/, 'a new session, unless CHALLENGER names one')
  t.match(script, /TOKEN=\$\(curl -sS "\$\{BASE\}\/challenger\/\$\{CHALLENGER\}" \| sed/, 'its token read from the session, unless TOKEN is set')
  t.notMatch(script, /PASSWORD/, 'the default password is written out')
  t.same(lines.filter(line => line.startsWith('curl')), [
    'curl -sS -i -X POST "${BASE:-http://h:1/p}/challenger"',
    'curl -sS -i "${BASE:-http://h:1/p}/heartbeats?a=1&b=2" -H "X-CHALLENGER: ${CHALLENGER:-$CH}"',
    'curl -sS -i -X POST "${BASE:-http://h:1/p}/secret/note" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H "X-AUTH-TOKEN: $TOKEN" -H \'Content-Type: application/json\' --data-raw \'{"note":"replayed note"}\''
  ])
  t.same(lines.filter(line => /^# \d+\. /.test(line)), [
    '# 1. entry 1-6a1f8e2c, 10:15:30 UTC: POST /p/challenger answered 201, passed 01',
    '# 2. entry 2-6a1f8e2c, 10:15:30 UTC: GET /p/heartbeats?a=1&b=2 answered 404, passed nothing; did you mean /p/heartbeat?',
    '# 3. entry 3-6a1f8e2c, 10:15:30 UTC: POST /p/secret/note answered 200, passed 34'
  ])
  t.equal(lines.filter(line => line === 'echo').length, 3, 'a line between answers')
  t.notMatch(curlScript([view()], context), /TOKEN=\$\(/, 'no token asked for when no request sends it')

  const empty = curlScript([], context)
  t.match(empty, /# No requests in the journal yet\.\n$/)
  t.notMatch(empty, /CHALLENGER=\$\(/, 'and nothing made for none')
  t.match(httpFile([], context), /@token = <your token>\n\n# No requests in the journal yet\.\n$/)
})

t.test('each kind of request, as curl sends it and as a .http file does', async t => {
  const cases: Array<[string, Partial<JournalView>, string, string[]]> = [
    ['HEAD', { method: 'HEAD', body: 'ignored' }, 'curl -sS -i -I "${BASE:-http://h:1/p}/heartbeat" -H "X-CHALLENGER: ${CHALLENGER:-$CH}"', ['HEAD {{base}}/heartbeat', 'X-CHALLENGER: {{challenger}}']],
    ['a GET with a body', { body: 'ignored', contentType: 'text/plain' }, 'curl -sS -i -X GET "${BASE:-http://h:1/p}/heartbeat" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H \'Content-Type: text/plain\' --data-raw replayed',
      ['GET {{base}}/heartbeat', 'X-CHALLENGER: {{challenger}}', 'Content-Type: text/plain', '', 'replayed']],
    ['a body without a Content-Type', { method: 'POST', body: 'ignored' }, 'curl -sS -i -X POST "${BASE:-http://h:1/p}/heartbeat" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H \'Content-Type:\' --data-raw replayed',
      ['POST {{base}}/heartbeat', 'X-CHALLENGER: {{challenger}}', '', 'replayed']],
    ['the override, Accept', { method: 'POST', override: 'TRACE', accept: 'text/xml' }, 'curl -sS -i -X POST "${BASE:-http://h:1/p}/heartbeat" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H \'X-HTTP-Method-Override: TRACE\' -H \'Accept: text/xml\'',
      ['POST {{base}}/heartbeat', 'X-CHALLENGER: {{challenger}}', 'X-HTTP-Method-Override: TRACE', 'Accept: text/xml']],
    ['an Accept of neither', { accept: 'other', override: 'other' }, 'curl -sS -i "${BASE:-http://h:1/p}/heartbeat" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H \'X-HTTP-Method-Override: other\' -H \'Accept: text/plain\'',
      ['GET {{base}}/heartbeat', 'X-CHALLENGER: {{challenger}}', 'X-HTTP-Method-Override: other', 'Accept: text/plain']],
    ['the right Basic credentials', { method: 'POST', path: '/p/secret/token', authorization: 'basic' }, 'curl -sS -i -X POST "${BASE:-http://h:1/p}/secret/token" -u admin:password -H "X-CHALLENGER: ${CHALLENGER:-$CH}"',
      ['POST {{base}}/secret/token', 'Authorization: Basic admin password', 'X-CHALLENGER: {{challenger}}']],
    ['wrong ones', { method: 'POST', path: '/p/secret/token', authorization: 'basic-wrong' }, 'curl -sS -i -X POST "${BASE:-http://h:1/p}/secret/token" -u wrong:wrong -H "X-CHALLENGER: ${CHALLENGER:-$CH}"',
      ['POST {{base}}/secret/token', 'Authorization: Basic wrong wrong', 'X-CHALLENGER: {{challenger}}']],
    ['a bare token', { path: '/p/secret/note', authorization: 'token', token: 'missing' }, 'curl -sS -i "${BASE:-http://h:1/p}/secret/note" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H "Authorization: $TOKEN"',
      ['GET {{base}}/secret/note', 'X-CHALLENGER: {{challenger}}', 'Authorization: {{token}}']],
    ['another scheme', { authorization: 'other' }, 'curl -sS -i "${BASE:-http://h:1/p}/heartbeat" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H \'Authorization: Digest replayed\'',
      ['GET {{base}}/heartbeat', 'X-CHALLENGER: {{challenger}}', 'Authorization: Digest replayed']],
    ['Bearer, right', { path: '/p/secret/note', authorization: 'bearer', token: 'valid', tokenSource: 'bearer' }, 'curl -sS -i "${BASE:-http://h:1/p}/secret/note" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H "Authorization: Bearer $TOKEN"',
      ['GET {{base}}/secret/note', 'X-CHALLENGER: {{challenger}}', 'Authorization: Bearer {{token}}']],
    ['Bearer, wrong (an entry from before the kinds)', { path: '/p/secret/note', token: 'wrong', tokenSource: 'bearer' }, 'curl -sS -i "${BASE:-http://h:1/p}/secret/note" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H \'Authorization: Bearer not-the-token\'',
      ['GET {{base}}/secret/note', 'X-CHALLENGER: {{challenger}}', 'Authorization: Bearer not-the-token']],
    ['X-AUTH-TOKEN, wrong', { path: '/p/secret/note', token: 'wrong', tokenSource: 'x-auth-token' }, 'curl -sS -i "${BASE:-http://h:1/p}/secret/note" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H \'X-AUTH-TOKEN: not-the-token\'',
      ['GET {{base}}/secret/note', 'X-CHALLENGER: {{challenger}}', 'X-AUTH-TOKEN: not-the-token']],
    ['an XML note', { method: 'POST', path: '/p/secret/note', contentType: 'application/xml', body: 'note' },
      'curl -sS -i -X POST "${BASE:-http://h:1/p}/secret/note" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H \'Content-Type: application/xml\' --data-raw \'<secretnote><note>replayed note</note></secretnote>\'',
      ['POST {{base}}/secret/note', 'X-CHALLENGER: {{challenger}}', 'Content-Type: application/xml', '', '<secretnote><note>replayed note</note></secretnote>']],
    ['a long note: one character more than the note length', { method: 'POST', path: '/p/secret/note', body: 'long-note' },
      'curl -sS -i -X POST "${BASE:-http://h:1/p}/secret/note" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H \'Content-Type:\' --data-raw \'{"note":"xxxxxx"}\'',
      ['POST {{base}}/secret/note', 'X-CHALLENGER: {{challenger}}', '', '{"note":"xxxxxx"}']],
    ['a refused note, in XML', { method: 'POST', path: '/p/api/secret/note', contentType: 'text/xml', body: 'refused' },
      'curl -sS -i -X POST "${BASE:-http://h:1/p}/api/secret/note" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H \'Content-Type: text/xml\' --data-raw \'<secretnote><notes>replayed note</notes></secretnote>\'',
      ['POST {{base}}/api/secret/note', 'X-CHALLENGER: {{challenger}}', 'Content-Type: text/xml', '', '<secretnote><notes>replayed note</notes></secretnote>']],
    ['a refused name', { method: 'POST', path: '/p/challenger', contentType: 'application/json', body: 'refused', challengerHeader: false },
      'curl -sS -i -X POST "${BASE:-http://h:1/p}/challenger" -H \'Content-Type: application/json\' --data-raw \'{"name":""}\'', ['POST {{base}}/challenger', 'Content-Type: application/json', '', '{"name":""}']],
    ['malformed JSON', { method: 'POST', path: '/p/secret/note', contentType: 'application/json', body: 'malformed' },
      'curl -sS -i -X POST "${BASE:-http://h:1/p}/secret/note" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H \'Content-Type: application/json\' --data-raw \'{"note":\'',
      ['POST {{base}}/secret/note', 'X-CHALLENGER: {{challenger}}', 'Content-Type: application/json', '', '{"note":']],
    ['malformed XML', { method: 'POST', path: '/p/secret/note', contentType: 'application/xml', body: 'malformed' },
      'curl -sS -i -X POST "${BASE:-http://h:1/p}/secret/note" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H \'Content-Type: application/xml\' --data-raw \'<secretnote><note>\'',
      ['POST {{base}}/secret/note', 'X-CHALLENGER: {{challenger}}', 'Content-Type: application/xml', '', '<secretnote><note>']],
    ['an unsupported type', { method: 'POST', path: '/p/secret/note', contentType: 'application/x-www-form-urlencoded', body: 'unsupported' },
      'curl -sS -i -X POST "${BASE:-http://h:1/p}/secret/note" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H \'Content-Type: application/x-www-form-urlencoded\' --data-raw replayed',
      ['POST {{base}}/secret/note', 'X-CHALLENGER: {{challenger}}', 'Content-Type: application/x-www-form-urlencoded', '', 'replayed']],
    ['too large: one byte over the limit, made as it runs', { method: 'POST', path: '/p/secret/note', contentType: 'application/json', body: 'too-large' },
      'head -c 65 /dev/zero | tr \'\\0\' x | curl -sS -i -X POST "${BASE:-http://h:1/p}/secret/note" -H "X-CHALLENGER: ${CHALLENGER:-$CH}" -H \'Content-Type: application/json\' -H \'Expect:\' --data-binary @-',
      ['# More than the body limit: make the file beside this one with head -c 65 /dev/zero | tr \'\\0\' x > too-large.txt',
        'POST {{base}}/secret/note', 'X-CHALLENGER: {{challenger}}', 'Content-Type: application/json', '', '< ./too-large.txt']],
    ['a name', { method: 'PATCH', path: `/p/challenger/${GUID}`, contentType: 'application/json', body: 'other', challengerHeader: false },
      'curl -sS -i -X PATCH "${BASE:-http://h:1/p}/challenger/${CHALLENGER:-$CH}" -H \'Content-Type: application/json\' --data-raw \'{"name":"Replayed"}\'',
      ['PATCH {{base}}/challenger/{{challenger}}', 'Content-Type: application/json', '', '{"name":"Replayed"}']],
    ['a restore of the session: the session as it is', { method: 'PUT', path: `/p/challenger/${GUID.toUpperCase()}`, contentType: 'application/json', body: 'other', challengerHeader: false },
      'curl -sS -i -X PUT "${BASE:-http://h:1/p}/challenger/${CHALLENGER:-$CH}" -H \'Content-Type: application/json\' --data-binary "$(curl -sS "${BASE:-http://h:1/p}/challenger/${CHALLENGER:-$CH}")"',
      ['# The session restored was not kept (it holds the token): paste your saved one (GET /challenger/{guid}) in place of {}, which empties it.',
        'PUT {{base}}/challenger/{{challenger}}', 'Content-Type: application/json', '', '{}']],
    ['a restore of another session', { method: 'PUT', path: `/p/challenger/${OTHER}`, contentType: 'application/json', body: 'other', challengerHeader: false },
      `curl -sS -i -X PUT "\${BASE:-http://h:1/p}/challenger/${OTHER}" -H 'Content-Type: application/json' --data-raw '{}'`,
      ['# The session restored was not kept (it holds the token): {} stands in for it.', `PUT {{base}}/challenger/${OTHER}`, 'Content-Type: application/json', '', '{}']],
    ['a finding', { method: 'POST', path: `/p/challenger/${GUID}/findings`, contentType: 'application/json', body: 'other', challengerHeader: false },
      'curl -sS -i -X POST "${BASE:-http://h:1/p}/challenger/${CHALLENGER:-$CH}/findings" -H \'Content-Type: application/json\' --data-raw \'{"entry":"<entry id>"}\'',
      ['# A finding names an entry of its own session: <entry id> stands in for it.', 'POST {{base}}/challenger/{{challenger}}/findings', 'Content-Type: application/json', '', '{"entry":"<entry id>"}']],
    ['a session asked for with a body', { method: 'POST', path: '/p/challenger', contentType: 'application/json', body: 'other', challengerHeader: false },
      'curl -sS -i -X POST "${BASE:-http://h:1/p}/challenger" -H \'Content-Type: application/json\' --data-raw \'{}\'', ['POST {{base}}/challenger', 'Content-Type: application/json', '', '{}']],
    ['dot segments, kept as sent', { path: '/p/secret/../heartbeat' }, 'curl -sS -i --path-as-is "${BASE:-http://h:1/p}/secret/../heartbeat" -H "X-CHALLENGER: ${CHALLENGER:-$CH}"',
      ['GET {{base}}/secret/../heartbeat', 'X-CHALLENGER: {{challenger}}']]
  ]
  for (const [name, one, curl, http] of cases) {
    t.equal(curlOf(one), curl, `${name}: curl`)
    t.same(httpOf(one), http, `${name}: .http`)
  }
})

t.test('texts a shell or a URL would change are quoted and encoded; what the journal cut is said', async t => {
  t.equal(curlOf({ path: '/p/a$b!c\'d' }), 'curl -sS -i "${BASE:-http://h:1/p}"\'/a$b!c\'\\\'\'d\' -H "X-CHALLENGER: ${CHALLENGER:-$CH}"', 'a $, a ! and a quote: single-quoted beside the variables')
  t.equal(curlOf({ path: '/p/"x"`{y}`\\^|<>[z]#' }), 'curl -sS -i "${BASE:-http://h:1/p}/%22x%22%60%7By%7D%60%5C%5E%7C%3C%3E%5Bz%5D%23" -H "X-CHALLENGER: ${CHALLENGER:-$CH}"', 'what a URL may not carry, encoded')
  const cut = curlScript([view({ path: `/p/${'q'.repeat(97)}…`, query: `${'a'.repeat(99)}…` })], context)
  t.match(cut, /# The journal kept this request's path or query cut short: the replay sends what it kept\.\ncurl -sS -i "\$\{BASE:-http:\/\/h:1\/p\}\/q{97}%E2%80%A6\?a{99}%E2%80%A6"/)
  t.match(curlScript([view({ path: '/p/…' })], context), /cut short/)
  const type = curlScript([view({ method: 'POST', contentType: `text/${'x'.repeat(94)}…`, body: 'ignored' })], context)
  t.match(type, /# The journal kept this request's Content-Type cut short: text\/plain stands in for it\.\ncurl .* -H 'Content-Type: text\/plain' --data-raw replayed$/m)
  t.match(curlOf({ method: 'POST', contentType: 'text "x"', body: 'ignored' }), /-H 'Content-Type: text\/plain'/, 'a type that is no media type, too')
  t.match(curlOf({ method: 'M\'X' }), /^curl -sS -i -X 'M'\\''X' /, 'a method the shell would read otherwise')
  // Hints with line breaks (none today) stay on their comment line.
  t.match(curlScript([view({ hint: 'one\ntwo\u0007' })], context), /; one two $/m)
  t.match(httpFile([view({ hint: 'one\ntwo' })], context), /^### 1\. .*; one two$/m)
})

t.test('a password other than the default is a variable the learner sets; a long note is made as the script runs', async t => {
  const own: ReplayContext = { ...context, username: 'teacher', password: null, noteMaxLength: 5000, bodyLimit: 20_000 }
  const entries = [view({ method: 'POST', path: '/p/secret/token', authorization: 'basic' }), view({ method: 'POST', path: '/p/secret/note', body: 'long-note', tokenSource: 'x-auth-token', token: 'valid' })]
  const script = curlScript(entries, own)
  t.match(script, /^\[ -n "\$\{PASSWORD:-\}" \] \|\| \{ echo "Set PASSWORD to the password of POST \/secret\/token \(the journal never keeps it\)" >&2; exit 1; \}$/m)
  t.match(script, /-u "teacher:\$PASSWORD"/)
  t.match(script, /-H 'Content-Type:' -H 'Expect:' --data-raw '\{"note":"'"\$\(printf '%\*s' 5001 '' \| tr ' ' x\)"'"\}'$/m, 'printf writes the 5,001 characters')
  const http = httpFile(entries, own)
  t.match(http, /^@password = <the password of POST \/secret\/token>$/m)
  t.match(http, /^Authorization: Basic teacher \{\{password\}\}$/m)
  t.match(http, /^\{"note":"x{5001}"\}$/m, 'a .http file writes it out')
  const middle = curlScript([view({ method: 'POST', path: '/p/secret/note', body: 'long-note' })], { ...own, noteMaxLength: 1500 })
  t.match(middle, /-H 'Expect:' --data-raw '\{"note":"x{1501}"\}'$/m, 'past 1,000 bytes, no Expect: 100-continue, which curl would wait on')
  t.notMatch(curlScript(entries, context), /PASSWORD|Expect/)
})

t.test('GET /challenger/{guid}/requests?format=: text, this server\'s address, the token never', async t => {
  const app = await build(t, { creationRateLimit: 0, password: 'course-secret', username: 'teacher' })
  const { guid } = await newSession(app)
  const token = (await app.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': guid, authorization: basic('teacher', 'course-secret') } })).headers['x-auth-token'] as string
  await app.inject({ method: 'POST', url: '/api/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token, 'content-type': 'application/json' }, payload: { note: 'my-private-words' } })

  const curl = await app.inject({ method: 'GET', url: `/challenger/${guid}/requests?format=curl`, headers: { host: 'learn.example:8080', accept: 'text/plain' } })
  t.equal(curl.statusCode, 200, 'an Accept of text: no 406')
  t.equal(curl.headers['content-type'], 'text/plain; charset=utf-8')
  t.equal(curl.headers['content-disposition'], `inline; filename="requests-${guid.slice(0, 8)}.sh"`)
  t.match(curl.body, /^BASE=\$\{BASE:-http:\/\/learn\.example:8080\}$/m, 'the address the journal was read at')
  t.match(curl.body, /curl -sS -i -X POST "\$\{BASE:-http:\/\/learn\.example:8080\}\/api\/secret\/note" -H "X-CHALLENGER: \$\{CHALLENGER:-\$CH\}" -H "X-AUTH-TOKEN: \$TOKEN"/, 'each request at its own base')
  t.match(curl.body, /-u "teacher:\$PASSWORD"/)
  const http = await app.inject({ method: 'GET', url: `/api/challenger/${guid.toUpperCase()}/requests?format=http` })
  t.equal(http.statusCode, 200)
  t.equal(http.headers['content-disposition'], `inline; filename="requests-${guid.slice(0, 8)}.http"`)
  t.match(http.body, /^@base = http:\/\/localhost:80$/m, 'the service\'s root, whatever base the journal was read at')
  for (const body of [curl.body, http.body]) {
    for (const secret of [token, 'course-secret', 'my-private-words', Buffer.from('teacher:course-secret').toString('base64')]) t.notOk(body.includes(secret), `no ${secret}`)
  }
  t.equal((await app.inject({ method: 'HEAD', url: `/challenger/${guid}/requests?format=curl` })).statusCode, 200)

  const bad = await app.inject({ method: 'GET', url: `/challenger/${guid}/requests?format=postman` })
  t.equal(bad.statusCode, 400)
  t.same(bad.json(), { errorMessages: ['format must be curl or http (or left out, for JSON or XML), got "postman"'] })
  t.equal((await app.inject({ method: 'GET', url: `/challenger/${guid}/requests?format=postman`, headers: { accept: 'image/png' } })).statusCode, 406, 'JSON or XML asked for otherwise')
  t.equal((await app.inject({ method: 'GET', url: `/challenger/${guid}/requests?format=toString` })).statusCode, 400, 'no name of an object\'s own')
  t.equal((await app.inject({ method: 'GET', url: `/challenger/${OTHER}/requests?format=curl` })).statusCode, 404)
  const json = await app.inject({ method: 'GET', url: `/challenger/${guid}/requests` })
  t.match(json.headers['content-type'], /^application\/json/, 'JSON without a format')
  t.equal((await app.inject({ method: 'GET', url: `/challenger/${guid}/requests?format=curl` })).body, curl.body.replaceAll('learn.example:8080', 'localhost:80'), 'reading the journal is not recorded in it')
})

t.test('under a host\'s prefix, the script goes to that prefix and each path after it', async t => {
  const { default: Fastify } = await import('fastify')
  const { default: service } = await import('../../src/app.js')
  const host = Fastify()
  t.teardown(() => host.close())
  await host.register(service, { prefix: '/practice', creationRateLimit: 0 })
  await host.ready()
  const guid = (await host.inject({ method: 'POST', url: '/practice/challenger' })).headers['x-challenger'] as string
  await host.inject({ method: 'GET', url: '/practice/api/heartbeat', headers: { 'x-challenger': guid } })
  const script = (await host.inject({ method: 'GET', url: `/practice/api/challenger/${guid}/requests?format=curl` })).body
  t.match(script, /^BASE=\$\{BASE:-http:\/\/localhost:80\/practice\}$/m)
  t.match(script, /^curl -sS -i "\$\{BASE:-http:\/\/localhost:80\/practice\}\/api\/heartbeat" -H "X-CHALLENGER: \$\{CHALLENGER:-\$CH\}"$/m)
  t.match(script, /^curl -sS -i -X POST "\$\{BASE:-http:\/\/localhost:80\/practice\}\/challenger"$/m)
})

t.test('the progress page\'s request column: a segment a span, a break only before a "/", "?" or "&"', async t => {
  t.equal(requestHtml({ method: 'GET', path: '/challenger/<x>/requests', query: 'a=1&b=<2>' }),
    'GET <span>/challenger</span><wbr><span>/&lt;x&gt;</span><wbr><span>/requests</span><wbr><span>?a=1</span><wbr><span>&amp;b=&lt;2&gt;</span>')
  t.equal(requestHtml({ method: 'HEAD', path: '/heartbeat' }), 'HEAD <span>/heartbeat</span>')
})

/** The newest entry of the session's journal. */
async function newest (app: Awaited<ReturnType<typeof build>>, guid: string): Promise<JournalView> {
  return (await app.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json().requests[0]
}

t.test('what an entry keeps for a replay: kinds, never values', async t => {
  const app = await build(t, { creationRateLimit: 0, noteMaxLength: 10, store: new MemoryStore({ journalSize: 100 }) })
  const { guid, token } = await newSession(app)
  const h = { 'x-challenger': guid }
  const json = { ...h, 'x-auth-token': token, 'content-type': 'application/json' }
  const kept = async (options: { method?: string, url?: string, headers?: Record<string, string>, payload?: string | object }): Promise<JournalView> => {
    await app.inject({ method: 'GET', url: '/heartbeat', headers: h, ...options } as never)
    return await newest(app, guid)
  }
  const pick = (entry: JournalView): Partial<JournalView> => Object.fromEntries(['query', 'accept', 'override', 'authorization', 'body', 'challengerHeader']
    .filter(field => field in entry).map(field => [field, entry[field as keyof JournalView]]))

  t.same(pick(await kept({})), {}, 'a plain request: nothing more')
  t.same(pick(await kept({ url: '/challenges?hints=true' })), { query: 'hints=true' })
  t.same(pick(await kept({ url: '/heartbeat?' })), {}, 'an empty query is none')
  t.equal((await kept({ url: `/heartbeat?${'q'.repeat(300)}` })).query, journalText('q'.repeat(300)), 'a long one cut as a path is')
  t.same(pick(await kept({ url: '/secret/note', headers: { ...h, accept: 'application/xml' } })), { accept: 'application/xml' })
  t.same(pick(await kept({ url: '/secret/note', headers: { ...h, accept: 'text/*' } })), { accept: 'text/xml' })
  t.same(pick(await kept({ headers: { ...h, accept: 'image/png' } })), { accept: 'other' })
  t.same(pick(await kept({ headers: { ...h, accept: 'application/json, text/plain' } })), {}, 'JSON is the default')
  t.same(pick(await kept({ method: 'POST', headers: { ...h, 'x-http-method-override': ' trace ' } })), { override: 'TRACE' })
  t.same(pick(await kept({ method: 'POST', headers: { ...h, 'x-http-method-override': 'my secret words' } })), { override: 'other' }, 'not a method: other')
  t.same(pick(await kept({ method: 'POST', url: '/secret/token', headers: { ...h, authorization: basic('admin', 'password') } })), { authorization: 'basic' })
  t.same(pick(await kept({ method: 'POST', url: '/secret/token', headers: { ...h, authorization: basic('admin', 'hunter2') } })), { authorization: 'basic-wrong' })
  t.same(pick(await kept({ method: 'POST', url: '/secret/token', headers: { ...h, authorization: 'Basic' } })), { authorization: 'basic-wrong' })
  t.same(pick(await kept({ url: '/secret/note', headers: { ...h, authorization: `bearer  ${token}` } })), { authorization: 'bearer' })
  t.same(pick(await kept({ url: '/secret/note', headers: { ...h, authorization: token } })), { authorization: 'token' })
  t.same(pick(await kept({ url: '/secret/note', headers: { ...h, authorization: 'Bearer' } })), { authorization: 'other' }, 'Bearer without its token')
  t.same(pick(await kept({ url: '/secret/note', headers: { ...h, authorization: 'Digest a b' } })), { authorization: 'other' })

  const note = { method: 'POST', url: '/secret/note', headers: json }
  t.same(pick(await kept({ ...note, payload: { note: 'short' } })), { body: 'note' })
  t.same(pick(await kept({ ...note, payload: { note: 'longer than ten' } })), { body: 'long-note' })
  t.same(pick(await kept({ ...note, payload: { notes: 'hi' } })), { body: 'refused' })
  t.same(pick(await kept({ ...note, payload: '{"note":' })), { body: 'malformed' })
  t.same(pick(await kept({ ...note, headers: { ...json, 'content-type': 'application/xml' }, payload: '<secretnote><note>x' })), { body: 'malformed' })
  t.same(pick(await kept({ ...note, headers: { ...json, 'content-type': 'text/plain' }, payload: 'hi' })), { body: 'unsupported' })
  t.same(pick(await kept({ ...note, payload: { note: 'x'.repeat(20_000) } })), { body: 'too-large' })
  t.same(pick(await kept({ ...note, headers: { ...h, 'x-auth-token': 'nope', 'content-type': 'application/json' }, payload: { note: 'x' } })), { body: 'note' }, 'judged, though the token came first')
  t.same(pick(await kept({ method: 'POST', payload: 'ignored text' })), { body: 'ignored' })
  t.same(pick(await kept({ method: 'PATCH', url: `/challenger/${guid}`, headers: { ...h, 'content-type': 'application/json' }, payload: { name: '' } })), { body: 'refused' }, 'refused by the handler')
  t.same(pick(await kept({ method: 'PATCH', url: `/challenger/${guid}`, headers: { ...h, 'content-type': 'application/json' }, payload: { name: 'Ada' } })), { body: 'other' })
  t.same(pick(await kept({ url: `/challenger/${guid}`, headers: {} })), { challengerHeader: false }, 'named in the URL only')
  t.same(pick(await kept({ url: `/challenger/${guid}`, headers: { 'x-challenger': OTHER } })), { challengerHeader: false }, 'X-CHALLENGER naming another session')
  t.same(pick(await kept({ url: `/challenger/${guid}`, headers: { 'x-challenger': guid.toUpperCase() } })), {}, 'its id in capitals names it')

  // A chunked body, over a socket: a body all the same.
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  await new Promise<void>((resolve, reject) => {
    const req = httpRequest(`${address}/heartbeat`, { method: 'POST', headers: { 'x-challenger': guid } }, res => { res.resume(); res.on('end', resolve) })
    req.on('error', reject)
    req.write('a')
    req.end('b')
  })
  t.same(pick(await newest(app, guid)), { body: 'ignored' })

  const text = (await app.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).body
  for (const secret of [token, 'hunter2', 'my secret words', 'longer than ten', 'ignored text', Buffer.from('admin:password').toString('base64')]) t.notOk(text.includes(secret), `no ${secret}`)
  t.match((await app.inject({ method: 'GET', url: `/challenger/${guid}/requests`, headers: { accept: 'application/xml' } })).body,
    /<challengerHeader>false<\/challengerHeader>[^]*<authorization>token<\/authorization>/, 'in XML too')
})

t.test('the journal shares what a request sent, keeps its query in its text room, and Redis reads it back', async t => {
  // The journal plugin makes every route's path a known text, as it is registered.
  for (const route of ['/heartbeat', '/challenges', '/challenger/:guid']) knownText(route)
  const at = Date.UTC(2026, 10, 22, 10, 15, 30, 123)
  const base: JournalEntry = { at, method: 'POST', path: '/heartbeat', status: 405, contentType: null, passed: 0, hint: -1, suggestion: null }
  const full: JournalEntry = { ...base, query: 'a=1', accept: 'text/xml', override: 'DELETE', authorization: 'bearer', body: 'ignored', challengerHeader: false }
  const journal = new Journal(20, GUID)
  journal.add(full)
  journal.add({ ...full, at: at + 1 })
  journal.add({ ...base, at: at + 2, authorization: 'token' })
  journal.add({ ...full, at: at + 3, override: 'PATCH' })
  journal.add({ ...full, at: at + 4 })
  t.same(journal.entries().map(e => [e.override, e.authorization, e.query]), [['DELETE', 'bearer', 'a=1'], ['PATCH', 'bearer', 'a=1'], [undefined, 'token', undefined], ['DELETE', 'bearer', 'a=1'], ['DELETE', 'bearer', 'a=1']])
  t.same(journal.entries()[0], { ...full, at: at + 4 }, 'every field reads back')

  // Twenty long queries: the newest whole, the rest "…" once the room is spent.
  const hostile = new Journal(20, GUID)
  for (let n = 0; n < 20; n++) hostile.add({ ...base, at: at + n, query: `${n}-${'q'.repeat(300)}` })
  const queries = hostile.entries().map(e => e.query)
  t.equal(queries[0], journalText(`19-${'q'.repeat(300)}`))
  t.equal(queries[0]?.length, MAX_JOURNAL_TEXT)
  t.equal(queries[19], '…')
  t.equal(hostile.entries()[19]?.path, '/heartbeat', 'a route\'s path stays whole when its query is dropped')
  t.same(new Journal(1, GUID).entries(), [])
  // A route's path with ?hints=true takes no room; a path of the client's own loses its query with it; the session's id reads back.
  const mixed = new Journal(20, GUID)
  mixed.add({ ...base, path: '/heartbeatX' })
  mixed.add({ ...base, path: '/nowhere', query: 'x=1' })
  mixed.add({ ...base, path: `/challenger/${GUID}`, query: 'y=2' })
  mixed.add({ ...base, path: '/challenges', query: 'hints=true' })
  for (let n = 0; n < 16; n++) mixed.add({ ...base, path: `/p${n}-${'z'.repeat(150)}`, query: `${'q'.repeat(150)}` })
  t.same(mixed.entries().slice(16).map(e => [e.path, e.query]), [['/challenges', 'hints=true'], [`/challenger/${GUID}`, '…'], ['…', undefined], ['…', undefined]],
    'shared, then the route with its query dropped, then nothing of a path of its own (not a route it starts like)')
  t.same(journalWith([{ ...base, path: `/challenger/${GUID}`, query: 'y=2' }]).map(e => [e.path, e.query]), [[`/challenger/${GUID}`, 'y=2']])

  // The form for Redis: the new fields at the end, an ordinary entry as short as before, older entries read.
  t.same(decodeEntry(encodeEntry(full)), full)
  t.equal(encodeEntry(base), `[${at},"POST","/heartbeat",405,0,null,0,-1,null]`)
  t.equal(encodeEntry({ ...base, challengerHeader: false }), `[${at},"POST","/heartbeat",405,0,null,0,-1,null,null,null,null,null,null,null,0]`)
  t.equal(encodeEntry({ ...base, query: 'x'.repeat(300) }), `[${at},"POST","/heartbeat",405,0,null,0,-1,null,null,"${journalText('x'.repeat(300))}"]`)
  t.same(decodeEntry(`[${at},"GET","/x",404,0,null,0,-1,null,"heartbeat-200"]`), { ...base, method: 'GET', path: '/x', status: 404, defect: 'heartbeat-200' })
})

/** The entries of a journal of 20 for GUID, `entries` added oldest first. */
function journalWith (entries: JournalEntry[]): JournalEntry[] {
  const journal = new Journal(20, GUID)
  for (const one of entries) journal.add(one)
  return journal.entries()
}

t.test('a server address a shell would read otherwise stays ${BASE} alone, set at the top of the script (issue 58)', async t => {
  const odd = { ...context, base: 'http://h"$(x):1/p' }
  const script = curlScript([view({ path: '/p/heartbeat' })], odd)
  t.match(script, /^curl -sS -i "\$\{BASE\}\/heartbeat" -H "X-CHALLENGER: \$\{CHALLENGER:-\$CH\}"$/m)
  t.match(script, /^BASE=\$\{BASE:-'http:\/\/h"\$\(x\):1\/p'\}$/m, 'the address quoted once, where the script sets it')
})
