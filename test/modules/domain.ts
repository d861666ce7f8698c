// The plain modules, without HTTP: truncation, the catalogue, secrets, options, configuration, store,
// and the deadline a script that may write carries (src/domain/sessions/redis/clock.ts): Redis's clock as
// measured by the probes, moved earlier by what is not known exactly.
import t from 'tap'
import { bitFor, challenges, checkedCatalogue, isPassed, type Challenge, type Trigger } from '../../src/domain/challenges/catalogue.js'
import { configFromEnv, ConfigError } from '../../src/domain/config/config.js'
import { BadCursorError, BadXmlBodyError, ERROR_CODES, StoreUnavailableError, UnreachableChallengeError } from '../../src/domain/http/errors.js'
import { newGuid, newToken, TOKEN_PATTERN } from '../../src/domain/sessions/ids.js'
import { worstSessionBytes } from '../../src/domain/journal/journal.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { detached } from '../../src/domain/sessions/truncate.js'
import { defaults, journalMemory, resolveOptions } from '../../src/domain/config/options.js'
import { GUARD_MS, RedisClock } from '../../src/domain/sessions/redis/clock.js'
import { safeEqual } from '../../src/domain/sessions/secrets.js'
import { truncate } from '../../src/domain/sessions/truncate.js'

t.test('truncate counts code points and never splits a surrogate pair', async t => {
  t.equal(truncate('', 3), '')
  t.equal(truncate('abc', 3), 'abc')
  t.equal(truncate('abcd', 3), 'abc')
  t.equal(truncate('😀😀😀😀', 3), '😀😀😀')
  t.equal(truncate('ab😀c', 3), 'ab😀')
  t.equal(truncate('a😀😀', 2), 'a😀')
  t.equal(truncate('😀😀', 2), '😀😀', 'four UTF-16 units, two code points: nothing cut')
  t.equal(truncate('a\ud800bcd', 3), 'a\ud800b', 'a lone high surrogate counts as one')
  t.equal(truncate('\ud800\ud800\ud800\ud800', 2), '\ud800\ud800')
  t.equal(truncate('é'.repeat(200), 100), 'é'.repeat(100))
})

t.test('the catalogue', async t => {
  const ids = challenges.map(c => c.id)
  t.same(ids, [...ids].sort((a, b) => a - b), 'in id order')
  t.equal(new Set(challenges.map(c => c.trigger)).size, challenges.length, 'one trigger per challenge')
  t.ok(challenges.length <= 31, 'progress fits in one small integer')
  t.equal(bitFor('GET /heartbeat'), 1 << 5)
  // Each challenge keeps the bit it has always had (its place in the first catalogue), so that
  // stored progress, in memory or in Redis, means the same after any change to the list: the
  // first nineteen, by id, with the bits they had then (a new challenge adds its own).
  const first = [1, 2, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 40, 41, 42]
  t.same(first.map(id => challenges.find(c => c.id === id)?.bit), first.map((_id, at) => at))
  t.throws(() => bitFor('HEAD /heartbeat' as Trigger), /no challenge is passed by "HEAD \/heartbeat"/, 'a trigger no challenge has is a mistake')
  const template = challenges[0] as Challenge
  t.throws(() => checkedCatalogue([template, { ...template, id: 99, referenceName: 'X', trigger: 'GET /heartbeat' }]), /bit 0 used twice/)
  t.throws(() => checkedCatalogue([template, { ...template, bit: 1 }]), /id 1 used twice/)
  t.throws(() => checkedCatalogue([{ ...template, bit: 31 }]), /challenge 1 has bit 31; bits go from 0 to 30/)
  t.throws(() => checkedCatalogue([{ ...template, bit: 1.5 }]), /bits go from 0 to 30/)
  const later = { ...template, id: 40, bit: 1, referenceName: 'X', trigger: 'GET /heartbeat' as Trigger }
  t.throws(() => checkedCatalogue([later, template]), /challenge 1 comes after a higher id/, 'the list is in id order')
  t.equal(checkedCatalogue([template, later]).length, 2)
  const byId = (id: number) => challenges.find(c => c.id === id) as Challenge
  t.ok(isPassed(bitFor('TRACE /heartbeat'), byId(27)))
  t.notOk(isPassed(bitFor('TRACE /heartbeat'), byId(26)))
  t.throws(() => { (challenges as unknown as unknown[]).push({}) }, TypeError, 'frozen')
  t.equal(challenges.find(c => c.id === 41)?.name, 'POST /heartbeat as PATCH (500)')
})

