// A Redis that hangs or goes away is noticed without any traffic: a probe about every second turns
// the heartbeat 503 and back, one at a time; and the log says each change once, naming host:port
// and never the password.
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { redisAddress, RedisStore, StoreUnavailableError } from '../src/domain/sessions/redis-store.js'
import { loadScripts } from '../src/domain/sessions/redis/scripts.js'
import { Availability } from '../src/domain/sessions/redis/availability.js'
import { ReplicaShortfall } from '../src/domain/sessions/redis/replicas.js'
import { logged, type LogLine } from './logged.js'
import { freePort, redisMissing, redisServer } from './redis-server.js'
import { until } from './until.js'

/** A return says how long the outage lasted ("answers again after 1.2 s"): here as "after N s". */
const lasted = (text: string): string => text.replace(/ after \d+\.\d s$/, ' after N s')
const redisLines = (lines: LogLine[]): Array<[number, string]> => lines.filter(line => line.store !== undefined).map(line => [line.level, lasted(line.msg)])

async function heartbeat (app: FastifyInstance): Promise<number> {
  return (await app.inject({ method: 'GET', url: '/heartbeat' })).statusCode
}

/**
 * A TCP forwarder to Redis that can hold what passes, as a stalled link does: both ways, or only the
 * answers; release() sends everything held, in order.
 */
