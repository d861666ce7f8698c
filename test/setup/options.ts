// Plugin options as a host passes them to register(): a misspelt option fails the registration
// with the valid names, and Fastify's own keys in the same object are accepted.
import { readFile } from 'node:fs/promises'
import Fastify, { type FastifyPluginAsync } from 'fastify'
import t from 'tap'
import app, { MemoryStore, type ApiChallengesOptions } from '../../src/app.js'
import { appSettings } from '../../src/domain/config/settings.js'

// The names a host may pass, in the order the message lists them.
const listed = 'the options are username, password, realm, noteMaxLength, bodyLimit, mode, sessionIdleMs, maxSessions, ' +
  'journalSize, creationRateLimit, basicGuessLimit, redisUrl, redisSentinels, redisSentinelMaster, redisSentinelPassword, redisPassword, ' +
  "redisTlsCa, redisTlsCert, redisTlsKey, redisKeyPrefix, redisWaitReplicas, docs, solutionLinks, adminToken, defects, store, drainSignal, behindProxy, and Fastify's own prefix, logLevel, logSerializers, name"

// Registering with keys the options type does not know, as a JavaScript host can.
const loose = app as FastifyPluginAsync<Record<string, unknown>>

t.test('a misspelt option fails the registration with the valid names and a guess', async t => {
  const host = Fastify()
  t.teardown(() => host.close())
  await t.rejects(async () => { await host.register(loose, { pasword: 'x' }) }, {
    message: `api-challenges: unknown option "pasword" (did you mean "password"?); ${listed}`
  })
})

t.test('docs/embedding.md quotes the message as it is, and its table of options names each option once, with its default', async t => {
  const doc = await readFile(new URL('../../docs/embedding.md', import.meta.url), 'utf8')
  t.ok(doc.includes(`\napi-challenges: unknown option "pasword" (did you mean "password"?); ${listed}\n`), 'the message, word for word')
  t.same(listed.slice('the options are '.length, listed.indexOf(', and Fastify')).split(', '), Object.keys(appSettings), 'the message lists the table of settings')
  // Each row under "## Options": `name` or `name`, `name`, then the default of each (`value`, or words for none).
  const table = doc.slice(doc.indexOf('\n## Options\n'), doc.indexOf('**Options are checked'))
  const shown = new Map<string, string | undefined>()
  for (const [, names = '', cell = ''] of table.matchAll(/^\| ([^|]+) \| ([^|]+) \|/gm)) {
    const named = [...names.matchAll(/`(\w+)`/g)].map(name => name[1] as string)
    const cells = named.length === 1 ? [cell] : cell.split(', ')
    named.forEach((name, i) => shown.set(name, /`([^`]+)`/.exec(cells[i] ?? '')?.[1]))
  }
  t.same([...shown.keys()].sort(), Object.keys(appSettings).sort(), 'a row for each option')
  for (const [name, setting] of Object.entries(appSettings)) {
    if (setting.default !== undefined) t.equal(shown.get(name), String(setting.default), `${name}'s default`)
  }
  // "Each option but `realm`, `store` and `drainSignal` is also an environment variable".
  const but = /Each option but (.*?) is also an environment variable/s.exec(doc)?.[1] ?? ''
  t.same([...but.matchAll(/`(\w+)`/g)].map(name => name[1]), Object.entries(appSettings).filter(([, setting]) => setting.env === undefined).map(([name]) => name),
    'the options without a variable')
})

t.test('the guess is the nearest name (two letters swapped count as one edit), ignores case, covers Fastify\'s keys, and is left out when nothing is near', async t => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ maxsessions: 10 }, 'unknown option "maxsessions" (did you mean "maxSessions"?)'],
    [{ sessionIdle: 10 }, 'unknown option "sessionIdle" (did you mean "sessionIdleMs"?)'],
    [{ redisURL: 'redis://x' }, 'unknown option "redisURL" (did you mean "redisUrl"?)'],
    [{ prefx: '/p' }, 'unknown option "prefx" (did you mean "prefix"?)'],
    [{ doc: false }, 'unknown option "doc" (did you mean "docs"?)'],
    [{ dcos: false }, 'unknown option "dcos" (did you mean "docs"?)'],
    [{ config: {} }, 'unknown option "config";'],
    [{ port: 3000 }, 'unknown option "port";'],
    [{ trustProxy: true, pasword: 'x' }, 'unknown options "trustProxy", "pasword" (did you mean "password"?);']
  ]
  for (const [options, expected] of cases) {
    const host = Fastify()
    const error = await host.register(loose, options).then(() => undefined, (error: Error) => error)
    t.equal(error?.message.slice(0, `api-challenges: ${expected}`.length), `api-challenges: ${expected}`, JSON.stringify(options))
    await host.close()
  }
})

