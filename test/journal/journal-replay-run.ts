// Replaying a journal for real (issue 49): a session does a varied set of requests; its journal as
// curl commands (?format=curl) runs with bash, and with sh, against a fresh session of a fresh
// service, and every command gets the answer the journal says it got then; the .http file
// (?format=http) is read as REST Client reads it (each request's method, URL, headers and body),
// checked against the journal, and sent too, with the same answers. Needs bash, sh and curl:
// skipped without them (in CI, which has them, a missing one fails).
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import type { JournalView } from '../../src/domain/journal/journal.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { basic, build, newSession } from '../helper.js'

const PROGRAMS = ['/bin/sh', '/usr/bin/curl', '/bin/bash']
const missing = PROGRAMS.filter(path => !existsSync(path))
const skip = missing.length === 0 ? false : `${missing.join(' and ')} not installed`
if (skip !== false && process.env.CI === 'true') t.fail(skip)

/** A fresh service on a loopback port: its address and app. */
async function service (t: Test) {
  const app = await build(t, { creationRateLimit: 0, store: new MemoryStore({ journalSize: 100 }) })
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, address: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` }
}

type App = Awaited<ReturnType<typeof service>>['app']

/** The session's journal, oldest first. */
async function journalOf (app: App, guid: string): Promise<JournalView[]> {
  return (await app.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json().requests.reverse()
}

/** Runs `script` with `shell`, its environment `env` beside PATH; its output. */
async function run (shell: string, script: string, env: Record<string, string>): Promise<string> {
  return await new Promise((resolve, reject) => {
    const child = execFile(shell, ['-s'], { env: { PATH: process.env.PATH as string, ...env }, timeout: 120_000, maxBuffer: 16 * 2 ** 20 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`${shell}: ${error.message}\n${stderr}`))
      else resolve(stdout)
    })
    child.stdin?.end(script)
  })
}

/** The statuses curl -i printed, in order (an interim 100 aside). */
function statuses (output: string): number[] {
  return [...output.matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)].map(match => Number(match[1])).filter(status => status !== 100)
}

/** One request of a .http file, as REST Client reads it: variables filled in, a body's file read. */
interface HttpRequest {
  method: string
  url: string
  headers: Array<[string, string]>
  body: string | null
}

/** A .http file's requests: `@name = value` variables, `###` between requests, `#` comments, headers to the first blank line, then the body. */
function parseHttp (text: string, set: Record<string, string>, files: Record<string, string>): HttpRequest[] {
  const [head = '', ...blocks] = text.split(/^###.*$/m)
  const variables: Record<string, string> = Object.fromEntries([...head.matchAll(/^@(\w+) = (.*)$/gm)].map(match => [match[1] as string, match[2] as string]))
  Object.assign(variables, set)
  const fill = (line: string): string => line.replace(/\{\{(\w+)\}\}/g, (_all, name: string) => {
    if (!(name in variables)) throw new Error(`no variable ${name}`)
    return variables[name] as string
  })
  return blocks.map(block => {
    const lines = block.split('\n').slice(1).filter((line, i, all) => !line.startsWith('#') || all.slice(0, i).some(before => /^[A-Z]+ /.test(before)))
    const [line = '', ...rest] = lines
    const [, method = '', url = ''] = /^([A-Z]+) (\S+)$/.exec(fill(line)) ?? []
    const blank = rest.indexOf('')
    const headers = (blank === -1 ? rest : rest.slice(0, blank)).map(header => {
      const [, name = '', value = ''] = /^([^:]+): ?(.*)$/.exec(fill(header)) ?? []
      return [name, value] as [string, string]
    })
    const bodyLines = blank === -1 ? [] : rest.slice(blank + 1)
    while (bodyLines.length > 0 && bodyLines[bodyLines.length - 1] === '') bodyLines.pop()
    const file = /^< \.\/(.+)$/.exec(bodyLines[0] ?? '')
    const body = bodyLines.length === 0 ? null : file === null ? fill(bodyLines.join('\n')) : files[file[1] as string] as string
    return { method, url, headers, body }
  })
}

/** Sends one request as an HTTP client of a .http file would (Basic user password encoded); its status. */
async function send ({ method, url, headers, body }: HttpRequest): Promise<number> {
  const sent = headers.map(([name, value]) => {
    const pair = /^Basic (\S+) (\S+)$/.exec(value)
    return [name, name === 'Authorization' && pair !== null ? basic(pair[1] as string, pair[2] as string) : value]
  })
  return await new Promise((resolve, reject) => {
    const req = request(url, { method, headers: Object.fromEntries(sent) }, res => { res.resume(); res.on('end', () => { resolve(res.statusCode as number) }) })
    req.on('error', reject)
    req.end(body ?? undefined)
  })
}

t.test('a journal replayed with curl and as a .http file gets the answers it got', { skip }, async t => {
  const first = await service(t)
  const { app } = first
  const { guid, token } = await newSession(app)
  const h = { 'x-challenger': guid }
  const json = { ...h, 'x-auth-token': token, 'content-type': 'application/json' }
  const sent: Array<[string, string, Record<string, string>?, (string | object)?]> = [
    ['POST', '/secret/token', { ...h, authorization: basic('admin', 'wrong') }],
    ['POST', '/secret/token', h],
    ['POST', '/secret/token', { ...h, authorization: token }],
    ['GET', '/heartbeat', h], ['DELETE', '/heartbeat', h], ['PATCH', '/heartbeat', h], ['TRACE', '/heartbeat', h],
    ['HEAD', '/heartbeat', h], ['OPTIONS', '/heartbeat', h], ['PUT', '/heartbeat', h],
    ['POST', '/heartbeat', { ...h, 'x-http-method-override': 'DELETE' }], ['POST', '/heartbeat', { ...h, 'x-http-method-override': 'PATCH' }],
    ['POST', '/heartbeat', { ...h, 'x-http-method-override': ' trace ' }], ['POST', '/heartbeat', { ...h, 'x-http-method-override': 'nonsense' }],
    ['POST', '/heartbeat', h, 'a body the heartbeat never reads'],
    ['GET', '/challenges?hints=true', h], ['GET', '/api/challenges', h],
    ['GET', '/secret/note', { ...h, 'x-auth-token': token }], ['GET', '/secret/note', { ...h, authorization: `Bearer ${token}` }],
    ['GET', '/secret/note', h], ['GET', '/secret/note', { ...h, 'x-auth-token': 'not-mine' }], ['GET', '/secret/note', { ...h, authorization: 'Bearer not-mine' }],
    ['GET', '/secret/note', { ...h, authorization: token }], ['HEAD', '/secret/note', { ...h, 'x-auth-token': token }],
    ['GET', '/secret/note', { ...h, 'x-auth-token': token, accept: 'application/xml' }], ['GET', '/api/secret/note', { ...h, 'x-auth-token': token, accept: 'text/xml' }],
    ['GET', '/secret/note', { ...h, 'x-auth-token': token, accept: 'image/png' }],
    ['POST', '/secret/note', json, { note: 'my words' }], ['POST', '/secret/note', { ...h, authorization: `Bearer ${token}`, 'content-type': 'application/json' }, { note: 'mine' }],
    ['POST', '/secret/note', json, { note: 'x'.repeat(150) }], ['POST', '/secret/note', { ...json, 'content-type': 'application/xml' }, '<secretnote><note>in XML</note></secretnote>'],
    ['POST', '/secret/note', { ...h, 'x-auth-token': token }, '{"note":"no type"}'], ['POST', '/secret/note', h, { note: 'no token' }],
    ['POST', '/secret/note', { ...json, 'x-auth-token': 'not-mine' }, { note: 'wrong token' }], ['POST', '/secret/note', json, '{"note":'],
    ['POST', '/secret/note', json, { notes: 'hi' }], ['POST', '/secret/note', { ...json, 'content-type': 'application/x-www-form-urlencoded' }, 'note=hi'],
    ['POST', '/secret/note', { ...json, 'content-type': 'application/xml' }, '<secretnote><note>'], ['POST', '/secret/note', { ...json, 'content-type': 'text/xml' }, '<secretnote/>'],
    ['POST', '/secret/note', json, { note: 'y'.repeat(20_000) }],
    ['GET', '/heartbeats', h], ['GET', '/api/heartbeat', h], ['GET', '/secret/notes?x=1&y=%20', h], ['GET', '/a$b!c\'d', h], ['GET', '/p"q', h],
    ['GET', `/challenger/${guid}`], ['PATCH', `/challenger/${guid}`, { 'content-type': 'application/json' }, { name: 'Ada' }],
    ['PATCH', `/challenger/${guid}`, { 'content-type': 'application/json' }, { name: '' }],
    ['PUT', `/challenger/${guid}`, { 'content-type': 'application/json' }, 'SAVED'], ['POST', '/challenger', h]
  ]
  const saved = (await app.inject({ method: 'GET', url: `/challenger/${guid}` })).body
  for (const [method, url, headers = {}, payload] of sent) await app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload === 'SAVED' ? saved : payload }) } as never)
  // The save above is in the journal too: every request that names the session is.
  const original = await journalOf(app, guid)
  t.equal(original.length, 2 + 1 + sent.length, 'the creation, the token, the save and every request sent')
  const expected = original.map(entry => entry.status)
  t.same(expected.filter(status => status >= 500).sort(), [500, 500, 501, 501], 'the heartbeat\'s 500s and 501s, nothing else')
  t.ok([200, 201, 204, 400, 401, 403, 404, 405, 406, 413, 415].every(status => expected.includes(status)), `a varied set: ${[...new Set(expected)].sort().join(', ')}`)

  const script = (await app.inject({ method: 'GET', url: `/challenger/${guid}/requests?format=curl` })).body
  const file = (await app.inject({ method: 'GET', url: `/challenger/${guid}/requests?format=http` })).body
  for (const text of [script, file]) for (const secret of [token, 'my words', 'in XML', Buffer.from('admin:password').toString('base64')]) t.notOk(text.includes(secret), `no ${secret}`)

  // A fresh service; a fresh session there, named as the script's header says (CHALLENGER, TOKEN, BASE).
  const fresh = await service(t)
  const there = await newSession(fresh.app)
  const before = (await journalOf(fresh.app, there.guid)).length
  const output = await run('/bin/bash', script, { BASE: fresh.address, CHALLENGER: there.guid, TOKEN: there.token })
  t.same(statuses(output), expected, 'with bash: each command answered as the journal says it was')
  // Its journal there: the same requests but the creation (which named no session); a restore reads the session first.
  const replayed = (await journalOf(fresh.app, there.guid)).slice(before)
  const named = original.filter(entry => entry.challengerHeader !== false || entry.path.includes(guid))
  const withSave = named.flatMap(entry => entry.method === 'PUT' && entry.path.includes(guid) ? [{ ...entry, method: 'GET', status: 200, body: undefined }, entry] : [entry])
  const shape = (entries: JournalView[], id: string): string[] => entries.map(e => `${e.method} ${e.path.replace(id, '<id>')}${e.query === undefined ? '' : `?${e.query}`} ${e.status} ${e.body ?? ''} ${e.authorization ?? ''} ${e.accept ?? ''} ${e.override ?? ''}`)
  t.same(shape(replayed, there.guid), shape(withSave, guid), 'the journal there reads as the journal here')

  // With sh and nothing set: the script makes its own session and reads its token (its first requests, to spare time).
  const firstSix = script.split(/\n(?=\n# 7\. )/)[0] as string
  const alone = await run('/bin/sh', firstSix, { BASE: fresh.address })
  t.same(statuses(alone), expected.slice(0, 6), 'with sh, in a session of its own: the same answers')
  const nowhere = script.replace('"${BASE}/challenger" | tr', '"${BASE}/nowhere" | tr') // eslint-disable-line no-template-curly-in-string
  t.match(await run('/bin/sh', nowhere, { BASE: fresh.address }).catch((error: Error) => error.message), /No session: POST .* made none/)
  t.match(await run('/bin/sh', script, { BASE: fresh.address, CHALLENGER: '6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b' }).catch((error: Error) => error.message), /No token: is 6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b a live session/)

  // The .http file: each request's method, URL and headers, as the journal says; sent, the same answers.
  const other = await newSession(fresh.app)
  const requests = parseHttp(file, { base: fresh.address, challenger: other.guid, token: other.token }, { 'too-large.txt': 'x'.repeat(16_385) })
  t.same(requests.map(r => `${r.method} ${r.url.replace(fresh.address, '').replace(other.guid, guid)}`),
    original.map(e => `${e.method} ${encodeURI(decodeURI(e.path))}${e.query === undefined ? '' : `?${e.query}`}`), 'each request\'s method and URL')
  const headersOf = (i: number): Record<string, string> => Object.fromEntries(requests[i]?.headers ?? [])
  for (const [i, entry] of original.entries()) {
    const headers = headersOf(i)
    t.equal(headers['X-CHALLENGER'], entry.challengerHeader === false ? undefined : other.guid, `${i}: X-CHALLENGER`)
    if (entry.tokenSource === 'x-auth-token') t.equal(headers['X-AUTH-TOKEN'], entry.token === 'valid' ? other.token : 'not-the-token', `${i}: X-AUTH-TOKEN`)
    if (entry.accept !== undefined) t.equal(headers.Accept, entry.accept === 'other' ? 'text/plain' : entry.accept, `${i}: Accept`)
    t.equal(headers['Content-Type'], entry.contentType ?? undefined, `${i}: Content-Type`)
  }
  t.equal(headersOf(1).Authorization, 'Basic admin password', 'the default credentials, as both clients take them')
  const answers: number[] = []
  for (const one of requests) answers.push(await send(one))
  t.same(answers, expected, 'sent, each answered as the journal says it was')
})