t.test('safeEqual', async t => {
  t.ok(safeEqual('abc', 'abc'))
  t.notOk(safeEqual('abd', 'abc'))
  t.notOk(safeEqual('ab', 'abc'))
  t.notOk(safeEqual('abcd', 'abc'))
  t.notOk(safeEqual('', 'abc'))
  t.ok(safeEqual('wörd', 'wörd'))
  t.notOk(safeEqual('wörd', 'word'))
  t.notOk(safeEqual('abc\u0000', 'abc'))
  t.notOk(safeEqual('ab', 'ab\u0000'), 'a shorter given is not padded into a match')
  t.ok(safeEqual('', ''))
  t.notOk(safeEqual('a', ''))
  t.ok(safeEqual('k🔑y', 'k🔑y'))
  t.notOk(safeEqual('k🔑y', 'k🔒y'))
  const long = 'x'.repeat(300) + 'end'
  t.ok(safeEqual(long, long), 'a long secret')
  t.notOk(safeEqual(long.slice(0, -1) + 'E', long))
  t.notOk(safeEqual('a\uD800', 'a\uDBFF'), 'lone surrogates compare as JavaScript compares them')
})

t.test('resolveOptions merges defaults without touching the caller and refuses bad values', async t => {
  t.same(resolveOptions(), { ...defaults, store: undefined })
  const mine = { noteMaxLength: 5 }
  const resolved = resolveOptions(mine)
  t.equal(resolved.noteMaxLength, 5)
  t.equal(resolved.username, 'admin')
  t.same(mine, { noteMaxLength: 5 }, 'the caller\'s object is unchanged')
  t.throws(() => resolveOptions({ noteMaxLength: 0 }), { message: 'api-challenges: option noteMaxLength must be a whole number of at least 1, got 0' })
  t.throws(() => resolveOptions({ journalSize: 101 }), { message: 'api-challenges: option journalSize must be at most 100, got 101' })
  t.throws(() => resolveOptions({ journalSize: -1 }), { message: 'api-challenges: option journalSize must be a whole number of at least 0, got -1' })
  t.equal(resolveOptions({ journalSize: 0 }).journalSize, 0)
  t.throws(() => resolveOptions({ bodyLimit: 1.5 }), /bodyLimit must be a whole number of at least 1/)
  t.throws(() => resolveOptions({ bodyLimit: '10' as unknown as number }), /bodyLimit must be a whole number of at least 1, got "10"/)
  t.throws(() => resolveOptions({ username: 'a:b' }), /option username must be/)
  t.throws(() => resolveOptions({ username: '' }), /option username must be/)
  t.throws(() => resolveOptions({ password: 'a\nb' }), /option password must be/)
  t.throws(() => resolveOptions({ realm: 'a"b' }), /option realm must be/)
  t.throws(() => resolveOptions({ mode: 'solo' as 'single' }), { message: 'api-challenges: option mode must be one of multi, single, got "solo"' })
  t.throws(() => resolveOptions({ maxSessions: 0 }), /option maxSessions must be a whole number of at least 1/)
  t.throws(() => resolveOptions({ creationRateLimit: -1 }), /option creationRateLimit must be a whole number of at least 0/)
  t.equal(resolveOptions({ creationRateLimit: 0 }).creationRateLimit, 0)
  t.equal(resolveOptions({ redisUrl: 'rediss://cache:6380' }).redisUrl, 'rediss://cache:6380')
  t.throws(() => resolveOptions({ redisUrl: 'http://cache' }), /option redisUrl must be a redis:\/\/ or rediss:\/\/ URL/)
  t.throws(() => resolveOptions({ redisKeyPrefix: 'has space' }), /option redisKeyPrefix must be/)
  const refused = ((): unknown => { try { return resolveOptions({ noteMaxLength: 0 }) } catch (error) { return error } })()
  t.type(refused, TypeError, 'a TypeError, as before the codes')
  t.match(refused, { name: 'TypeError', code: 'APICH_OPTION', statusCode: undefined })
})