t.test('options given as a function are checked the same way', async t => {
  const host = Fastify()
  t.teardown(() => host.close())
  await t.rejects(async () => { await host.register(loose, () => ({ prefix: '/p', noteMaxLenght: 5 })) }, {
    message: /^api-challenges: unknown option "noteMaxLenght" \(did you mean "noteMaxLength"\?\);/
  })
})

t.test('a misspelt option in a register() that is not awaited fails ready()', async t => {
  const host = Fastify()
  t.teardown(() => host.close())
  host.register(loose, { usrname: 'me' })
  await t.rejects(async () => { await host.ready() }, { message: /^api-challenges: unknown option "usrname" \(did you mean "username"\?\);/ })
})

t.test('Fastify\'s own keys and every option of ours are accepted together, and take effect', async t => {
  const lines: string[] = []
  const host = Fastify({ logger: { level: 'info', stream: { write: (line: string) => { lines.push(line) } } } })
  t.teardown(() => host.close())
  // Every option of ours: the type would not compile with one left out. But Sentinel's and TLS's,
  // which do not go with redisUrl or need real certificates: test/redis-connection.test.ts.
  const every: Required<Omit<ApiChallengesOptions, 'redisSentinels' | 'redisSentinelMaster' | 'redisSentinelPassword' | 'redisPassword' | 'redisTlsCa' | 'redisTlsCert' | 'redisTlsKey'>> = {
    username: 'teacher',
    password: 'course-secret',
    realm: 'course',
    noteMaxLength: 3,
    bodyLimit: 1000,
    defects: [],
    mode: 'multi',
    sessionIdleMs: 60_000,
    maxSessions: 10,
    journalSize: 5,
    creationRateLimit: 5,
    basicGuessLimit: 2,
    // Never connected to: a store of our own takes precedence over Redis.
    redisUrl: 'redis://127.0.0.1:1',
    redisKeyPrefix: 'course:',
    redisWaitReplicas: 1,
    docs: false,
    solutionLinks: false,
    adminToken: 'an-instructor-token-0123',
    store: new MemoryStore(),
    // Not aborted: test/http/shutdown.ts drains.
    drainSignal: new AbortController().signal,
    // The host below trusts no proxy: the check of a forwarded client is attached, and finds the socket's address.
    behindProxy: true
  }
  // `name` is avvio's, outside Fastify's RegisterOptions type, hence the loose plugin type.
  await host.register(loose, { ...every, prefix: '/practice', logLevel: 'error', logSerializers: { req: () => 'r' }, name: 'practice' })
  await host.ready()

  t.equal((await host.inject({ method: 'GET', url: '/practice/heartbeat' })).statusCode, 204, 'under the prefix')
  t.equal((await host.inject({ method: 'GET', url: '/practice/docs/json' })).statusCode, 404, 'docs: false')
  const guid = (await host.inject({ method: 'POST', url: '/practice/challenger' })).headers['x-challenger'] as string
  const refused = await host.inject({
    method: 'POST',
    url: '/practice/secret/token',
    headers: { 'x-challenger': guid, authorization: 'Basic ' + Buffer.from('admin:password').toString('base64') }
  })
  t.equal(refused.headers['www-authenticate'], 'Basic realm="course"', 'realm, and the default credentials are refused')
  const token = (await host.inject({
    method: 'POST',
    url: '/practice/secret/token',
    headers: { 'x-challenger': guid, authorization: 'Basic ' + Buffer.from('teacher:course-secret').toString('base64') }
  })).headers['x-auth-token'] as string
  const note = await host.inject({ method: 'POST', url: '/practice/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token }, payload: { note: 'abcdef' } })
  t.same(note.json(), { note: 'abc' }, 'noteMaxLength')
  const guess = async () => (await host.inject({ method: 'POST', url: '/practice/secret/token', headers: { authorization: 'Basic ' + Buffer.from('teacher:guess').toString('base64') } })).statusCode
  t.same([await guess(), await guess()], [401, 429], 'basicGuessLimit: 2 wrong credentials from the client, then 429')
  t.equal(lines.filter(line => /"msg":"incoming request"/.test(line)).length, 0, 'logLevel: error silences the request logs under the prefix')
  t.match(host.printPlugins(), /practice/, 'avvio names the plugin after `name`')
  const board = await host.inject({ method: 'GET', url: '/practice/admin/summary', headers: { authorization: 'Bearer an-instructor-token-0123' } })
  t.equal(board.statusCode, 200, 'adminToken: the board answers to it under the prefix')
  const progress = (await host.inject({ method: 'GET', url: `/practice/gui/challenges/${guid}` })).body
  t.match(progress, 'How to pass it', 'the progress page')
  t.notMatch(progress, /class="solution"|apichallenges\.com/, 'solutionLinks: false, and it links to no solution')
})