t.test('one line of the script pasted alone, after the walk-through\'s exports (CH, TOKEN), reaches this server (issue 58)', { skip }, async t => {
  const { app, address } = await service(t)
  const me = await newSession(app)
  await app.inject({ method: 'GET', url: '/secret/note', headers: { 'x-challenger': me.guid, 'x-auth-token': me.token } })
  await app.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': me.guid + 'x'.repeat(65) } })
  const script = (await app.inject({ method: 'GET', url: `/challenger/${me.guid}/requests?format=curl`, headers: { host: address.slice(7) } })).body
  const lines = script.split('\n').filter(line => line.startsWith('curl '))
  const read = lines.find(line => line.includes('/secret/note')) as string
  t.match(read, /^curl -sS -i "\$\{BASE:-http:\/\/127\.0\.0\.1:\d+\}\/secret\/note" -H "X-CHALLENGER: \$\{CHALLENGER:-\$CH\}" -H "X-AUTH-TOKEN: \$TOKEN"$/)
  // A terminal where BASE and CHALLENGER were never set: the line's defaults are this server and $CH.
  const output = await run('/bin/sh', read, { CH: me.guid, TOKEN: me.token })
  t.same(statuses(output), [200])
  t.notMatch(output, /% Total/, 'no progress meter (-s)')
  const tooLong = lines.find(line => line.includes('/heartbeat')) as string
  t.same(statuses(await run('/bin/sh', tooLong, { CH: me.guid })), [431], 'a 431 is replayed as one: the session id and 65 more characters')
})
