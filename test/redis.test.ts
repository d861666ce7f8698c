// Sessions in Redis: the shared registry behaviour, expiry by activity score and its sweeps, key
// prefixes, two instances as one service, and Redis going away and coming back with nothing lost.
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { once } from 'node:events'
import { createServer as createTcpServer, type AddressInfo } from 'node:net'
import t from 'tap'
import { HUNT_SIZE } from '../src/domain/defects/catalogue.js'
import { entryAround, entryId, type JournalEntry } from '../src/domain/journal/journal.js'
import { guidOf, JOURNAL_SPARE_MS, RedisStore, sessionId, StoreUnavailableError } from '../src/domain/sessions/redis-store.js'
import { EXPIRED_KEPT, type Session } from '../src/domain/sessions/store.js'
import { createServer } from '../src/server.js'
import { basic } from './helper.js'
import { NAME_A_SESSION } from '../src/domain/challenges/messages.js'
import { redisMissing, redisServer, type RedisServer } from './redis-server.js'
import { gradeRunsBehaviour } from './grade-runs-behaviour.js'
import { storeBehaviour } from './store-behaviour.js'
import { until } from './until.js'

const json = { 'content-type': 'application/json' }

if (redisMissing !== false && process.env.CI === 'true') {
  t.fail(redisMissing)
} else {
  t.test('Redis', { skip: redisMissing }, async t => {
    const redis: RedisServer = await redisServer()
    t.teardown(() => redis.remove())
    let prefixes = 0
    const prefix = (): string => `test${++prefixes}:`
    const store = (maxSessions = 100_000, idleMs = 600_000, keyPrefix = prefix()): RedisStore =>
      new RedisStore({ url: redis.url, prefix: keyPrefix, maxSessions, idleMs })
    // Until it is connected: a failed attempt on the way (an 'error', which would reject once()) is no failure.
    // Connected, and done with what a connection does first (INFO, a probe).
    const ready = async (s: RedisStore): Promise<RedisStore> => {
      while (!s.available()) {
        await once(s.client, 'ready').catch(() => {})
        await s.connected()
      }
      return s
    }

    // Redis's own clock, in ms: the one activity scores are made from.
    const redisNow = async (s: RedisStore): Promise<number> => {
      const [seconds, micros] = await s.client.time()
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)
    }

    t.test('the registry behaviour, in Redis', async t => {
      storeBehaviour(t, async maxSessions => await ready(store(maxSessions)))
    })

    t.test('grading runs, in Redis', async t => {
      gradeRunsBehaviour(t, async () => await ready(store()))
    })

    t.test('a session\'s id: its UUID in 22 characters that sort as the UUIDs do; any other guid as it is', async t => {
      const guids = ['00000000-0000-4000-8000-000000000000', '0123abcd-4567-4ef0-89ab-cdef01234567', 'fedcba98-7654-4321-8fed-cba987654321', 'ffffffff-ffff-ffff-ffff-ffffffffffff']
      const ids = guids.map(sessionId)
      t.same(ids.map(id => id.length), [22, 22, 22, 22])
      t.same(ids.map(guidOf), guids, 'and back')
      t.same([...ids].sort(), ids, 'in the order of their guids')
      // Hex 000 000 000 000 400 080 000 …: eight '-' (0), 0x400 = 16·64 'F-', 0x080 = 2·64 '1-', then '-' to the end.
      t.equal(sessionId('00000000-0000-4000-8000-000000000000'), '--------F-1-----------')
      for (const other of ['not-a-uuid', '0123ABCD-4567-4ef0-89ab-cdef01234567', '0123abcd-4567-4ef0-89ab-cdef0123456g', '0123abcd_4567-4ef0-89ab-cdef01234567', '0123abcd-4567-4ef0-89ab-cdef0123456é', '0123abcd-4567-4ef0-89ab-cdef01234-67']) {
        t.equal(sessionId(other), `=${other}`)
        t.equal(guidOf(sessionId(other)), other)
      }
    })

    t.test('<prefix>light holds the named sessions not at work; an entry left there by an instance that does not keep it makes no session at work make room', async t => {
      const s = await ready(new RedisStore({ url: redis.url, prefix: 'test-light:', maxSessions: 2, idleMs: 600_000, probeIntervalMs: 3_600_000 }))
      t.teardown(() => s.close())
      const light = async (): Promise<string[]> => (await s.client.zrange('test-light:light', 0, -1)).map(guidOf)
      const a = await s.create()
      t.same(await light(), [], 'unused: in new only')
      await s.get(a.guid)
      t.same(await light(), [a.guid], 'named, nothing more')
      await s.update(a.guid, { note: 'mine' })
      t.same(await light(), [], 'at work')
      const b = await s.create()
      await s.get(b.guid)
      // An older instance writes a note without taking b out of light, and a session it dropped stays there.
      const packed = await s.client.hget('test-light:sessions', sessionId(b.guid)) as string
      await s.client.hset('test-light:sessions', sessionId(b.guid), `${packed}theirs`)
      await s.client.zadd('test-light:light', 0, sessionId('6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b'))
      await t.rejects(s.create(), { name: 'SessionsFullError', statusCode: 503 })
      t.same(await light(), [], 'both stale entries cleared')
      t.same([(await s.get(a.guid))?.note, (await s.get(b.guid))?.note], ['mine', 'theirs'], 'and both sessions at work kept')
    })

    t.test('Redis expires idle sessions by their activity score, and sweeps them; a pinned session is not in the index', async t => {
      const s = await ready(new RedisStore({ url: redis.url, prefix: 'ttl:', maxSessions: 100, idleMs: 5000, probeIntervalMs: 3_600_000 }))
      t.teardown(() => s.close())
      const entry: JournalEntry = { at: 1, method: 'GET', path: '/heartbeat', status: 204, contentType: null, passed: 0, hint: -1, suggestion: null }
      const a = await s.create()
      const id = sessionId(a.guid)
      // Idle for `ms`: the score moved back in whichever index holds the session (new until its first lookup, then lru).
      const idleFor = async (ms: number, ...guids: string[]): Promise<void> => {
        const at = (await redisNow(s) - ms) * 1024
        for (const [i, guid] of guids.entries()) {
          const index = await s.client.zscore('ttl:new', sessionId(guid)) === null ? 'ttl:lru' : 'ttl:new'
          await s.client.zadd(index, at + i, sessionId(guid))
        }
      }
      await idleFor(4000, a.guid)
      t.equal((await s.get(a.guid))?.token, a.token, 'idle for less than the idle time: live')
      t.ok(Number(await s.client.zscore('ttl:lru', id)) >= (await redisNow(s) - 1000) * 1024, 'and the lookup made it active now')
      await s.record(a.guid, entry)
      await idleFor(6000, a.guid)
      t.equal(await s.get(a.guid), undefined, 'idle past the idle time: gone')
      t.equal(await s.client.hexists('ttl:sessions', id), 0, 'removed at that lookup')
      t.equal(await s.client.exists(`ttl:j:${id}`), 0, 'its journal with it')
      t.equal(await s.client.zscore('ttl:lru', id), null)
      t.equal(await s.expiredRecently(a.guid), true, 'and remembered as ended')
      t.ok(Math.abs(Number(await s.client.zscore('ttl:ended', id)) - await redisNow(s)) < 1000, 'by when it ended, in ms by Redis\'s clock')
      // Expired and never looked up again: a creation sweeps two, the oldest first; a probe the rest.
      const idle = [await s.create(), await s.create(), await s.create()]
      await idleFor(6000, ...idle.map(r => r.guid))
      await s.create()
      t.same(await Promise.all(idle.map(async r => await s.client.hexists('ttl:sessions', sessionId(r.guid)))), [0, 0, 1], 'a creation sweeps two')
      await s.probe()
      t.equal(await s.client.hexists('ttl:sessions', sessionId((idle[2] as { guid: string }).guid)), 0, 'a probe sweeps the rest')
      t.same(await Promise.all(idle.map(async r => await s.expiredRecently(r.guid))), [true, true, true], 'each remembered as ended')
      t.same([await s.client.zcard('ttl:lru'), await s.client.zcard('ttl:new')], [0, 1], 'the one made last is left, unused')
      // Pinned: not in the index, so never expired; its journal has no TTL.
      await s.restore({ guid: a.guid, token: a.token, note: '', progress: 0 }, { pinned: true })
      t.equal(await s.client.zscore('ttl:lru', id), null)
      await s.get(a.guid)
      t.equal(await s.client.zscore('ttl:lru', id), null, 'a lookup does not list it')
      await s.record(a.guid, entry)
      t.equal(await s.client.pttl(`ttl:j:${id}`), -1)
      await s.create()
      t.equal((await s.get(a.guid))?.token, a.token)
      const keys = await s.client.keys('*')
      t.same(keys.filter(key => !key.startsWith('ttl:') && !key.startsWith('test')), [], 'every key carries a prefix')
      t.same(keys.filter(key => key.startsWith('ttl:')).sort(), ['ttl:ended', 'ttl:j:' + id, 'ttl:new', 'ttl:sessions'], 'one hash for every session, not a key each')
      t.equal(await s.expiredRecently(a.guid), true, 'restored, a session is still remembered as having ended: it is asked only of sessions not found')
    })

    t.test(`<prefix>ended keeps the last EXPIRED_KEPT (${EXPIRED_KEPT}) sessions to end, the oldest dropped as each is added; lookups of other ids add nothing`, async t => {
      const s = await ready(new RedisStore({ url: redis.url, prefix: 'bound:', maxSessions: 100, idleMs: 5000, probeIntervalMs: 3_600_000 }))
      t.teardown(() => s.close())
      // Full already: EXPIRED_KEPT ids that ended long ago, scored 1, 2, ….
      const old = Array.from({ length: EXPIRED_KEPT }, (_, i) => `=old-${String(i).padStart(5, '0')}`)
      for (let i = 0; i < old.length; i += 1000) await s.client.zadd('bound:ended', ...old.slice(i, i + 1000).flatMap((id, j) => [i + j + 1, id]))
      t.equal(await s.expiredRecently('old-00000'), true)
      for (const stranger of ['11111111-2222-4333-8444-555555555555', 'not-a-guid']) {
        t.equal(await s.get(stranger), undefined)
        await s.update(stranger, { note: 'x' })
        t.equal(await s.journal(stranger), undefined)
      }
      t.equal(await s.client.zcard('bound:ended'), EXPIRED_KEPT, 'asking for sessions that never were adds nothing')
      const a = await s.create()
      const b = await s.create()
      await s.get(b.guid)
      const at = (await redisNow(s) - 6000) * 1024
      await s.client.zadd('bound:new', at, sessionId(a.guid))
      await s.client.zadd('bound:lru', at, sessionId(b.guid))
      t.equal(await s.get(a.guid), undefined)
      t.equal(await s.get(b.guid), undefined)
      t.equal(await s.client.zcard('bound:ended'), EXPIRED_KEPT, 'still EXPIRED_KEPT')
      t.same([await s.expiredRecently(a.guid), await s.expiredRecently(b.guid)], [true, true], 'the two that ended now are in')
      t.same([await s.expiredRecently('old-00000'), await s.expiredRecently('old-00001'), await s.expiredRecently('old-00002')], [false, false, true], 'the two oldest are out')
    })

    t.test('over HTTP with Redis, a request naming an expired session is told it expired and how to restore it; the restore brings it back', async t => {
      const keyPrefix = prefix()
      const s = await ready(store(100, 5000, keyPrefix))
      const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: s, sessionIdleMs: 5000, creationRateLimit: 0 } })
      t.teardown(() => app.close())
      const guid = (await app.inject({ method: 'POST', url: '/api/challenger' })).headers['x-challenger'] as string
      const token = (await app.inject({ method: 'POST', url: '/api/secret/token', headers: { 'x-challenger': guid, authorization: basic('admin', 'password') } })).headers['x-auth-token'] as string
      const saved = (await app.inject({ method: 'GET', url: `/api/challenger/${guid}` })).json()
      await s.client.zadd(`${keyPrefix}lru`, (await redisNow(s) - 6000) * 1024, sessionId(guid))
      const note = await app.inject({ method: 'GET', url: '/api/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token } })
      t.equal(note.statusCode, 401)
      t.same(note.json().errorMessages, [`Session "${guid}" has expired: a session ends after 5 seconds without a request (sooner, when the server is full). ` +
        `Restore it with PUT /api/challenger/${guid} and the JSON saved from GET /api/challenger/${guid} ` +
        `(its progress page, /gui/challenges/${guid}, keeps that JSON in the browser and restores it with one click), or create a new session with POST /api/challenger`])
      const json = (await app.inject({ method: 'GET', url: `/challenger/${guid}` })).json()
      t.match(json.errorMessages, [/^Session ".*" has expired: .* Restore it with PUT \/challenger\//], '404 at the root, with the root\'s command')
      t.equal((await app.inject({ method: 'PUT', url: `/api/challenger/${guid}`, headers: { 'content-type': 'application/json' }, payload: saved })).statusCode, 201)
      t.equal((await app.inject({ method: 'GET', url: '/api/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token } })).statusCode, 200, 'restored, with its token')
      t.match((await app.inject({ method: 'GET', url: `/gui/challenges/${guid}/session` })).json(), { session: { xChallenger: guid, xAuthToken: token }, expired: false }, 'the page\'s copy')
    })

    t.test('concurrent calls go out together, each with its own result, in the order they were made', async t => {
      const s = await ready(new RedisStore({ url: redis.url, prefix: 'batch:', maxSessions: 100, idleMs: 600_000, probeIntervalMs: 3_600_000 }))
      t.teardown(() => s.close())
      const a = await s.create()
      const b = await s.create()
      const entry: JournalEntry = { at: 1, method: 'POST', path: '/secret/note', status: 200, contentType: 'application/json', passed: 0, hint: -1, suggestion: null }
      const [found, missing, written, notWritten, passed, recorded, foundAfter] = await Promise.all([
        s.get(a.guid),
        s.get('00000000-0000-4000-8000-000000000000'),
        s.update(a.guid, { note: 'in a batch', passed: 4 }),
        s.update('00000000-0000-4000-8000-000000000000', { note: 'nowhere', passed: 4 }),
        s.update(b.guid, { passed: 2 }),
        s.record(a.guid, entry),
        s.get(b.guid)
      ])
      t.equal(found?.token, a.token)
      t.equal(found?.note, '', 'the lookup ran before the write made after it')
      t.equal(missing, undefined)
      t.equal(written, true, 'the write found its session')
      t.equal(notWritten, false, 'and a write to no session says so')
      t.equal(passed, true)
      t.equal(recorded, true, 'the entry found its session')
      t.equal(foundAfter?.progress, 2, 'the pass ran before the lookup made after it')
      t.same(await s.get(a.guid), { guid: a.guid, token: a.token, note: 'in a batch', progress: 4, name: undefined })
      t.match(await s.journal(a.guid), [{ path: '/secret/note', status: 200 }])
      const scores = await s.client.zrange('batch:lru', 0, -1, 'WITHSCORES')
      t.equal(new Set(scores.filter((_, i) => i % 2 === 1)).size, 2, 'each touch has a score of its own')
      // Scores stay above the highest in the index, even one from a clock far ahead (another Redis, a failover).
      const ahead = Number(scores[3]) + 1_000_000 * 1024
      await s.client.zadd('batch:lru', ahead, sessionId(b.guid))
      await s.get(a.guid)
      t.equal(Number(await s.client.zscore('batch:lru', sessionId(a.guid))), ahead + 1, 'a touch scores above the highest score in the index')
      await s.restore({ guid: b.guid, token: b.token, note: '', progress: 2 })
      t.equal(Number(await s.client.zscore('batch:lru', sessionId(b.guid))), ahead + 2, 'and so does a restore')
    })

    t.test('a note write is one script (the lookup, the token, the note with its journal entry) and three writes in Redis (the AOF\'s lines): activity, note, journal entry', async t => {
      const s = await ready(new RedisStore({ url: redis.url, prefix: 'writes:', maxSessions: 100, idleMs: 600_000, journalSize: 20, probeIntervalMs: 3_600_000 }))
      t.teardown(() => s.close())
      const a = await s.create()
      const entry: JournalEntry = { at: 1, method: 'POST', path: '/secret/note', status: 200, contentType: 'application/json', passed: 0, hint: -1, suggestion: null }
      await s.record(a.guid, entry)
      await s.get(a.guid)
      // At work, as a learner who writes notes is: no longer among those that make room (<prefix>light).
      await s.update(a.guid, { note: 'first' })
      const counts = async (): Promise<Record<string, number>> => {
        const info = await s.client.info('commandstats')
        const out: Record<string, number> = {}
        for (const [, name, calls] of info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) out[name as string] = Number(calls)
        return out
      }
      const before = await counts()
      const writes = 35
      // As the pipeline writes a note: the lookup, the token, the note and its entry in one call.
      const around = entryAround(entry)
      for (let i = 0; i < writes; i++) {
        t.same(await s.judgeAndRecord(a.guid, { token: a.token, entry: around, asked: 0, note: `note ${i}`, missable: 0, misses: [] }), { found: true, own: true, passed: 0 })
      }
      const after = await counts()
      const made = (name: string): number => (after[name] ?? 0) - (before[name] ?? 0)
      t.equal(made('evalsha') + made('eval'), writes, 'one script a write')
      t.equal(made('pexpire'), 0, 'no TTL: a session has none, and its journal\'s is renewed once a minute, not each time')
      t.equal(made('zadd'), writes)
      t.equal(made('hset'), writes)
      t.equal(made('lpush'), writes)
      t.equal(made('set'), 0, 'no last score kept')
      // 1 + 35 entries in a journal of 20: trimmed to 20 at the 26th and the 32nd, then 4 more.
      t.equal(made('ltrim'), 2, 'trimmed once a quarter over its size, not at each entry')
      t.equal(await s.client.llen(`writes:j:${sessionId(a.guid)}`), 24)
      const read = await s.journal(a.guid)
      t.equal(read?.length, 20, 'read up to its size')
      t.equal((await s.get(a.guid))?.note, `note ${writes - 1}`, 'the note is the last one written with its entry')
      // A request the journal leaves out: the note alone.
      t.same(await s.judgeAndRecord(a.guid, { token: a.token, entry: null, asked: 0, note: 'unrecorded', missable: 0, misses: [] }), { found: true, own: true, passed: 0 })
      t.equal((await s.get(a.guid))?.note, 'unrecorded')
      t.equal(await s.client.llen(`writes:j:${sessionId(a.guid)}`), 24, 'and no entry')
    })

    t.test('a journal outlives its session by at most a minute, is renewed once below the idle time, and is no one\'s after', async t => {
      const s = await ready(new RedisStore({ url: redis.url, prefix: 'spare:', maxSessions: 100, idleMs: 5000, journalSize: 5, probeIntervalMs: 3_600_000 }))
      t.teardown(() => s.close())
      const a = await s.create()
      const entry: JournalEntry = { at: 1, method: 'GET', path: '/heartbeat', status: 204, contentType: null, passed: 0, hint: -1, suggestion: null }
      await s.record(a.guid, entry)
      await s.get(a.guid)
      const journal = `spare:j:${sessionId(a.guid)}`
      const first = await s.client.pttl(journal)
      // Its session's time left when the entry came (all of the idle time: it was just made), plus the
      // spare; less what a loaded machine took between, but more than the spare alone.
      t.ok(first > JOURNAL_SPARE_MS + 1000 && first <= 5000 + JOURNAL_SPARE_MS, `a new journal lives ${first} ms`)
      await s.client.pexpire(journal, 30_000)
      await s.get(a.guid)
      t.ok(await s.client.pttl(journal) <= 30_000, 'not renewed while at or above the idle time')
      await s.client.pexpire(journal, 4000)
      await s.get(a.guid)
      const renewed = await s.client.pttl(journal)
      t.ok(renewed > JOURNAL_SPARE_MS + 1000 && renewed <= 5000 + JOURNAL_SPARE_MS, `renewed below the idle time (${renewed} ms)`)
      // An instance that keeps no journal (JOURNAL_SIZE=0) renews it all the same: another instance may keep one.
      const off = await ready(new RedisStore({ url: redis.url, prefix: 'spare:', maxSessions: 100, idleMs: 5000, journalSize: 0, probeIntervalMs: 3_600_000 }))
      t.teardown(() => off.close())
      await s.client.pexpire(journal, 4000)
      await off.get(a.guid)
      t.ok(await s.client.pttl(journal) > 5000, 'renewed by an instance with the journal off')
      // The session expires: its journal is not read, goes with it, and takes no entry after.
      await s.client.zadd('spare:lru', (await redisNow(s) - 6000) * 1024, sessionId(a.guid))
      t.equal(await s.journal(a.guid), undefined)
      t.equal(await s.client.exists(journal), 0)
      await s.record(a.guid, entry)
      t.equal(await s.client.exists(journal), 0, 'and no entry is added to it')
      // Restored under its guid after expiry: a new session, with a journal of its own, not one left over
      // (by a session removed by hand, say).
      await s.client.rpush(journal, 'left over')
      t.equal(await s.restore({ guid: a.guid, token: a.token, note: '', progress: 0 }), 'created')
      t.same(await s.journal(a.guid), [], 'the old journal is gone')
      await s.record(a.guid, entry)
      t.equal(await s.restore({ guid: a.guid, token: a.token, note: 'again', progress: 0 }), 'replaced')
      t.equal((await s.journal(a.guid))?.length, 1, 'a live session restored keeps its journal')
      t.ok(await s.client.pttl(journal) > 5000, 'with the idle time and the spare')
      await s.restore({ guid: a.guid, token: a.token, note: 'again', progress: 0 }, { pinned: true })
      t.equal(await s.client.pttl(journal), -1, 'a pinned session\'s journal has no TTL, as the session has none')
    })

    t.test('with Redis gone, every call fails with StoreUnavailableError', async t => {
      const gone = await redisServer()
      t.teardown(() => gone.remove())
      await gone.stop()
      const s = new RedisStore({ url: gone.url, prefix: prefix(), maxSessions: 10, idleMs: 600_000, commandTimeoutMs: 200, probeIntervalMs: 3_600_000 })
      t.teardown(() => s.close())
      const guid = '00000000-0000-4000-8000-000000000000'
      const entry: JournalEntry = { at: 1, method: 'GET', path: '/heartbeat', status: 204, contentType: null, passed: 0, hint: -1, suggestion: null }
      const outcomes = await Promise.all([s.record(guid, entry), s.get(guid), s.update(guid, { note: 'lost', passed: 1 }), s.expiredRecently(guid)].map(async call => await call.then(() => 'answered', (error: unknown) => error)))
      t.ok(outcomes.every(outcome => outcome instanceof StoreUnavailableError), 'the entry, the lookup, the write and the question')
    })

    t.test('at maxmemory no script writes past it: creations are refused (503), and so is every call that writes; reads and sweeps go on', async t => {
      const full = await redisServer(['--appendonly', 'no', '--maxmemory-policy', 'noeviction'])
      t.teardown(() => full.remove())
      const s = await ready(new RedisStore({ url: full.url, prefix: 'oom:', maxSessions: 100_000, idleMs: 600_000, probeIntervalMs: 3_600_000 }))
      t.teardown(() => s.close())
      const memory = async (): Promise<number> => Number(/^used_memory:(\d+)/m.exec(await s.client.info('memory'))?.[1])
      const refusal = async (call: Promise<unknown>): Promise<string> => {
        const error = await call.then(() => undefined, (error: unknown) => error)
        return error instanceof StoreUnavailableError ? (error.cause as Error).message.slice(0, 3) : `no refusal (${String(error)})`
      }
      // Every script once (Redis keeps what it has run), then a little room, then sessions made until
      // Redis refuses: the first refusal comes with the memory at the limit.
      const first = await s.create()
      await Promise.all([s.get(first.guid), s.list(1), s.summary(1000), s.journal(first.guid), s.setName(first.guid, 'x'), s.countCreation('127.0.0.1', 60_000)])
      const limit = await memory() + 100_000
      await s.client.config('SET', 'maxmemory', String(limit))
      let made = 0
      for (; made < 5000; made++) if (await s.create().then(() => false, () => true)) break
      t.ok(made > 100 && made < 5000, `${made} sessions made, then refused`)
      const atLimit = await memory()
      t.ok(atLimit <= limit + 4096, `used_memory ${atLimit} at the refusal, maxmemory ${limit}`)
      const sessions = await s.client.hlen('oom:sessions')
      for (let i = 0; i < 20; i++) t.equal(await refusal(s.create()), 'OOM', 'and so is every creation after')
      t.equal(await s.client.hlen('oom:sessions'), sessions, 'none made')

      // Every script that may add to Redis's memory is refused up front, whatever it does first. (Made
      // to have expired while there is room, b is for the sweep below.)
      const [a, b] = (await s.list(2)).sessions.map(x => x.guid) as [string, string]
      await s.client.config('SET', 'maxmemory', '0')
      await s.client.zadd('oom:new', 1024, sessionId(b))
      await s.client.config('SET', 'maxmemory', '1')
      const entry: JournalEntry = { at: 1, method: 'GET', path: '/heartbeat', status: 204, contentType: null, passed: 0, hint: -1, suggestion: null }
      const before = await s.client.dbsize()
      t.same(await Promise.all([
        s.create(undefined, 1),
        s.restore({ guid: a, token: 'f'.repeat(32), note: 'over the limit', progress: 1 }),
        s.restore({ guid: '00000000-0000-4000-8000-00000000f00d', token: 'f'.repeat(32), note: '', progress: 0 }),
        s.get(a),
        s.update(a, { note: 'over the limit', passed: 2 }),
        s.update(a, { passed: 4 }),
        s.record(a, entry),
        s.setName(a, 'Ada'),
        s.journal(a),
        s.countCreation('127.0.0.1', 60_000)
      ].map(refusal)), new Array(10).fill('OOM'))
      t.equal(await s.client.dbsize(), before, 'no key made')
      t.equal(await s.client.exists(`oom:j:${sessionId(a)}`), 0, 'no journal entry, no challenge passed')

      // Refused: the store is down, and the heartbeat says 503 (the log says why: see redis-probe.test.ts).
      t.equal(s.available(), false, 'a refusal turns the store down')
      // The probe is refused as the requests are, and the sweep beside it still runs (deleting frees
      // memory); the board's reads still answer.
      await s.probe()
      t.equal(s.available(), false, 'the probe is refused too')
      t.equal(await s.client.hexists('oom:sessions', sessionId(b)), 0, 'and swept the expired session')
      t.equal((await s.list(10)).total, sessions - 1)
      t.same(await s.counts(600_000), { live: sessions - 1, active: sessions - 1 })
      t.equal((await s.summary(600_000)).live, sessions - 1)

      // Over HTTP: the service's 503.
      const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: s } })
      t.teardown(() => app.close())
      const refused = await app.inject({ method: 'POST', url: '/challenger' })
      t.equal(refused.statusCode, 503)
      t.same(refused.json(), { errorMessages: ['The session store is unavailable; try again shortly'] })

      // Room again: everything works, and the first script that writes turns the store up.
      await s.client.config('SET', 'maxmemory', '0')
      t.equal((await app.inject({ method: 'POST', url: '/challenger' })).statusCode, 201)
      t.equal(s.available(), true, 'up again')
    })

    t.test('a store whose Redis is not there yet starts anyway, answers 503, and connects when it can', async t => {
      const later = await redisServer()
      t.teardown(() => later.remove())
      await later.stop()
      const sessions = new RedisStore({ url: later.url, prefix: prefix(), idleMs: 600_000, maxSessions: 10, commandTimeoutMs: 200 })
      const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: sessions } })
      t.teardown(() => app.close())
      await sessions.connected()
      await app.ready()
      t.equal((await app.inject({ method: 'GET', url: '/heartbeat' })).statusCode, 503)
      t.equal((await app.inject({ method: 'POST', url: '/challenger' })).statusCode, 503)
      await later.start()
      await ready(sessions)
      await sessions.connected()
      t.equal((await app.inject({ method: 'POST', url: '/challenger' })).statusCode, 201)
    })

    t.test('a Redis that hangs without closing the connection: 503, the heartbeat says so, then it recovers', async t => {
      const sessions = new RedisStore({ url: redis.url, prefix: prefix(), idleMs: 600_000, maxSessions: 10, commandTimeoutMs: 200 })
      const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: sessions, creationRateLimit: 0 } })
      t.teardown(() => app.close())
      await app.ready()
      const other = new RedisStore({ url: redis.url, prefix: 'other:', idleMs: 1000, maxSessions: 1 })
      t.teardown(() => other.close())
      // Both stores' first probes done: the heartbeat asks the app's.
      await ready(other)
      await ready(sessions)
      t.equal((await app.inject({ method: 'GET', url: '/heartbeat' })).statusCode, 204)
      // Redis stops running writes (scripts count) but keeps the connection: a hang, not an outage.
      await other.client.call('CLIENT', 'PAUSE', '60000', 'WRITE')
      t.equal((await app.inject({ method: 'POST', url: '/challenger' })).statusCode, 503, 'a command times out')
      t.equal((await app.inject({ method: 'GET', url: '/heartbeat' })).statusCode, 503, 'and the heartbeat says so')
      await other.client.call('CLIENT', 'UNPAUSE')
      await sessions.probe()
      t.equal((await app.inject({ method: 'GET', url: '/heartbeat' })).statusCode, 204, 'answering again')
      await sessions.probe()
      t.equal(sessions.available(), true, 'a probe while it answers changes nothing')
      t.equal((await app.inject({ method: 'POST', url: '/challenger' })).statusCode, 201)
    })

    t.test('a note write is one round trip with Redis, and every /secret/note answer, progress and journal line is the in-memory store\'s', async t => {
      const apps: Record<'memory' | 'redis', FastifyInstance> = {
        memory: createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { creationRateLimit: 0, noteMaxLength: 10 } }),
        // No probes (a script each, every second) to count among the scripts below.
        redis: createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: await ready(new RedisStore({ url: redis.url, prefix: prefix(), maxSessions: 100_000, idleMs: 600_000, probeIntervalMs: 3_600_000 })), creationRateLimit: 0, noteMaxLength: 10 } })
      }
      const seen: Record<string, unknown[]> = { memory: [], redis: [] }
      for (const [kind, app] of Object.entries(apps)) {
        t.teardown(() => app.close())
        const guid = (await app.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
        const token = (await app.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': guid, authorization: basic('admin', 'password') } })).headers['x-auth-token'] as string
        const other = (await app.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
        const own = { 'x-challenger': guid }
        const xml = { 'content-type': 'application/xml', accept: 'application/xml' }
        const steps: Array<{ headers: Record<string, string>, payload?: string }> = [
          { headers: { ...own, ...json }, payload: '{"note":"no token"}' },
          { headers: { ...own, ...json, 'x-auth-token': 'wrong' }, payload: '{"note":"wrong"}' },
          { headers: { ...own, ...json, authorization: 'Bearer wrong' }, payload: '{"note":"wrong"}' },
          { headers: { ...own, ...json, 'x-auth-token': token }, payload: '{"note":' },
          { headers: { ...own, ...json, 'x-auth-token': token }, payload: '{"note":5}' },
          { headers: { ...own, ...json, 'x-auth-token': 'wrong' }, payload: '{"note":5}' },
          { headers: { ...own, 'content-type': 'text/plain', 'x-auth-token': token }, payload: 'a note' },
          { headers: { ...own, ...json, 'x-auth-token': token, accept: 'text/plain' }, payload: '{"note":"not acceptable"}' },
          { headers: { 'x-challenger': other, ...json, 'x-auth-token': token }, payload: '{"note":"not theirs"}' },
          { headers: { 'x-challenger': '00000000-0000-4000-8000-00000000dead', ...json, 'x-auth-token': token }, payload: '{"note":"no one"}' },
          { headers: { ...json, 'x-auth-token': token }, payload: '{"note":"no session"}' },
          { headers: { ...own, ...json, 'x-auth-token': token }, payload: '{"note":"hello"}' },
          // Passed already: nothing passed, and the hint of the Bearer challenge not yet passed.
          { headers: { 'x-challenger': guid.toUpperCase(), ...json, 'x-auth-token': token }, payload: '{"note":"upper"}' },
          { headers: { ...own, ...json, 'x-auth-token': token }, payload: '{"note":[]}' },
          { headers: { ...own, ...xml, authorization: `Bearer ${token}` }, payload: '<secretnote><note>a note longer than ten</note></secretnote>' },
          { headers: { ...own, ...json, 'x-auth-token': token }, payload: '{"note":"again"}' },
          { headers: { ...own, ...json, authorization: `Bearer ${token}`, accept: 'text/plain' }, payload: '{"note":"not acceptable"}' },
          { headers: { ...own, ...json, authorization: `Bearer ${token}x` }, payload: '{"note":"wrong"}' }
        ]
        for (const step of steps) {
          const res = await app.inject({ method: 'POST', url: '/secret/note', ...step })
          seen[kind]?.push([res.statusCode, res.body])
        }
        for (const who of [guid, other]) {
          seen[kind]?.push((await app.inject({ method: 'GET', url: '/secret/note', headers: { 'x-challenger': who, 'x-auth-token': token } })).body)
          const journal = (await app.inject({ method: 'GET', url: `/challenger/${who}/requests` })).json().requests as Array<Record<string, unknown>>
          seen[kind]?.push(journal.map(({ at, id, ...entry }) => entry))
          seen[kind]?.push((await app.inject({ method: 'GET', url: '/challenges', headers: { 'x-challenger': who } })).json())
        }
      }
      t.same(seen.redis, seen.memory)
      t.same((seen.memory as unknown[]).slice(0, 18).map(step => (step as [number])[0]), [401, 403, 403, 400, 400, 403, 415, 406, 403, 401, 401, 200, 200, 400, 200, 200, 406, 403],
        'the token judged before the body, as the reference does')
      const journal = (seen.memory as unknown[])[19] as Array<{ status: number, passed: number[], hint: string | null }>
      t.same(journal.map(entry => entry.status), [200, 403, 406, 200, 200, 400, 200, 200, 406, 415, 403, 400, 400, 403, 403, 401, 201, 201],
        'every request to the session in its journal, newest first (the read just made first), the 406s too')
      t.same(journal.slice(3, 8).map(entry => entry.passed.length), [0, 1, 0, 0, 1], 'each challenge passed once')
      t.match(journal[6]?.hint, /^Challenge 33 needs GET/, 'a note written again, which passed nothing: the hint of the first challenge not yet passed that it came near')
      t.match((seen.memory as unknown[])[14], [200, /"note":"a note lon"|<note>a note lon<\/note>/], 'truncated to the note length')

      // One script per note write, the journal off or on.
      // Counted on a Redis of their own, by INFO, once every call the stores have sent has run: a
      // round trip on a store's own connection (Redis runs a connection's commands in order) settles
      // it. So nothing else, and no delay, can add to the counts.
      const counted = await redisServer()
      t.teardown(() => counted.remove())
      const quietStore = await ready(new RedisStore({ url: counted.url, prefix: prefix(), maxSessions: 100, idleMs: 600_000, journalSize: 0, probeIntervalMs: 3_600_000 }))
      const quiet = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: quietStore, creationRateLimit: 0 } })
      t.teardown(() => quiet.close())
      const guid = (await quiet.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
      const token = (await quiet.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': guid, authorization: basic('admin', 'password') } })).headers['x-auth-token'] as string
      const reader = await ready(new RedisStore({ url: counted.url, prefix: prefix(), maxSessions: 100, idleMs: 600_000, probeIntervalMs: 3_600_000 }))
      t.teardown(() => reader.close())
      const client = reader.client
      // Scripts run, whichever way ioredis sent them (EVALSHA, or EVAL the first time on a connection).
      const scripts = async (settle: RedisStore): Promise<number> => {
        await settle.client.ping()
        const stats = await client.info('commandstats')
        return ['eval', 'evalsha'].reduce((sum, name) => sum + Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0), 0)
      }
      const before = await scripts(quietStore)
      const written = await quiet.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, ...json, 'x-auth-token': token }, payload: { note: 'one trip' } })
      t.equal(written.statusCode, 200)
      t.equal(await scripts(quietStore) - before, 1, 'one script: the lookup, the token, the note (issue 56)')
      const refused = await quiet.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, ...json, 'x-auth-token': 'wrong' }, payload: { note: 'not stored' } })
      t.equal(refused.statusCode, 403)
      t.equal(await scripts(quietStore) - before, 3, 'a refusal: the lookup with the token, then its challenge')
      t.same((await quiet.inject({ method: 'GET', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token } })).json(), { note: 'one trip' })

      // A creation: the count, then the session with its challenge; a restore that creates is counted
      // in the same count.
      const limitedStore = await ready(new RedisStore({ url: counted.url, prefix: prefix(), maxSessions: 100, idleMs: 600_000, journalSize: 0, probeIntervalMs: 3_600_000 }))
      const limited = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: limitedStore, creationRateLimit: 2 } })
      t.teardown(() => limited.close())
      await limited.ready()
      await scripts(quietStore)
      const beforeCreation = await scripts(limitedStore)
      const made = await limited.inject({ method: 'POST', url: '/challenger' })
      t.equal(made.statusCode, 201)
      t.equal(await scripts(limitedStore) - beforeCreation, 2, 'a creation: its count, then the session')
      const status = (await limited.inject({ method: 'GET', url: `/challenger/${made.headers['x-challenger'] as string}` })).json().challengeStatus as Record<string, boolean>
      t.same(Object.keys(status).filter(id => status[id]), ['01'], 'made with challenge 01 passed')
      t.equal((await limited.inject({ method: 'PUT', url: '/challenger/00000000-0000-4000-8000-00000000beef', headers: json, payload: {} })).statusCode, 201)
      const over = await limited.inject({ method: 'POST', url: '/challenger' })
      t.equal(over.statusCode, 429, 'the third creation of the minute')
      const seconds = Number(over.headers['retry-after'])
      t.ok(seconds > 0 && seconds <= 60, `retry after ${seconds} s`)
      t.same(over.json(), { errorMessages: [`This address has created 2 sessions in the last minute: try again in ${seconds} s`] })
      t.equal((await limited.inject({ method: 'PUT', url: '/challenger/00000000-0000-4000-8000-00000000f00d', headers: json, payload: {} })).statusCode, 429, 'and the fourth, by a restore')
    })

    t.test('a note request whose session is gone since this instance last saw it: 401 for a write, the 406 for one not acceptable, and no journal', async t => {
      const keys = prefix()
      const s = await ready(new RedisStore({ url: redis.url, prefix: keys, maxSessions: 100, idleMs: 600_000, probeIntervalMs: 3_600_000 }))
      const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: s, creationRateLimit: 0 } })
      t.teardown(() => app.close())
      const guid = (await app.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
      const token = (await app.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': guid, authorization: basic('admin', 'password') } })).headers['x-auth-token'] as string
      t.equal(s.plain(guid), true, 'made here without defects: its note requests are judged in one script')
      // Gone without this instance seeing it go (another instance's restore, an operator's cleanup).
      t.equal(await s.client.hdel(`${keys}sessions`, sessionId(guid)), 1)
      const headers = { 'x-challenger': guid, ...json, 'x-auth-token': token }
      const written = await app.inject({ method: 'POST', url: '/secret/note', headers, payload: { note: 'lost' } })
      t.equal(written.statusCode, 401)
      t.equal(written.headers['www-authenticate'], 'Bearer')
      t.same(written.json(), { errorMessages: [NAME_A_SESSION] }, 'as the auth step says it of a session it did not find')
      const refused = await app.inject({ method: 'POST', url: '/secret/note', headers: { ...headers, accept: 'text/plain' }, payload: { note: 'lost' } })
      t.equal(refused.statusCode, 406, 'answered before the token: the same answer without a session')
      t.equal(await s.client.exists(`${keys}j:${sessionId(guid)}`), 1, 'its journal is left to expire')
      t.equal(await s.client.llen(`${keys}j:${sessionId(guid)}`), 2, 'with nothing added: the creation and the token\'s entries')
      t.equal(await s.client.hexists(`${keys}sessions`, sessionId(guid)), 0, 'and nothing written')
    })

    t.test('a grading run started on one instance is read, reported and met on the other', async t => {
      const keyPrefix = prefix()
      const apps: FastifyInstance[] = []
      for (let i = 0; i < 2; i++) {
        const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { redisUrl: redis.url, redisKeyPrefix: keyPrefix, adminToken: 'an-instructor-token-0123' } })
        t.teardown(() => app.close())
        await app.ready()
        apps.push(app)
      }
      const [one, two] = apps as [FastifyInstance, FastifyInstance]
      const me = (await one.inject({ method: 'POST', url: '/challenger', payload: { name: 'Ada' } })).headers['x-challenger'] as string
      const run = (await one.inject({ method: 'POST', url: '/grades', headers: { 'x-challenger': me } })).json() as { id: string, bases: Array<{ url: string }> }
      const reader = await ready(new RedisStore({ url: redis.url, prefix: keyPrefix, maxSessions: 100, idleMs: 600_000, probeIntervalMs: 3_600_000 }))
      t.teardown(() => reader.close())
      const kept = await reader.grades.get(run.id)
      const heartbeat = kept?.bases.find(base => base.defect === 'heartbeat-200')?.id as string
      t.equal((await two.inject({ method: 'GET', url: `/grades/${run.id}/${heartbeat}/heartbeat` })).statusCode, 200, 'the other instance meets the base\'s defect')
      const made = (await two.inject({ method: 'POST', url: `/grades/${run.id}/${heartbeat}/challenger` })).headers['x-challenger'] as string
      t.equal((await one.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': made } })).statusCode, 200, 'and the first meets the session\'s')
      for (const [i, base] of run.bases.entries()) {
        const res = await (i % 2 === 0 ? one : two).inject({ method: 'POST', url: `/grades/${run.id}/results`, headers: { 'x-challenger': me }, payload: { base: base.url, exitCode: i === 0 ? 0 : 1 } })
        t.equal(res.statusCode, 200)
      }
      t.match((await two.inject({ method: 'GET', url: `/grades/${run.id}` })).json(), { caught: run.bases.length - 1, score: 100, complete: true })
      const board = await one.inject({ method: 'GET', url: '/admin/sessions', headers: { authorization: 'Bearer an-instructor-token-0123' } })
      t.match((board.json().sessions as Array<{ name: string | null, grade: unknown }>).find(s => s.name === 'Ada')?.grade, { score: 100, complete: true }, 'the board reads it from Redis')
    })

    t.test('two instances on one Redis behave as one service', async t => {
      const keyPrefix = prefix()
      const apps: FastifyInstance[] = []
      for (let i = 0; i < 2; i++) {
        const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { redisUrl: redis.url, redisKeyPrefix: keyPrefix, creationRateLimit: 3 } })
        t.teardown(() => app.close())
        await app.ready()
        apps.push(app)
      }
      const [one, two] = apps as [FastifyInstance, FastifyInstance]
      for (const app of apps) t.equal((await app.inject({ method: 'GET', url: '/heartbeat' })).statusCode, 204, 'connected once ready')
      const guid = (await one.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
      const tokens = await Promise.all(apps.map(app => app.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': guid, authorization: basic('admin', 'password') } })))
      t.same(tokens.map(res => res.statusCode), [201, 201])
      t.equal(tokens[0]?.headers['x-auth-token'], tokens[1]?.headers['x-auth-token'], 'racing token requests get one token')
      const auth = { 'x-challenger': guid, 'x-auth-token': tokens[0]?.headers['x-auth-token'] as string }
      await one.inject({ method: 'POST', url: '/secret/note', headers: { ...auth, ...json }, payload: { note: 'from one' } })
      t.same((await two.inject({ method: 'GET', url: '/secret/note', headers: auth })).json(), { note: 'from one' })
      await two.inject({ method: 'DELETE', url: '/heartbeat', headers: auth })
      const writes = await Promise.all(Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? one : two).inject({ method: 'POST', url: '/secret/note', headers: { ...auth, ...json }, payload: { note: `write ${i}` } })))
      t.same(writes.filter(res => res.statusCode !== 200), [], 'every concurrent write was acknowledged')
      const seen = await Promise.all(apps.map(app => app.inject({ method: 'GET', url: '/secret/note', headers: auth })))
      t.equal(seen[0]?.body, seen[1]?.body, 'both instances read the same note')
      t.match(seen[0]?.json().note, /^write \d+$/)
      const last = await two.inject({ method: 'POST', url: '/secret/note', headers: { ...auth, ...json }, payload: { note: 'the last' } })
      t.equal(last.statusCode, 200)
      t.same((await one.inject({ method: 'GET', url: '/secret/note', headers: auth })).json(), { note: 'the last' }, 'the last acknowledged write is what both see')
      const progress = (await one.inject({ method: 'GET', url: `/challenger/${guid}` })).json().challengeStatus
      t.same(Object.keys(progress).filter(id => progress[id]).sort(), ['01', '25', '30', '33', '34'])
      // Three creations a minute per address, counted in Redis: one made above, one on each instance now.
      t.equal((await two.inject({ method: 'POST', url: '/challenger' })).statusCode, 201)
      t.equal((await one.inject({ method: 'POST', url: '/challenger' })).statusCode, 201)
      t.equal((await two.inject({ method: 'POST', url: '/challenger' })).statusCode, 429, 'the limit holds across instances')
    })

    t.test('the journal in Redis: two instances write one journal, in order; it expires and is evicted with its session', async t => {
      const keyPrefix = prefix()
      const apps: FastifyInstance[] = []
      for (let i = 0; i < 2; i++) {
        const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: await ready(new RedisStore({ url: redis.url, prefix: keyPrefix, maxSessions: 2, idleMs: 5000, journalSize: 5 })), creationRateLimit: 0 } })
        t.teardown(() => app.close())
        await app.ready()
        apps.push(app)
      }
      const [one, two] = apps as [FastifyInstance, FastifyInstance]
      const guid = (await one.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
      const steps: Array<[FastifyInstance, string, string]> = [[one, 'HEAD', '/heartbeat'], [two, 'GET', '/heartbeat'], [one, 'PATCH', '/heartbeat'], [two, 'GET', '/secret/note'], [one, 'TRACE', '/heartbeat']]
      for (const [app, method, url] of steps) await app.inject({ method: method as 'GET', url, headers: { 'x-challenger': guid } })
      const read = async (app: FastifyInstance) => (await app.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).json().requests as Array<{ method: string, status: number, passed: number[], hint: string | null, token?: string }>
      const [fromOne, fromTwo] = [await read(one), await read(two)]
      t.same(fromOne, fromTwo, 'both instances show one journal')
      t.same(fromOne.map(r => [r.method, r.status, r.passed]), [['TRACE', 501, [27]], ['GET', 401, [32]], ['PATCH', 500, [26]], ['GET', 204, [28]], ['HEAD', 204, []]],
        'newest first, capped at 5 (the creation fell out)')
      t.equal(fromOne[4]?.hint, 'HEAD passes nothing: challenge 28 needs GET')
      t.equal(fromOne[1]?.token, 'missing')
      const reader = await ready(store(2, 5000, keyPrefix))
      t.teardown(() => reader.close())
      const client = reader.client
      const id = sessionId(guid)
      const ttl = await client.pttl(`${keyPrefix}j:${id}`)
      const left = Math.floor(Number(await client.zscore(`${keyPrefix}lru`, id)) / 1024) + 5000 - await redisNow(reader)
      t.ok(ttl >= left && ttl <= 5000 + JOURNAL_SPARE_MS, `the journal lives as long as its session (${left} ms) and at most a minute more (${ttl} ms)`)
      // Restored to nothing passed, it is no longer at work: two more, each named, and the one of
      // those not at work active longest ago (it) makes room.
      await reader.restore({ ...await reader.get(guid) as Session, progress: 0 })
      for (let i = 0; i < 2; i++) {
        const other = (await one.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
        await one.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': other } })
      }
      t.equal(await client.hexists(`${keyPrefix}sessions`, id) + await client.exists(`${keyPrefix}j:${id}`), 0, 'evicted at capacity, journal and all')
      t.equal((await two.inject({ method: 'GET', url: `/challenger/${guid}/requests` })).statusCode, 404)
      t.equal(await reader.journal(guid), undefined, 'no journal without its session')
      const off = await ready(new RedisStore({ url: redis.url, prefix: keyPrefix, maxSessions: 2, idleMs: 5000, journalSize: 0 }))
      t.teardown(() => off.close())
      const kept = await off.create()
      await off.record(kept.guid, { at: Date.now(), method: 'GET', path: '/heartbeat', status: 204, contentType: null, passed: 0, hint: -1, suggestion: null })
      t.same(await off.journal(kept.guid), [], 'JOURNAL_SIZE=0 keeps nothing')
    })

    t.test('a hunt in Redis: beside its session, whose record an instance from before hunts reads whole; gone with its session', async t => {
      const keyPrefix = prefix()
      const s = await ready(store(100, 600_000, keyPrefix))
      t.teardown(() => s.close())
      const [sessions, hunts] = [`${keyPrefix}sessions`, `${keyPrefix}hunts`]
      const guid = '00000000-0000-4000-8000-00000000abcd'
      const id = sessionId(guid)
      const token = 'a'.repeat(32)
      await s.restore({ guid, token, note: 'a note | with, separators', progress: 5, name: 'Ada', hunt: { hidden: ['note-write-201', 'heartbeat-200'], found: ['heartbeat-200'] } })
      t.equal(await s.client.hget(hunts, id), 'note-write-201,heartbeat-200|heartbeat-200')
      // Read as session.lua read it before hunts: progress, pinned, made, the token's and the name's lengths, then token, name, note.
      const [, progress, pinned, made, tokenLength, nameLength, rest] = /^(-?\d+) (\d) (\d*) (\d+) (\d+) (.*)$/s.exec(await s.client.hget(sessions, id) as string) as unknown as string[]
      const [tl, al] = [Number(tokenLength), Number(nameLength)]
      t.same([progress, pinned, made !== '', rest?.slice(0, tl), rest?.slice(tl, tl + al), rest?.slice(tl + al)], ['5', '0', true, token, 'Ada', 'a note | with, separators'],
        'the record is as it was: the hunt is no part of it')
      // A session an instance from before hunts made: no hunt.
      const old = '00000000-0000-4000-8000-00000000beef'
      await s.client.hset(sessions, sessionId(old), `1 0 ${await redisNow(s)} 32 0 ${token}from before`)
      await s.client.zadd(`${keyPrefix}new`, await redisNow(s) * 1024, sessionId(old))
      t.same(await s.get(old), { guid: old, token, note: 'from before', progress: 1, name: undefined, hunt: undefined })
      t.notOk('hunt' in ((await s.list(10)).sessions.find(summary => summary.guid === old) as object), 'and on the board, none')
      // Expired: its hunt goes with it (a lookup drops it, as a sweep or an eviction would).
      await s.client.zadd(`${keyPrefix}lru`, 1024, id)
      t.equal(await s.get(guid), undefined)
      t.equal(await s.client.hexists(hunts, id), 0, 'its hunt went with it')
      // The journal's wire form keeps the defect, tenth; an entry from before it has none.
      const plain = await s.create()
      const entry: JournalEntry = { at: 1, method: 'GET', path: '/heartbeat', status: 200, contentType: 'application/json', passed: 0, hint: -1, suggestion: null }
      await s.record(plain.guid, { ...entry, defect: 'heartbeat-200' })
      const journal = `${keyPrefix}j:${sessionId(plain.guid)}`
      t.equal(JSON.parse(await s.client.lindex(journal, 0) as string)[9], 'heartbeat-200')
      await s.client.lpush(journal, JSON.stringify([5, 'GET', '/heartbeat', 204, 0, null, 0, -1, null]))
      t.same((await s.journal(plain.guid))?.map(kept => [kept.at, kept.status, kept.defect]), [[5, 204, undefined], [1, 200, 'heartbeat-200']])
    })

    t.test('a hunt over HTTP with Redis: made by POST /challenger, an answer it changed found by its journal entry, kept by a restore, on both instances', async t => {
      const keyPrefix = prefix()
      const apps: FastifyInstance[] = []
      for (let i = 0; i < 2; i++) {
        const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: await ready(store(100, 600_000, keyPrefix)), creationRateLimit: 0 } })
        t.teardown(() => app.close())
        await app.ready()
        apps.push(app)
      }
      const [one, two] = apps as [FastifyInstance, FastifyInstance]
      const reader = await ready(store(100, 600_000, keyPrefix))
      t.teardown(() => reader.close())
      const made = await one.inject({ method: 'POST', url: '/challenger', headers: json, payload: { hunt: true } })
      t.equal(made.statusCode, 201)
      const guid = made.headers['x-challenger'] as string
      const hidden = (await reader.get(guid))?.hunt?.hidden as string[]
      t.equal(hidden.length, HUNT_SIZE)
      const earn = async (app: FastifyInstance, session: string, password = 'password') =>
        await app.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': session, authorization: basic('admin', password) } })
      const token = (await earn(two, guid)).headers['x-auth-token'] as string
      const other = (await two.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
      const theirs = (await earn(one, other)).headers['x-auth-token'] as string
      // Where each defect a hunt may hide shows (test/hunt/defects.ts): whichever three are hidden, some of these answers change.
      const own = { 'x-challenger': guid }
      // Eighteen, with the creation and the token twenty: as many as the journal keeps.
      const requests: Array<{ method?: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string>, payload?: object | string }> = [
        { url: '/heartbeat', headers: own },
        { method: 'PATCH', url: '/heartbeat', headers: own },
        { method: 'DELETE', url: '/heartbeat', headers: own },
        { method: 'POST', url: '/heartbeat', headers: { ...own, 'x-http-method-override': 'TRACE' } },
        { method: 'POST', url: '/challenger', headers: own },
        { url: '/challenges', headers: own },
        { url: `/challenger/${other}`, headers: own },
        { url: '/secret/note', headers: { ...own, 'x-auth-token': token } },
        { url: '/secret/note', headers: { ...own, 'x-auth-token': theirs } },
        { url: '/secret/note', headers: { ...own, 'x-auth-token': token.toUpperCase() } },
        { url: '/secret/note', headers: { ...own, 'x-auth-token': token.slice(0, 8) } },
        { url: '/secret/note', headers: { ...own, 'x-auth-token': token, accept: 'image/png' } },
        { method: 'POST', url: '/secret/note', headers: { ...own, 'x-auth-token': token }, payload: { note: `  é${'x'.repeat(150)}` } },
        { method: 'POST', url: '/secret/note', headers: { ...own, 'x-auth-token': token, 'content-type': 'text/plain' }, payload: '{"note":"plain"}' },
        { method: 'POST', url: '/secret/note', headers: { ...own, 'x-auth-token': token, 'content-type': 'application/xml' }, payload: '<secretnote><note>xml</note></secretnote>' },
        { url: '/secret/note', headers: { ...own, authorization: `Bearer ${token}`, 'x-auth-token': 'bob' } },
        { url: '/secret/note', headers: { ...own, 'x-auth-token': token, accept: 'application/xml' } },
        { method: 'POST', url: '/secret/token', headers: { ...own, authorization: basic('admin', 'wrong') } }
      ]
      for (const [i, request] of requests.entries()) await (i % 2 === 0 ? one : two).inject(request)
      const kept = await reader.journal(guid) ?? []
      const changed = kept.filter(entry => entry.defect !== undefined)
      t.ok(changed.length > 0, `the hidden ${hidden.join(', ')} changed ${changed.length} answers`)
      t.same(changed.filter(entry => !hidden.includes(entry.defect as string)), [], 'only hidden defects changed answers')
      const views = (await two.inject({ url: `/challenger/${guid}/requests` })).json().requests as Array<{ id: string }>
      t.equal(views.length, requests.length + 2, 'every request is in the journal (the creation and the token too)')
      t.equal(new Set(views.map(view => view.id)).size, views.length, 'each under an id of its own')
      t.notOk(views.some(view => 'defect' in view), 'and it does not tell which answers changed')

      const mutated = changed[0] as JournalEntry
      const finding = await one.inject({ method: 'POST', url: `/challenger/${guid}/findings`, headers: json, payload: { entry: entryId(mutated.at, guid) } })
      t.equal(finding.statusCode, 200)
      t.match(finding.json(), { verdict: 'found', defect: { id: mutated.defect }, found: 1, hidden: HUNT_SIZE }, 'the finding reveals it')
      t.same((await reader.get(guid))?.hunt, { hidden, found: [mutated.defect] })
      t.same((await reader.list(10)).sessions.find(summary => summary.guid === guid)?.hunt, { hidden: HUNT_SIZE, found: 1 }, 'the board counts it')

      // Restored from its JSON, on the other instance: live (replaced, the hunt kept whatever the body says), then after it has gone (made again, no hunt).
      const saved = (await one.inject({ url: `/challenger/${guid}` })).json()
      t.same(saved.hunt, { hidden: HUNT_SIZE, found: [mutated.defect], complete: false }, 'counted, never named')
      t.equal((await two.inject({ method: 'PUT', url: `/challenger/${guid}`, headers: json, payload: { ...saved, hunt: { hidden: HUNT_SIZE, found: hidden, complete: true } } })).statusCode, 200)
      t.same((await reader.get(guid))?.hunt, { hidden, found: [mutated.defect] }, 'a restore keeps the hunt as it was')
      await reader.client.zadd(`${keyPrefix}lru`, 1024, sessionId(guid))
      t.equal((await one.inject({ url: `/challenger/${guid}` })).statusCode, 404, 'gone')
      t.equal((await two.inject({ method: 'PUT', url: `/challenger/${guid}`, headers: json, payload: saved })).statusCode, 201)
      t.notOk('hunt' in (await one.inject({ url: `/challenger/${guid}` })).json(), 'made again without its hunt')
      t.equal(await reader.client.hexists(`${keyPrefix}hunts`, sessionId(guid)), 0)
    })

    t.test('at capacity an expired session makes room before an unused live one, even past what the creation\'s sweep removes', async t => {
      const keyPrefix = prefix()
      const roomy = await ready(store(100, 600_000, keyPrefix))
      t.teardown(() => roomy.close())
      const expired = [await roomy.create(), await roomy.create(), await roomy.create()]
      for (const session of expired) await roomy.get(session.guid)
      const unused = await roomy.create()
      const used = await roomy.create()
      await roomy.get(used.guid)
      const idle = (await redisNow(roomy) - 700_000) * 1024
      for (const [i, session] of expired.entries()) await roomy.client.zadd(`${keyPrefix}lru`, idle + i, sessionId(session.guid))
      // An instance with room for three (MAX_SESSIONS lowered on one instance): its creation sweeps
      // two expired sessions, and finds the store still full with the third.
      const small = await ready(store(3, 600_000, keyPrefix))
      t.teardown(() => small.close())
      const made = await small.create()
      t.same((await small.list(10)).sessions.map(session => session.guid), [made.guid, used.guid, unused.guid])
      t.same(await Promise.all(expired.map(async session => await small.client.hexists(`${keyPrefix}sessions`, sessionId(session.guid)))), [0, 0, 0])
    })

    t.test('the class board in Redis: two instances show one board; expired sessions leave it', async t => {
      const keyPrefix = prefix()
      const adminToken = 'instructor-token-0123456789'
      const admin = { authorization: `Bearer ${adminToken}` }
      const apps: FastifyInstance[] = []
      for (let i = 0; i < 2; i++) {
        const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { redisUrl: redis.url, redisKeyPrefix: keyPrefix, creationRateLimit: 0, adminToken } })
        t.teardown(() => app.close())
        await app.ready()
        apps.push(app)
      }
      const [one, two] = apps as [FastifyInstance, FastifyInstance]
      const ada = (await one.inject({ method: 'POST', url: '/challenger', headers: json, payload: { name: 'Ada' } })).headers['x-challenger'] as string
      const grace = (await two.inject({ method: 'POST', url: '/challenger', headers: json, payload: { name: 'Grace' } })).headers['x-challenger'] as string
      const anon = (await one.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
      await two.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': ada } })
      await one.inject({ method: 'PATCH', url: `/challenger/${anon}`, headers: json, payload: { name: 'Anon' } })
      const boards = await Promise.all(apps.map(async app => (await app.inject({ method: 'GET', url: '/admin/sessions', headers: admin })).json()))
      t.same(boards[0], boards[1], 'one board, whichever instance answers')
      t.same(boards[0].sessions.map((s: { guid: string, name: string, passed: number[] }) => [s.guid, s.name, s.passed]),
        [[anon, 'Anon', [1]], [ada, 'Ada', [1, 28]], [grace, 'Grace', [1]]], 'newest activity first (a request to /challenger/{guid} is activity)')
      const summaries = await Promise.all(apps.map(async app => (await app.inject({ method: 'GET', url: '/admin/summary', headers: admin })).json()))
      t.same(summaries[0], summaries[1])
      t.equal(summaries[0].live, 3)
      t.equal(summaries[0].activeLast10Minutes, 3)
      t.equal(summaries[0].challenges.find((c: { id: number }) => c.id === 28).passedBy, 1)
      // Paging across instances: the cursor of one is good on the other.
      const first = (await one.inject({ method: 'GET', url: '/admin/sessions?limit=2', headers: admin })).json()
      const rest = (await two.inject({ method: 'GET', url: `/admin/sessions?limit=2&cursor=${first.next as string}`, headers: admin })).json()
      t.same([...first.sessions, ...rest.sessions].map((s: { guid: string }) => s.guid), [anon, ada, grace])
      t.equal(rest.next, null)
      // A session that has gone from the sessions (removed by hand, here) is not listed.
      const reader = await ready(store(100, 600_000, keyPrefix))
      t.teardown(() => reader.close())
      const sessions = `${keyPrefix}sessions`
      await reader.client.hdel(sessions, sessionId(grace))
      const after = (await two.inject({ method: 'GET', url: '/admin/sessions', headers: admin })).json()
      t.same(after.sessions.map((s: { guid: string }) => s.guid), [anon, ada])
      // Sessions idle past the idle time are not listed nor counted, and the board sweeps them.
      await reader.client.zadd(`${keyPrefix}lru`, 1024, sessionId(grace))
      await reader.client.zadd(`${keyPrefix}lru`, 1024, sessionId(anon))
      const expired = (await two.inject({ method: 'GET', url: '/admin/sessions', headers: admin })).json()
      t.same(expired.sessions.map((s: { guid: string }) => s.guid), [ada])
      t.equal(expired.total, 1)
      t.equal(await reader.client.hexists(sessions, sessionId(anon)), 0, 'swept by the board')
      await reader.client.zadd(`${keyPrefix}lru`, 1024, sessionId(anon))
      const pruned = (await one.inject({ method: 'GET', url: '/admin/summary', headers: admin })).json()
      t.equal(pruned.live, 1, 'the index entries of sessions idle for ages are gone')
      t.equal(await reader.client.zscore(`${keyPrefix}lru`, sessionId(anon)), null)
      // Created before names and times were kept (no time of making): its last activity stands in.
      const packed = await reader.client.hget(sessions, sessionId(ada)) as string
      await reader.client.hset(sessions, sessionId(ada), packed.replace(/^(-?\d+ \d) \d+ /, '$1  '))
      const old = (await one.inject({ method: 'GET', url: '/admin/sessions', headers: admin })).json().sessions[0]
      t.equal(old.createdAt, (old.lastSeen as string).replace(/\.\d{3}Z$/, 'Z'), 'its last activity, to the second')
      const bad = await one.inject({ method: 'GET', url: `/admin/sessions?cursor=${Buffer.from('m5').toString('base64url')}`, headers: admin })
      t.equal(bad.statusCode, 400, 'a memory-store cursor means nothing here')
    })

    t.test('the board pages through many sessions in Redis, even with equal scores', async t => {
      const keyPrefix = prefix()
      const s = await ready(store(1000, 600_000, keyPrefix))
      t.teardown(() => s.close())
      const made: string[] = []
      for (let i = 0; i < 25; i++) made.push((await s.create()).guid)
      // Give several sessions one score, half of them used (in lru) and half not (in new): they are then
      // ordered by guid across the two indexes, and the cursor must step over them.
      for (const guid of made.slice(5, 15).filter((_, i) => i % 2 === 0)) await s.get(guid)
      const score = Number(await s.client.zscore(`${keyPrefix}new`, sessionId(made[14] as string)))
      for (const guid of made.slice(5, 15)) {
        const index = await s.client.zscore(`${keyPrefix}new`, sessionId(guid)) === null ? 'lru' : 'new'
        await s.client.zadd(`${keyPrefix}${index}`, score, sessionId(guid))
      }
      t.same([await s.client.zcard(`${keyPrefix}lru`), await s.client.zcard(`${keyPrefix}new`)], [5, 20])
      const pages: string[] = []
      let page = await s.list(4)
      for (;;) {
        pages.push(...page.sessions.map(x => x.guid))
        if (page.next === null) break
        page = await s.list(4, page.next)
      }
      t.equal(pages.length, 25)
      t.equal(new Set(pages).size, 25, 'every session once')
      const tied = pages.filter(guid => made.slice(5, 15).includes(guid))
      t.same(tied, [...tied].sort().reverse(), 'equal scores: by guid, descending')
    })

    t.test('Redis going away: 503 and the heartbeat says so; back: it recovers with nothing lost', async t => {
      const sessions = store()
      const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: sessions, creationRateLimit: 0 } })
      t.teardown(() => app.close())
      await app.ready()
      await ready(sessions)
      const guid = (await app.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
      const token = (await app.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': guid, authorization: basic('admin', 'password') } })).headers['x-auth-token'] as string
      const auth = { 'x-challenger': guid, 'x-auth-token': token }
      t.equal((await app.inject({ method: 'POST', url: '/secret/note', headers: { ...auth, ...json }, payload: { note: 'before the outage' } })).statusCode, 200)

      // 'close' alone: once() would reject on the 'error' (ECONNRESET) a connection killed mid-read emits first.
      const gone = new Promise(resolve => sessions.client.once('close', resolve))
      await redis.stop()
      await gone
      const heartbeat = await app.inject({ method: 'GET', url: '/heartbeat' })
      t.equal(heartbeat.statusCode, 503, 'the heartbeat reports the outage')
      const named = await app.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': guid } })
      t.equal(named.statusCode, 503, 'with a session named too')
      t.equal(named.headers['content-type'], 'text/html;charset=utf-8', 'in the heartbeat\'s own form')
      t.equal((await app.inject({ method: 'PATCH', url: '/heartbeat', headers: { 'x-challenger': guid } })).statusCode, 500, 'PATCH is still its 500')
      for (const [method, url, headers] of [['GET', '/secret/note', auth], ['POST', '/challenger', {}], ['GET', `/challenger/${guid}`, {}]] as const) {
        const res = await app.inject({ method, url, headers })
        t.equal(res.statusCode, 503, `${method} ${url}`)
        t.same(res.json(), { errorMessages: ['The session store is unavailable; try again shortly'] })
      }
      await t.rejects(sessions.get(guid), StoreUnavailableError)

      await redis.start()
      await ready(sessions)
      t.equal((await app.inject({ method: 'GET', url: '/heartbeat' })).statusCode, 204, 'recovered without a restart')
      t.same((await app.inject({ method: 'GET', url: '/secret/note', headers: auth })).json(), { note: 'before the outage' }, 'nothing written before was lost')
    })
  })
}