t.test('the service\'s own errors each have a stable code of their own, and keep their names and messages', async t => {
  const codes = Object.values(ERROR_CODES)
  t.equal(new Set(codes).size, codes.length, 'no code is used twice')
  t.ok(codes.every(code => /^APICH_[A-Z_]+$/.test(code)), 'all APICH_, apart from Fastify\'s FST_ERR_')
  const cause = new Error('ECONNREFUSED')
  const down = new StoreUnavailableError(cause)
  t.match(down, { name: 'StoreUnavailableError', code: 'APICH_STORE_UNAVAILABLE', statusCode: 503, message: 'The session store is unavailable; try again shortly' })
  t.equal(down.cause, cause, 'what made the store unavailable, for the log')
  t.ok(down instanceof StoreUnavailableError && down instanceof Error)
  t.notOk(new BadCursorError() instanceof StoreUnavailableError, 'each class knows its own')
  t.match(new BadCursorError(), { name: 'BadCursorError', code: 'APICH_BAD_CURSOR', statusCode: 400, message: /^The cursor is not one that GET \/admin\/sessions gave/ })
  const xml = new BadXmlBodyError('A DOCTYPE is not allowed in the body (100%s)', { cause })
  t.match(xml, { name: 'BadXmlBodyError', code: 'APICH_BAD_XML_BODY', statusCode: 400, message: 'A DOCTYPE is not allowed in the body (100%s)' }, 'the parser\'s message as it was')
  t.equal(xml.cause, cause)
  t.match(new UnreachableChallengeError('"GET /x" (challenge 39)'), { code: 'APICH_UNREACHABLE_CHALLENGE', message: 'api-challenges: no route reports "GET /x" (challenge 39)' })
  t.throws(() => bitFor('HEAD /heartbeat' as Trigger), { code: 'APICH_UNKNOWN_TRIGGER', name: 'Error' })
  const template = challenges[0] as Challenge
  t.throws(() => checkedCatalogue([template, template]), { code: 'APICH_CATALOGUE', message: 'catalogue: id 1 used twice' })
})