async function holdingForwarder (redisPort: number): Promise<{ port: number, hold: (what: 'both' | 'answers') => void, release: () => void, close: () => Promise<void> }> {
  let holding: 'none' | 'both' | 'answers' = 'none'
  const held: Array<[Socket, Buffer]> = []
  const sockets = new Set<Socket>()
  const pass = (to: Socket, data: Buffer, answer: boolean): void => {
    if (holding === 'both' || (holding === 'answers' && answer)) held.push([to, data])
    else to.write(data)
  }
  const server = createServer(client => {
    const upstream = connect(redisPort, '127.0.0.1')
    sockets.add(client).add(upstream)
    client.on('data', data => { pass(upstream, data, false) })
    upstream.on('data', data => { pass(client, data, true) })
    const end = (): void => { client.destroy(); upstream.destroy() }
    client.on('close', end).on('error', end)
    upstream.on('close', end).on('error', end)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    port: (server.address() as AddressInfo).port,
    hold: what => { holding = what },
    release: () => {
      holding = 'none'
      for (const [to, data] of held.splice(0)) to.write(data)
    },
    close: async () => {
      for (const socket of sockets) socket.destroy()
      server.close()
      await once(server, 'close')
    }
  }
}

const WARN = 40
const INFO = 30
const AFTER = ': requests that need a session, and GET /heartbeat, answer 503 until it is back'

t.test('log lines name Redis by host:port, never by its credentials', async t => {
  t.equal(redisAddress('redis://learner:s3cret@redis.example:6380/2'), 'redis.example:6380')
  t.equal(redisAddress('rediss://:s3cret@redis.example'), 'redis.example:6379', 'the default port')
  t.equal(redisAddress('redis://[::1]:7000'), '[::1]:7000')
  t.equal(redisAddress('redis:///0'), 'localhost:6379', 'the default host, as ioredis takes it')
})

if (redisMissing !== false && process.env.CI === 'true') {
  t.fail(redisMissing)
} else {
  t.test('Redis probe', { skip: redisMissing }, async t => {
    const redis = await redisServer()
    t.teardown(() => redis.remove())
    const admin = new Redis(redis.url)
    t.teardown(() => admin.disconnect())

    t.test('with no traffic, the heartbeat is 503 within about 2 s of a hang (CLIENT PAUSE) and 204 once it ends', async t => {
      // The default probe: about every second, each waiting up to a second.
      const { app, lines } = await logged(t, { redisUrl: redis.url, redisKeyPrefix: 'hang:' })
      t.equal(await heartbeat(app), 204)
      const pauseMs = 3000
      // Every command waits, PING included; nothing but the heartbeat below reaches the app. Timed
      // from before the command is sent, so the pause ends no sooner than paused + pauseMs.
      const paused = performance.now()
      await admin.call('CLIENT', 'PAUSE', String(pauseMs))
      const down = await until('503', async () => await heartbeat(app) === 503) - paused
      t.ok(down <= 2500, `503 ${Math.round(down)} ms after the pause`)
      const up = await until('204', async () => await heartbeat(app) === 204) - paused
      t.ok(up >= pauseMs - 10, `204 ${Math.round(up)} ms after the pause, once it ended`)
      t.ok(up <= pauseMs + 1500, `204 ${Math.round(up - pauseMs)} ms after the pause ended`)
      t.comment(`pause → 503: ${Math.round(down)} ms; end of the pause → 204: ${Math.round(up - pauseMs)} ms`)
      const address = `127.0.0.1:${redis.port}`
      t.same(redisLines(lines), [
        [INFO, `Redis at ${address} connected`],
        [WARN, `Redis at ${address} stopped answering (no answer within 1000 ms)${AFTER}`],
        [INFO, `Redis at ${address} answers again after N s`]
      ], 'said once each, however often the heartbeat was asked')
      const lastedS = Number(/ after (\d+\.\d) s$/.exec(lines.filter(line => line.store !== undefined).at(-1)?.msg ?? '')?.[1])
      t.ok(Math.abs(lastedS - (up - down) / 1000) <= 0.5, `the return says the outage lasted ${lastedS} s; the heartbeat saw ${((up - down) / 1000).toFixed(1)} s`)
    })

    t.test('one probe at a time: under CLIENT PAUSE WRITE (where PING still passes) one probe waits, and its late answer ends the outage', async t => {
      // A probe waits 500 ms: far below the commands' 3 s, and beyond what a loaded machine delays an
      // answer by (at 100 ms, a probe after the outage timed out under CI's load: a second outage).
      const store = new RedisStore({ url: redis.url, prefix: 'write:', idleMs: 600_000, maxSessions: 10, commandTimeoutMs: 3000, probeIntervalMs: 20, probeTimeoutMs: 500 })
      await until('connected', () => store.available())
      // A store that connected before the app registered it: the log still says so.
      const { app, lines } = await logged(t, { store })
      let probes = 0
      // The probe script, by its text's SHA-1 (EVALSHA), or its text (EVAL): not the sweep sent beside it.
      const probeLua = loadScripts().find(([name]) => name === 'probe')?.[2] as string
      const probeSha = createHash('sha1').update(probeLua).digest('hex')
      const send = store.client.sendCommand.bind(store.client)
      store.client.sendCommand = (command, stream) => {
        if (/^eval/i.test(command.name) && [probeSha, probeLua].includes(String(command.args[0]))) probes++
        return send(command, stream)
      }

      // Probes sent before the hang were answered; from here on, one may wait, and none may follow it.
      await until('a probe sent', () => probes > 0)
      await admin.call('CLIENT', 'PAUSE', '60000', 'WRITE')
      const beforeHang = probes
      const paused = performance.now()
      t.equal(await admin.ping(), 'PONG', 'a PING would not notice')
      const down = await until('503', async () => await heartbeat(app) === 503) - paused
      t.ok(down < 3000, `503 ${Math.round(down)} ms after the pause, before any command's timeout`)
      for (let i = 0; i < 3; i++) await store.probe()
      t.equal(store.available(), false)
      t.ok(probes >= 1, 'the probes are counted')
      t.ok(probes - beforeHang <= 1, `${probes - beforeHang} probe command sent in a hang of ${Math.round(performance.now() - paused)} ms, while the interval is 20 ms`)

      await admin.call('CLIENT', 'UNPAUSE')
      const unpaused = performance.now()
      const up = await until('204', async () => await heartbeat(app) === 204) - unpaused
      t.ok(up < 3000, `204 ${Math.round(up)} ms after CLIENT UNPAUSE, before any command's timeout`)
      const address = `127.0.0.1:${redis.port}`
      t.same(redisLines(lines), [
        [INFO, `Redis at ${address} connected`],
        [WARN, `Redis at ${address} stopped answering (no answer within 500 ms)${AFTER}`],
        [INFO, `Redis at ${address} answers again after N s`]
      ])
    })

    t.test('a request that times out in a hang says so too, and a probe while Redis answers changes nothing', async t => {
      const store = new RedisStore({ url: redis.url, prefix: 'request:', idleMs: 600_000, maxSessions: 10, commandTimeoutMs: 150, probeIntervalMs: 60_000 })
      t.teardown(() => store.close())
      const seen: string[] = []
      store.onStatus(status => seen.push(status.reason))
      await once(store.client, 'ready')
      await store.probe()
      t.equal(store.available(), true)
      await admin.call('CLIENT', 'PAUSE', '60000', 'WRITE')
      await t.rejects(store.create(), StoreUnavailableError)
      t.equal(store.available(), false)
      await admin.call('CLIENT', 'UNPAUSE')
      await store.create()
      t.equal(store.available(), true)
      t.same(seen.map(lasted), ['connected', 'stopped answering (no answer within 150 ms)', 'answers again after N s'])
    })

    t.test('a connection made again during a hang is not taken for an answer: the probe decides', async t => {
      const store = new RedisStore({ url: redis.url, prefix: 'again:', idleMs: 600_000, maxSessions: 10, probeIntervalMs: 20, probeTimeoutMs: 500 })
      t.teardown(() => store.close())
      const seen: string[] = []
      store.onStatus(status => seen.push(status.reason))
      let connections = 0
      store.client.on('ready', () => { connections++ })
      // Connected, and found a primary by the first probe (on a loaded machine that may come later).
      await until('connected', () => connections === 1 && store.available())
      const id = await store.client.client('ID')
      await admin.call('CLIENT', 'PAUSE', '60000', 'WRITE')
      await until('hang noticed', () => !store.available())
      // Connecting needs no script (its checks pass under a write pause): 'ready', and still hanging.
      await admin.call('CLIENT', 'KILL', 'ID', String(id))
      await until('connected again', () => connections === 2)
      await store.probe()
      t.equal(store.available(), false, 'still not answering')
      await admin.call('CLIENT', 'UNPAUSE')
      await until('answering', () => store.available())
      t.same(seen.map(lasted), ['connected', 'stopped answering (no answer within 500 ms)', 'answers again after N s'], 'one outage')
    })

    t.test('Sentinel\'s news: nothing is written from its choice of a replica until the new primary answers, or until it gives up', async t => {
      // The store's availability alone, as with Sentinel (no address given: the connection names the primary).
      const client: Redis = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: (attempt: number) => availability.retryDelay(attempt) })
      t.teardown(() => client.disconnect())
      const availability: Availability = new Availability(client, {
        timeoutMs: 1000,
        probeIntervalMs: 3_600_000,
        probeTimeoutMs: 1000,
        failoverMaxMs: 300,
        probe: async () => { const [s, us] = await client.time(); return Number(s) * 1000 + Math.floor(Number(us) / 1000) }
      })
      t.teardown(() => availability.close())
      const said: string[] = []
      availability.onStatus(status => said.push(`${status.fields?.event}: ${lasted(status.reason)}`))
      let connections = 0
      client.on('ready', () => { connections++ })
      await availability.connected()
      const here = `127.0.0.1:${redis.port}`
      t.same(said, [`connected: connected (primary ${here})`])

      // A write sent before the news, whose WAIT falls short after it (the replica promoted left): the failover's line says why.
      let fallShort: (error: Error) => void = () => {}
      const inFlight = availability.run(async () => await new Promise((_resolve, reject) => { fallShort = reject }), true)
      availability.failover({ news: 'begins', replica: '127.0.0.1:1' })
      fallShort(new ReplicaShortfall(1, 2, 500))
      await t.rejects(inFlight, StoreUnavailableError)
      t.equal(availability.available(), false, 'from the choice of a replica')
      await t.rejects(availability.run(() => client.set('fenced', '1'), true), StoreUnavailableError)
      t.equal(await admin.exists('fenced'), 0, 'and not sent')
      await availability.probe()
      t.equal(availability.available(), false, 'a probe changes nothing')
      availability.failover({ news: 'abandoned' })
      await until('serving again', () => said.length === 3)
      availability.failover({ news: 'begins', replica: '127.0.0.1:1' })
      await until('serving once no switch followed in 300 ms', () => said.length === 5)
      t.equal(availability.available(), true)

      // A switch to a primary that never answers: the old one is refused until the failover is given up.
      const before = connections
      t.equal(availability.redirect(here), null, 'no switch: the primary a sentinel names')
      availability.failover({ news: 'switched', from: here, to: '127.0.0.1:1' })
      t.same(availability.redirect(here), { host: '127.0.0.1', port: 1 }, 'after the switch, the old primary means the new one')
      t.equal(availability.redirect('127.0.0.1:2'), null, 'and any other is itself')
      await until('serving once given up', () => said.length === 7)
      t.ok(connections - before >= 2, `the old primary refused after the switch (${connections - before} connections)`)
      // A switch to this one: followed at once.
      availability.failover({ news: 'switched', from: '127.0.0.1:1', to: here })
      t.equal(availability.available(), false)
      await until('serving the new primary', () => said.length === 9)
      t.equal(availability.available(), true)
      t.same(said.slice(1), [
        'failover: is failing over (Sentinel chose 127.0.0.1:1 to promote: nothing is written until the switch)',
        'accepting: accepts commands again: no switch followed after N s',
        'failover: is failing over (Sentinel chose 127.0.0.1:1 to promote: nothing is written until the switch)',
        'accepting: accepts commands again: no switch followed after N s',
        `switch-master: has a new primary (Sentinel moved it from ${here} to 127.0.0.1:1)`,
        `connected: connected again (primary ${here}) after N s`,
        `switch-master: has a new primary (Sentinel moved it from 127.0.0.1:1 to ${here})`,
        `connected: connected again (primary ${here}) after N s`
      ])
    })

    t.test('close() stops the probes, a probe under way included, and reports nothing', async t => {
      const store = new RedisStore({ url: redis.url, prefix: 'close:', idleMs: 600_000, maxSessions: 10, probeIntervalMs: 5 })
      const seen: string[] = []
      store.onStatus(status => seen.push(status.reason))
      let probes = 0
      let sent: () => void = () => {}
      const underWay = new Promise<void>(resolve => { sent = resolve })
      const send = store.client.sendCommand.bind(store.client)
      store.client.sendCommand = (command, stream) => {
        // The third script: the sweep of a probe the timer started (the first probe, with its sweep, is the connection's own).
        if (/^eval/i.test(command.name) && ++probes === 3) sent()
        return send(command, stream)
      }
      await underWay
      await store.close()
      const closed = probes
      await sleep(50)
      t.equal(probes, closed, 'no probe after close, in ten intervals')
      t.same(seen, ['connected'], 'closing is no outage')
    })

    t.test('a Redis that refuses the scripts (out of memory), or is a replica, turns the heartbeat and the gauge down within 3 s without traffic, and back within 3 s; a replica gets a new connection', async t => {
      const refusing = await redisServer(['--appendonly', 'no'])
      t.teardown(() => refusing.remove())
      const other = await redisServer(['--appendonly', 'no'])
      t.teardown(() => other.remove())
      const control = new Redis(refusing.url)
      t.teardown(() => control.disconnect())
      const TOKEN = 'an-admin-token-for-the-gauge-0123'
      // The service's own store, with the default probe (about every second).
      const store = new RedisStore({ url: refusing.url, prefix: 'refuse:', idleMs: 600_000, maxSessions: 10 })
      await until('connected', () => store.available())
      const { app, lines } = await logged(t, { store, adminToken: TOKEN })
      const gauge = async (): Promise<string | undefined> => /^api_challenges_store_up (\d)$/m.exec((await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body)?.[1]
      t.equal(await heartbeat(app), 204)
      t.equal(await gauge(), '1')
      let connections = 0
      store.client.on('ready', () => { connections++ })

      const address = `127.0.0.1:${refusing.port}`
      const outage = async (what: string, start: () => Promise<unknown>, end: () => Promise<unknown>): Promise<void> => {
        await start()
        const began = performance.now()
        const down = await until(`${what}: 503`, async () => await heartbeat(app) === 503) - began
        t.ok(down <= 3000, `${what}: 503 ${Math.round(down)} ms after, with no other request`)
        t.equal(await gauge(), '0', `${what}: api_challenges_store_up 0`)
        await end()
        const ended = performance.now()
        const up = await until(`${what}: 204`, async () => await heartbeat(app) === 204) - ended
        t.ok(up <= 3000, `${what}: 204 ${Math.round(up)} ms after it ended`)
        t.equal(await gauge(), '1', `${what}: api_challenges_store_up 1`)
      }
      await outage('maxmemory', () => control.config('SET', 'maxmemory', '1'), () => control.config('SET', 'maxmemory', '0'))
      const before = connections
      await outage('a replica', () => control.replicaof('127.0.0.1', String(other.port)), () => control.replicaof('NO', 'ONE'))
      t.ok(connections > before, 'a replica made the store connect again (a name that moved finds the new primary)')
      const said = redisLines(lines).slice(1)
      t.match(said, [
        [WARN, new RegExp(`^Redis at ${address} refuses this service's commands \\(OOM command not allowed`)],
        [INFO, `Redis at ${address} accepts commands again after N s`],
        [WARN, `Redis at ${address} is a replica, not a primary: this service writes to a primary only (a replica of 127.0.0.1:${other.port})${AFTER}`],
        [INFO, `Redis at ${address} is a primary again after N s`]
      ], 'one line each way, saying why')
      t.equal(said.length, 4, 'and nothing more')
    })

    t.test('a password changed under the service (its connection made again, the old password refused) turns the heartbeat down within 3 s, and back within 3 s of the password being right', async t => {
      const password = 'first-pw-8812'
      const guarded = await redisServer(['--appendonly', 'no', '--requirepass', password])
      t.teardown(() => guarded.remove())
      const control = new Redis({ host: '127.0.0.1', port: guarded.port, password })
      t.teardown(() => control.disconnect())
      const store = new RedisStore({ url: `redis://:${password}@127.0.0.1:${guarded.port}`, prefix: 'auth:', idleMs: 600_000, maxSessions: 10 })
      await until('connected', () => store.available())
      const { app, lines } = await logged(t, { store })
      t.equal(await heartbeat(app), 204)

      // A rotated password: connections already made keep theirs, so the service's is closed and made again.
      await control.config('SET', 'requirepass', 'second-pw-9913')
      const began = performance.now()
      await control.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes')
      const down = await until('503', async () => await heartbeat(app) === 503) - began
      t.ok(down <= 3000, `503 ${Math.round(down)} ms after its connection was closed`)
      t.equal((await app.inject({ method: 'POST', url: '/challenger' })).statusCode, 503, 'and a creation is 503')
      // Until the connection is made again and refused (ioredis waits a little before each attempt).
      await until('the refusal said', () => lines.some(line => /WRONGPASS/.test(line.msg)))
      t.equal(await heartbeat(app), 503, 'still 503 once refused')
      await control.config('SET', 'requirepass', password)
      const ended = performance.now()
      const up = await until('204', async () => await heartbeat(app) === 204) - ended
      t.ok(up <= 3000, `204 ${Math.round(up)} ms after the password was right again`)
      t.equal((await app.inject({ method: 'POST', url: '/challenger' })).statusCode, 201, 'and a creation is 201')
      const address = `127.0.0.1:${guarded.port}`
      t.match(redisLines(lines).slice(1), [
        [WARN, `Redis at ${address} is unreachable (the connection closed)${AFTER}`],
        [WARN, new RegExp(`^Redis at ${address} refuses this service's commands \\(WRONGPASS `)],
        [INFO, `Redis at ${address} accepts commands again after N s`]
      ], 'the connection lost, then why it is not made again, then back')
      t.equal(redisLines(lines).length, 4, 'and nothing more')
      t.notMatch(JSON.stringify(lines), password, 'the password is in no line')

      // No password at all: said at start as Redis's refusal (NOAUTH), not as a Redis that cannot be reached.
      const without = await logged(t, { redisUrl: `redis://127.0.0.1:${guarded.port}`, redisKeyPrefix: 'noauth:' })
      await until('a line', () => redisLines(without.lines).length > 0)
      t.match(redisLines(without.lines)[0], [WARN, new RegExp(`^Redis at ${address} refuses this service's commands \\(NOAUTH `)], 'without a password: NOAUTH, said at once')
      t.equal(await heartbeat(without.app), 503)
    })

    t.test('a write answered 503 is never applied after it: not when the link held it, and a later write stands', async t => {
      const forwarder = await holdingForwarder(redis.port)
      t.teardown(() => forwarder.close())
      // A through the forwarder, with a short command timeout; B straight to Redis.
      const a = new RedisStore({ url: `redis://127.0.0.1:${forwarder.port}`, prefix: 'held:', idleMs: 600_000, maxSessions: 10, commandTimeoutMs: 300, probeIntervalMs: 3_600_000 })
      t.teardown(() => a.close())
      const b = new RedisStore({ url: redis.url, prefix: 'held:', idleMs: 600_000, maxSessions: 10, probeIntervalMs: 3_600_000 })
      t.teardown(() => b.close())
      await until('connected', () => a.available() && b.available())
      // A's probe measures Redis's clock (the deadlines need it); a probe on connecting did already.
      await a.probe()
      const session = await b.create()

      for (const held of ['both ways', 'the answers only'] as const) {
        forwarder.hold(held === 'both ways' ? 'both' : 'answers')
        await t.rejects(a.update(session.guid, { note: `from A, ${held}` }), StoreUnavailableError, `A: 503 (${held})`)
        t.equal(a.available(), false, 'and A counts Redis as hanging')
        t.ok(await b.update(session.guid, { note: `from B, ${held}` }), 'B: written')
        forwarder.release()
        // The held bytes go first on A's connection: once A's probe is answered, Redis has read them.
        await until('A answers', async () => { await a.probe(); return a.available() })
        t.equal((await b.get(session.guid))?.note, `from B, ${held}`, `the note is B's (${held})`)
      }
    })

    t.test('a scrape of /metrics with the right token answers from memory while Redis is frozen (SIGSTOP) and still thought up (issue 57)', async t => {
      const frozen = await redisServer(['--appendonly', 'no'])
      t.teardown(() => frozen.remove())
      // A command waits up to 5 s here, and no probe comes to find the freeze: a scrape that asked Redis anything would take 5 s.
      const COMMAND_TIMEOUT_MS = 5000
      const store = new RedisStore({ url: frozen.url, prefix: 'frozen:', idleMs: 600_000, maxSessions: 10, commandTimeoutMs: COMMAND_TIMEOUT_MS, probeIntervalMs: 3_600_000 })
      await until('connected', () => store.available())
      const TOKEN = 'an-admin-token-for-the-scrape-0123'
      const { app } = await logged(t, { store, adminToken: TOKEN })
      const pid = Number(/^process_id:(\d+)/m.exec(await admin.info('server'))?.[1])
      const frozenPid = Number(/^process_id:(\d+)/m.exec(await store.client.info('server'))?.[1])
      t.not(frozenPid, pid, 'the frozen Redis is the test\'s own')
      process.kill(frozenPid, 'SIGSTOP')
      const times: number[] = []
      try {
        for (let i = 0; i < 5; i++) {
          const sent = performance.now()
          const res = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
          times.push(performance.now() - sent)
          t.equal(res.statusCode, 200, `scrape ${i + 1}`)
        }
        t.ok(store.available(), 'the store had not found the freeze: the scrapes were not spared by a known outage')
      } finally {
        process.kill(frozenPid, 'SIGCONT')
      }
      const slowest = Math.max(...times)
      t.comment(`scrapes with Redis frozen: ${times.map(ms => `${Math.round(ms)} ms`).join(', ')}`)
      // The bound is a fifth of the command timeout, which a loaded machine cannot reach answering from memory.
      t.ok(slowest < COMMAND_TIMEOUT_MS / 5, `each within ${COMMAND_TIMEOUT_MS / 5} ms: the slowest took ${Math.round(slowest)} ms`)
    })

    t.test('a Redis restarted: the heartbeat is 204 within 1 s of Redis answering PING', async t => {
      const restarted = await redisServer(['--appendonly', 'no'])
      t.teardown(() => restarted.remove())
      const { app } = await logged(t, { redisUrl: restarted.url, redisKeyPrefix: 'restart:' })
      t.equal(await heartbeat(app), 204)
      await restarted.stop()
      await until('503', async () => await heartbeat(app) === 503)
      await restarted.start()
      const ping = new Redis(restarted.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 10 })
      t.teardown(() => ping.disconnect())
      await until('PONG', async () => await ping.ping().then(answer => answer === 'PONG', () => false))
      const answering = performance.now()
      const up = await until('204', async () => await heartbeat(app) === 204) - answering
      t.ok(up <= 1000, `204 ${Math.round(up)} ms after Redis answered PING`)
    })

    t.test('unreachable at start: one warn at once naming host:port, never the password; info when it connects; once per change after', async t => {
      const password = 's3cret-pw-5521'
      const later = await redisServer(['--requirepass', password])
      t.teardown(() => later.remove())
      await later.stop()
      const address = `127.0.0.1:${later.port}`
      const registered = Date.now()
      const { app, lines } = await logged(t, { redisUrl: `redis://default:${password}@${address}`, redisKeyPrefix: 'start:' })
      const first = lines.find(line => line.store !== undefined)
      t.equal(first?.level, WARN)
      t.match(first?.msg, `Redis at ${address} cannot be reached (connect ECONNREFUSED ${address})${AFTER}`)
      t.equal(first?.store, `Redis at ${address}`)
      t.ok((first?.time ?? Infinity) - registered < 500, 'said at once, not after the connect timeout')
      t.equal(await heartbeat(app), 503)
      for (let i = 0; i < 3; i++) t.equal((await app.inject({ method: 'POST', url: '/challenger' })).statusCode, 503)
      t.same(lines.filter(line => line.level >= WARN && line.store === undefined), [], 'no line per refused request (and so no stack)')

      await later.start()
      await until('connected', async () => await heartbeat(app) === 204)
      t.equal((await app.inject({ method: 'POST', url: '/challenger' })).statusCode, 201, 'with the password from the URL')
      await later.stop()
      await until('gone', async () => await heartbeat(app) === 503)
      await later.start()
      await until('back', async () => await heartbeat(app) === 204)
      await app.close()

      // A killed Redis usually closes its end; rarely, with a command unread, it resets it.
      t.match(redisLines(lines), [
        [WARN, `Redis at ${address} cannot be reached (connect ECONNREFUSED ${address})${AFTER}`],
        [INFO, `Redis at ${address} connected`],
        [WARN, new RegExp(`^Redis at ${address} is unreachable \\((the connection closed|read ECONNRESET)\\)${AFTER}$`)],
        [INFO, `Redis at ${address} connected again after N s`]
      ], 'in that order')
      t.equal(redisLines(lines).length, 4, 'once each; and nothing when the app closes')
      t.notOk(JSON.stringify(lines).includes(password), 'the password is never logged')
    })
  })
}

t.test('sentinels that cannot be reached at start are said at once, as an unreachable Redis is', async t => {
  const port = await freePort()
  const store = new RedisStore({ sentinels: [`127.0.0.1:${port}`], prefix: 'nosentinel:', idleMs: 600_000, maxSessions: 10 })
  t.teardown(() => store.close())
  const said = await new Promise<{ available: boolean, reason: string }>(resolve => { store.onStatus(resolve) })
  t.equal(said.available, false)
  t.match(said.reason, /^cannot be reached \(All sentinels are unreachable/)
  t.equal(store.available(), false)
})