t.test('a Redis older than 7.0 (its scripts\' flags came with 7.0) is said once connected, and the heartbeat says 503', async t => {
  // Enough of Redis 6.2 for a client: INFO names its version, any script is an error, QUIT closes, the rest OK.
  const fake = createTcpServer(socket => {
    let pending = ''
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1')
      for (;;) {
        const command = /^\*(\d+)\r\n/.exec(pending)
        if (command === null) return
        const lines = pending.split('\r\n')
        const count = Number(command[1])
        if (lines.length < 1 + 2 * count + 1) return
        const name = (lines[2] as string).toUpperCase()
        pending = lines.slice(1 + 2 * count).join('\r\n')
        if (name === 'INFO') {
          const info = '# Server\r\nredis_version:6.2.14\r\nloading:0\r\n'
          socket.write(`$${info.length}\r\n${info}\r\n`)
        } else if (name.startsWith('EVAL')) socket.write('-ERR Error compiling script (new function): user_script:1: unexpected symbol near \'#\'\r\n')
        else if (name === 'QUIT') socket.end('+OK\r\n')
        else socket.write('+OK\r\n')
      }
    })
  })
  fake.listen(0, '127.0.0.1')
  await once(fake, 'listening')
  t.teardown(() => { fake.close() })
  const port = (fake.address() as AddressInfo).port
  const sessions = new RedisStore({ url: `redis://127.0.0.1:${port}`, prefix: 'old:', idleMs: 600_000, maxSessions: 10, probeIntervalMs: 3_600_000 })
  const said: Array<{ available: boolean, reason: string }> = []
  sessions.onStatus(status => said.push(status))
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: sessions } })
  t.teardown(() => app.close())
  await app.ready()
  while (said.length < 1) await new Promise(resolve => setImmediate(resolve))
  t.match(said, [{ available: false, reason: 'cannot run this service\'s scripts (Redis 6.2.14; version 7.0 or later is needed)' }])
  t.equal(sessions.available(), false)
  t.equal((await app.inject({ method: 'GET', url: '/heartbeat' })).statusCode, 503)
})