t.test('configFromEnv reads the environment and names a bad variable', async t => {
  t.same(configFromEnv({}), { port: 3000, host: '127.0.0.1', logLevel: 'info', trustProxy: false, app: {} })
  t.same(configFromEnv({ PORT: '8080', HOST: '0.0.0.0', LOG_LEVEL: 'warn', TRUST_PROXY: '1', AUTH_USERNAME: 'u', AUTH_PASSWORD: 'p', NOTE_MAX_LENGTH: '50', BODY_LIMIT: '1024' }), {
    port: 8080,
    host: '0.0.0.0',
    logLevel: 'warn',
    trustProxy: 1,
    app: { username: 'u', password: 'p', noteMaxLength: 50, bodyLimit: 1024 }
  })
  t.same(configFromEnv({ MODE: 'single', SESSION_IDLE_MS: '60000', MAX_SESSIONS: '10', CREATION_RATE_LIMIT: '0', DOCS: 'false' }).app,
    { mode: 'single', sessionIdleMs: 60000, maxSessions: 10, creationRateLimit: 0, docs: false })
  t.equal(configFromEnv({ DOCS: 'true' }).app.docs, true)
  t.same(configFromEnv({ REDIS_URL: 'redis://127.0.0.1:6379/2', REDIS_PREFIX: 'a:' }).app, { redisUrl: 'redis://127.0.0.1:6379/2', redisKeyPrefix: 'a:' })
  t.same(configFromEnv({ PORT: '', HOST: '' }), { port: 3000, host: '127.0.0.1', logLevel: 'info', trustProxy: false, app: {} }, 'empty counts as unset')
  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /^PORT must be a whole number from 0 to 65535, got "abc"$/],
    [{ PORT: '70000' }, /^PORT must be/],
    [{ PORT: '-1' }, /^PORT must be/],
    [{ PORT: '1e3' }, /^PORT must be/],
    [{ NOTE_MAX_LENGTH: '0' }, /^NOTE_MAX_LENGTH must be/],
    [{ BODY_LIMIT: '10kb' }, /^BODY_LIMIT must be/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"$/],
    [{ AUTH_USERNAME: 'a:b' }, /^AUTH_USERNAME must not contain ":"$/],
    [{ MAX_SESSIONS: 'abc' }, /^MAX_SESSIONS must be a whole number from 1 to 100000000, got "abc"$/],
    [{ JOURNAL_SIZE: '101' }, /^JOURNAL_SIZE must be a whole number from 0 to 100, got "101"$/],
    [{ SESSION_IDLE_MS: '0' }, /^SESSION_IDLE_MS must be/],
    [{ CREATION_RATE_LIMIT: '-1' }, /^CREATION_RATE_LIMIT must be/],
    [{ MODE: 'solo' }, /^MODE must be multi or single, got "solo"$/],
    [{ DOCS: 'no' }, /^DOCS must be true or false, got "no"$/]
  ]
  for (const [env, message] of bad) t.throws(() => configFromEnv(env), { name: 'ConfigError', code: 'APICH_CONFIG', message }, JSON.stringify(env))
  t.type(new ConfigError('x'), Error)
})

t.test('in memory, MAX_SESSIONS full journals of a stranger\'s requests must fit in the heap limit', async t => {
  // The session, the journal and its array, 64 bytes an entry, and the journal's room for texts (test/journal/journal-entries.ts).
  t.equal(worstSessionBytes(20), 2_020)
  t.equal(worstSessionBytes(0), 300)
  t.equal(journalMemory(100_000, 20, 2 ** 30), undefined, 'the defaults fit in 1 GiB')
  t.equal(journalMemory(100_000, 100, 2 ** 30), undefined, 'so does the largest journal')
  t.same(journalMemory(1_000_000, 100, 4 * 2 ** 30), { largest: 48, bytes: 1_000_000 * worstSessionBytes(100) })
  t.ok(1_000_000 * worstSessionBytes(48) <= 4 * 2 ** 30 && 1_000_000 * worstSessionBytes(49) > 4 * 2 ** 30, '48 is the largest that fits')
  t.same(journalMemory(10, 20, 1000), { largest: 0, bytes: 20_200 })
  t.equal(journalMemory(100_000_000, 0, 1), undefined, 'no journal: nothing for a stranger to fill')

  // A hundred million sessions with journals of 20 would need 188 GiB: more than any heap limit.
  t.throws(() => configFromEnv({ MAX_SESSIONS: '100000000' }), {
    name: 'ConfigError',
    message: /^JOURNAL_SIZE=20 with MAX_SESSIONS=100000000: full journals of a stranger's requests could take 192,643 MiB, more than this process's heap limit of [\d,]+ MiB; set JOURNAL_SIZE to at most 0 \(0: no journal\), lower MAX_SESSIONS, or raise the limit \(NODE_OPTIONS=--max-old-space-size=<MiB>\)$/
  })
  t.throws(() => configFromEnv({ MAX_SESSIONS: '10000000', JOURNAL_SIZE: '100' }), { name: 'ConfigError', message: /^JOURNAL_SIZE=100 with MAX_SESSIONS=10000000: / })
  t.equal(configFromEnv({ MAX_SESSIONS: '100000000', JOURNAL_SIZE: '0' }).app.maxSessions, 100_000_000, 'without a journal')
  t.equal(configFromEnv({ MAX_SESSIONS: '100000000', REDIS_URL: 'redis://127.0.0.1:6379' }).app.maxSessions, 100_000_000, 'with Redis the journals are not in this process')
  t.equal(configFromEnv({ MAX_SESSIONS: '1000000' }).app.maxSessions, 1_000_000, 'a million sessions with journals of 20: 2 GB')
  t.throws(() => resolveOptions({ maxSessions: 100_000_000 }), {
    name: 'TypeError',
    message: /^api-challenges: option journalSize 20 with maxSessions 100000000: full journals of a stranger's requests could take 192,643 MiB, more than the heap limit of [\d,]+ MiB; journalSize may be at most \d+ with that many sessions$/
  })
  t.equal(resolveOptions({ maxSessions: 100_000_000, journalSize: 0 }).maxSessions, 100_000_000)
  t.equal(resolveOptions({ maxSessions: 100_000_000, redisUrl: 'redis://127.0.0.1:6379' }).maxSessions, 100_000_000)
  t.equal(resolveOptions({ maxSessions: 100_000_000, store: new MemoryStore() }).maxSessions, 100_000_000, 'a store of the host\'s brings its own journal size')
})