t.test('waitReplicas: a write is acknowledged once a replica has it; without the replica, 503 and the heartbeat says so, until it is back', { skip: redisMissing }, async t => {
  const primary = await redisServer()
  t.teardown(() => primary.remove())
  const replica = await redisServer(['--replicaof', '127.0.0.1', String(primary.port)])
  t.teardown(() => replica.remove())
  const sessions = new RedisStore({ url: primary.url, prefix: 'wait:', idleMs: 600_000, maxSessions: 10, commandTimeoutMs: 1000, probeIntervalMs: 100, waitReplicas: 1 })
  const said: string[] = []
  sessions.onStatus(status => said.push(status.reason))
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: sessions } })
  t.teardown(() => app.close())
  await app.ready()
  // The replica is stopped below: this client's failed reconnections are expected, not reported
  // (without a listener, ioredis prints each to stderr as an "Unhandled error event").
  const watcher = new Redis(replica.url).on('error', () => {})
  t.teardown(() => watcher.disconnect())
  const heartbeat = async (): Promise<number> => (await app.inject({ method: 'GET', url: '/heartbeat' })).statusCode
  // The replica in sync first (until then WAIT finds no replica).
  await until('the replica in sync', async () => /master_link_status:up/.test(await watcher.info('replication')) && await heartbeat() === 204)
  // On a loaded machine the replica's first confirmation can take longer than WAIT's 500 ms: polled, as below.
  let made = await app.inject({ method: 'POST', url: '/challenger' })
  await until('a write confirmed', async () => {
    if (made.statusCode !== 201) made = await app.inject({ method: 'POST', url: '/challenger' })
    return made.statusCode === 201
  })
  t.equal(made.statusCode, 201)
  const guid = made.headers['x-challenger'] as string
  t.equal(await watcher.hexists('wait:sessions', sessionId(guid)), 1, 'on the replica once acknowledged')

  await replica.stop()
  t.equal((await app.inject({ method: 'POST', url: '/challenger' })).statusCode, 503, 'no replica confirms: 503')
  await until('503', async () => await heartbeat() === 503)
  t.match(said.at(-1), /^refuses this service's commands \(WAIT: 0 of 1 replicas confirmed the write within 500 ms\)$/)
  await replica.start()
  await until('204', async () => await heartbeat() === 204)
  // The replica resyncs as it comes back: writes are confirmed again once it has (polled, not timed).
  await until('201', async () => (await app.inject({ method: 'POST', url: '/challenger' })).statusCode === 201)
  t.equal(await heartbeat(), 204, 'back with the replica')
})