t.test('MemoryStore counts its sessions and empties on close (the rest: test/store-behaviour.ts)', async t => {
  const store = new MemoryStore()
  await store.create()
  await store.create()
  t.equal(store.size, 2)
  await store.close()
  t.equal(store.size, 0)
})

t.test('guids are random version 4 UUIDs and tokens 128 random bits', async t => {
  const guids = new Set<string>()
  const tokens = new Set<string>()
  // Over a thousand draws, so the batch of entropy is refilled several times.
  for (let i = 0; i < 1200; i++) {
    guids.add(newGuid())
    tokens.add(newToken())
  }
  t.equal(guids.size, 1200)
  t.equal(tokens.size, 1200)
  t.same([...guids].filter(guid => !/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(guid)), [])
  t.same([...tokens].filter(token => !TOKEN_PATTERN.test(token)), [])
  // Each hex digit of the tokens turns up about equally often: a stuck or skewed source would not.
  const counts = new Map<string, number>()
  for (const token of tokens) for (const digit of token) counts.set(digit, (counts.get(digit) ?? 0) + 1)
  t.equal(counts.size, 16)
  for (const [digit, count] of counts) t.ok(count > 2000 && count < 2800, `${digit}: ${count} of 38400`)
})

t.test('detached copies text exactly, lone surrogates included', async t => {
  for (const text of ['', 'plain', 'é😀<&>"\'', '\ud800x\udfff', 'x'.repeat(200).slice(50, 150)]) {
    t.equal(detached(text), text)
  }
})

// The Redis clock (src/domain/sessions/redis/clock.ts).

t.test('no deadline until a probe has measured the clock, and none after a new connection', async t => {
  let now = 1_000_000
  const clock = new RedisClock(() => now)
  t.equal(clock.deadline(1000), '')
  // Sent at 1000000, answered 10 ms later; Redis said 5001005 at about 1000005: Redis is 4001000 ahead.
  clock.measured(now, now + 10, 5_001_005)
  now += 10
  t.equal(clock.deadline(1000), String(1_000_010 + 4_001_000 + 1000 - 5 - GUARD_MS), 'our time, the offset and the timeout, less half the round trip and the guard')
  clock.forget()
  t.equal(clock.deadline(1000), '')
})

t.test('a measurement with a shorter round trip replaces the kept one at once, a longer one only once the kept one is 30 s old', async t => {
  let now = 0
  const clock = new RedisClock(() => now)
  clock.measured(0, 20, 1010) // offset 1000, within 10
  clock.measured(100, 300, 1200 + 500) // offset 1500, within 100: worse, kept is fresh
  t.equal(clock.deadline(0), String(1000 - 10 - GUARD_MS))
  clock.measured(400, 404, 402 + 2000) // offset 2000, within 2: better
  t.equal(clock.deadline(0), String(2000 - 2 - GUARD_MS))
  now = 30_500
  clock.measured(30_404, 30_604, 30_504 + 3000) // worse, but the kept one is over 30 s old
  t.equal(clock.deadline(0), String(30_500 + 3000 - 100 - GUARD_MS))
})