t.test('waitReplicas: a write waits for every replica the primary has: one that joined since the last probe, and one that left until the probe after the one that found it gone (issue 57)', { skip: redisMissing }, async t => {
  const primary = await redisServer(['--appendonly', 'no'])
  t.teardown(() => primary.remove())
  const first = await redisServer(['--appendonly', 'no', '--replicaof', '127.0.0.1', String(primary.port)])
  t.teardown(() => first.remove())
  // No probe but those the test asks for (and the one on connecting).
  const sessions = new RedisStore({ url: primary.url, prefix: 'every:', idleMs: 600_000, maxSessions: 10, probeIntervalMs: 3_600_000, waitReplicas: 1 })
  const said: string[] = []
  sessions.onStatus(status => said.push(status.reason))
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: sessions } })
  t.teardown(() => app.close())
  await app.ready()
  const onPrimary = new Redis(primary.url)
  t.teardown(() => onPrimary.disconnect())
  const online = async (count: number): Promise<boolean> => (/^connected_slaves:(\d+)$/m.exec(await onPrimary.info('replication'))?.[1] === String(count)) &&
    ((await onPrimary.info('replication')).match(/state=online/g) ?? []).length === count
  const create = async (): Promise<number> => (await app.inject({ method: 'POST', url: '/challenger' })).statusCode
  await until('the first replica in sync', () => online(1))
  await until('a write confirmed by it', async () => { await sessions.probe(); return await create() === 201 })

  // A second replica, come since the last probe, frozen before it confirms anything: the next write waits for it too.
  const second = await redisServer(['--appendonly', 'no', '--replicaof', '127.0.0.1', String(primary.port)])
  t.teardown(() => second.remove())
  const onSecond = new Redis(second.url).on('error', () => {})
  t.teardown(() => onSecond.disconnect())
  await until('the second replica in sync', () => online(2))
  const pid = Number(/^process_id:(\d+)/m.exec(await onSecond.info('server'))?.[1])
  process.kill(pid, 'SIGSTOP')
  try {
    t.equal(await create(), 503, 'the first write after it came waits for it, and it does not confirm')
    t.equal(said.at(-1), 'refuses this service\'s commands (WAIT: 1 of 2 replicas confirmed the write within 500 ms)')
  } finally {
    process.kill(pid, 'SIGCONT')
  }
  await until('both confirm again', async () => { await sessions.probe(); return sessions.available() })
  const made = await app.inject({ method: 'POST', url: '/challenger' })
  t.equal(made.statusCode, 201)
  t.equal(await onSecond.hexists('every:sessions', sessionId(made.headers['x-challenger'] as string)), 1, 'on the second replica once acknowledged')

  // The second replica gone: waited for until the probe after the one that found it gone.
  await second.stop()
  await until('the primary finds it gone', () => online(1))
  t.equal(await create(), 503, 'gone: a write still waits for it')
  await sessions.probe()
  t.equal(sessions.available(), false, 'the probe that finds it gone still waits for it (it may be the replica Sentinel promotes)')
  await sessions.probe()
  t.equal(sessions.available(), true, 'the probe after it does not')
  t.equal(await create(), 201, 'and writes are confirmed by the replica left')
})

t.test('a Redis Cluster is refused in one line that names Sentinel, and the heartbeat says 503', { skip: redisMissing }, async t => {
  const cluster = await redisServer(['--cluster-enabled', 'yes'])
  t.teardown(() => cluster.remove())
  const sessions = new RedisStore({ url: cluster.url, prefix: 'cluster:', idleMs: 600_000, maxSessions: 10, probeIntervalMs: 3_600_000 })
  const said: Array<{ available: boolean, reason: string }> = []
  sessions.onStatus(status => said.push(status))
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: sessions } })
  t.teardown(() => app.close())
  await app.ready()
  while (said.length < 1) await new Promise(resolve => setImmediate(resolve))
  t.match(said, [{
    available: false,
    reason: 'is a Redis Cluster, which this service does not use (every session lives in one hash, so a cluster adds no capacity and its slots refuse the scripts: use one Redis, with Sentinel for failover)'
  }])
  t.equal(sessions.available(), false)
  t.equal((await app.inject({ method: 'GET', url: '/heartbeat' })).statusCode, 503)
  t.equal((await app.inject({ method: 'POST', url: '/challenger' })).statusCode, 503)
})
