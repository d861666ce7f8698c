// Failovers of a class's Redis as docs/redis/ ships it (a primary, two replicas, three sentinels), with
// learners writing numbered notes through the service: a split brain (the primary stopped past the
// sentinels' down-after, then continued), a planned SENTINEL FAILOVER, and an instance pointed at a
// writable replica. Each note answered 200 is looked for afterwards in the primary the sentinels name:
// with the documented safe settings none is lost; with the defaults, no more than docs/operations.md's bound.
// Then the same under load (busy loops on every core, 200 learners as fast as they can): ten planned
// failovers in a row, a kill -9 and a split brain, every session's last acknowledged note looked for
// (docs/operations.md's figures are this test's comments). And the log of a real outage, against the docs'
// list of the store's events.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import t, { type Test } from 'tap'
import { configFromEnv } from '../src/domain/config/config.js'
import { RedisStore } from '../src/domain/sessions/redis-store.js'
import { logged, type LogLine } from './logged.js'
import { redisClass, type RedisClass, type RedisNode } from './redis-class.js'
import { redisMissing, redisServer } from './redis-server.js'
import { until } from './until.js'

interface Learner {
  guid: string
  headers: Record<string, string>
  /** The notes answered 200, with when. */
  acked: Array<{ n: number, at: number }>
}

/** A store line as the log has it. */
type StoreLine = LogLine & { event: string, state: string, reason?: string, redis?: string, role?: string, outageMs?: number }
const storeLines = (lines: LogLine[]): StoreLine[] => lines.filter(line => line.store !== undefined) as StoreLine[]

const WARN = 40
const INFO = 30

async function heartbeat (app: FastifyInstance): Promise<number> {
  return (await app.inject({ method: 'GET', url: '/heartbeat' })).statusCode
}

async function learners (app: FastifyInstance, count: number): Promise<Learner[]> {
  const made: Learner[] = []
  for (let i = 0; i < count; i++) {
    const created = await app.inject({ method: 'POST', url: '/challenger' })
    const guid = created.headers['x-challenger'] as string
    const token = await app.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': guid, authorization: 'Basic ' + Buffer.from('admin:password').toString('base64') } })
    made.push({ guid, headers: { 'x-challenger': guid, 'x-auth-token': token.headers['x-auth-token'] as string }, acked: [] })
  }
  return made
}

/** Each learner writes notes 1, 2, 3, … one after the other, `everyMs` apart, until stopped. */
function writing (app: FastifyInstance, learners: Learner[], everyMs: number): { stop: () => Promise<void> } {
  const state = { running: true }
  const loops = learners.map(async learner => {
    for (let n = 1; state.running; n++) {
      const answer = await app.inject({ method: 'POST', url: '/secret/note', headers: learner.headers, payload: { note: String(n) } })
      if (answer.statusCode === 200) learner.acked.push({ n, at: performance.now() })
      await sleep(everyMs)
    }
  })
  return { stop: async () => { state.running = false; await Promise.all(loops) } }
}

const acked = (learners: Learner[]): Array<{ n: number, at: number }> => learners.flatMap(learner => learner.acked)

/** When the first note acknowledged after `switched` that the new primary holds was acknowledged (Infinity: none). */
const firstOnNew = (all: Array<{ n: number, at: number }>, lost: Array<{ n: number, at: number }>, switched: number): number =>
  Math.min(...all.filter(note => note.at > switched && !lost.includes(note)).map(note => note.at))

/** The notes answered 200 that the primary the sentinels name does not hold: each learner's later than the one it holds. */
async function lostNotes (cls: RedisClass, learners: Learner[], prefix: string): Promise<Array<{ n: number, at: number }>> {
  const primary = await cls.primary()
  const store = new RedisStore({ url: primary.url, prefix, idleMs: 600_000, maxSessions: 1000 })
  try {
    await store.connected()
    const lost = []
    for (const learner of learners) {
      const held = Number((await store.get(learner.guid))?.note)
      lost.push(...learner.acked.filter(note => note.n > held))
    }
    return lost
  } finally {
    await store.close()
  }
}

/** When the test first heard each of Sentinel's events (performance.now()), from every sentinel. */
async function sentinelNews (t: Test, cls: RedisClass): Promise<Map<string, number>> {
  const heard = new Map<string, number>()
  for (const admin of cls.admins) {
    const listener = admin.duplicate().on('error', () => {})
    t.teardown(() => listener.disconnect())
    listener.on('message', (channel: string) => { if (!heard.has(channel)) heard.set(channel, performance.now()) })
    await listener.subscribe('+selected-slave', '+promoted-slave', '+switch-master')
  }
  return heard
}

/**
 * The faults the test under load makes (FAILOVER_ROUNDS planned failovers, FAILOVER_HARD_ROUNDS each of kill -9 and
 * split brain), its learners and its busy loops: set them to measure more.
 */
type Fault = 'planned' | 'kill -9' | 'split brain'
const ROUNDS = Number(process.env.FAILOVER_ROUNDS ?? 10)
const HARD_ROUNDS = Number(process.env.FAILOVER_HARD_ROUNDS ?? 1)
/** The sessions' idle time in the test under load: longer than any run. */
const IDLE_MS = 3 * 60 * 60 * 1000
// Each round waits for the class to settle (a failover's old primary rejoins some 10 s later): 10 + 1 + 1 take about
// 3 minutes here; the whole file gets half a minute a round and three more, at least .taprc's 600 s.
t.setTimeout(Math.max(600_000, (ROUNDS + 2 * HARD_ROUNDS) * 30_000 + 180_000))
// CI runs this beside three other test files (.taprc's jobs): 2 busy loops and 100 learners load a 2-core machine
// enough; FAILOVER_HOGS=4 FAILOVER_WRITERS=200 is the heavier load the trial had.
const WRITERS = Number(process.env.FAILOVER_WRITERS ?? 100)
const HOGS = Number(process.env.FAILOVER_HOGS ?? 2)

/** Busy loops in processes of their own, a loaded machine: stopped by the function returned, or on teardown. */
function cpuHogs (t: Test, count: number): () => void {
  const hogs = Array.from({ length: count }, () => spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }))
  const stop = (): void => { for (const hog of hogs) hog.kill('SIGKILL') }
  t.teardown(stop)
  return stop
}

/** What the sentinels say of each failover: the switch away from each primary (by port, when first heard), and the failovers they gave up. */
interface Failovers { switched: Map<number, number>, abandoned: string[] }

async function failoversHeard (t: Test, cls: RedisClass): Promise<Failovers> {
  const heard: Failovers = { switched: new Map(), abandoned: [] }
  for (const admin of cls.admins) {
    const listener = admin.duplicate().on('error', () => {})
    t.teardown(() => listener.disconnect())
    listener.on('message', (channel: string, message: string) => {
      // <master> <old-ip> <old-port> <new-ip> <new-port>; a primary is switched away from once per round, said by each sentinel.
      const from = Number(message.split(' ')[2])
      if (channel !== '+switch-master') heard.abandoned.push(channel)
      else if (!heard.switched.has(from)) heard.switched.set(from, performance.now())
    })
    // Published by the sentinel in charge only: a failover it gave up before the switch.
    await listener.subscribe('+switch-master', '-failover-abort-no-good-slave', '-failover-abort-not-elected', '-failover-abort-slave-timeout')
  }
  return heard
}

/**
 * SENTINEL FAILOVER, asked of one sentinel after another until one switches away from `from`: on a machine this
 * loaded, Sentinel may give a failover up (a replica that missed its 5 s to answer a ping is no candidate).
 */
async function plannedFailover (t: Test, cls: RedisClass, failovers: Failovers, from: number, first: number): Promise<void> {
  for (let asked = first; !failovers.switched.has(from); asked++) {
    const abandoned = failovers.abandoned.length
    await until('SENTINEL FAILOVER accepted', async () => await (cls.admins[asked % 3] as Redis).call('SENTINEL', 'FAILOVER', 'mymaster') === 'OK', 30_000, 250)
    await until('the sentinels switch, or give the failover up', () => failovers.switched.has(from) || failovers.abandoned.length > abandoned, 60_000)
    if (!failovers.switched.has(from)) t.comment(`Sentinel gave the failover up (${failovers.abandoned.at(-1) as string}); asked again`)
  }
}

/** A session's run of acknowledged notes, ended by a refusal or by the test: the last acknowledged, and the last sent. */
interface Check { guid: string, acked: number, sent: number, at: number }

/**
 * `count` learners writing notes 1, 2, 3, … as fast as they can. A learner's first answer that is not 200 ends its
 * session's run (a Check), and it goes on with a new session: so each note acknowledged last before a refusal can
 * be looked for afterwards, one session each.
 */
function busyClass (app: FastifyInstance, count: number): { acked: () => number, lastAck: () => number, checks: () => Check[], stop: () => Promise<void> } {
  const state = { running: true, acked: 0, lastAck: 0 }
  const checks: Check[] = []
  const session = async (): Promise<Record<string, string> | undefined> => {
    const created = await app.inject({ method: 'POST', url: '/challenger' })
    if (created.statusCode !== 201) return undefined
    const guid = created.headers['x-challenger'] as string
    const token = await app.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': guid, authorization: 'Basic ' + Buffer.from('admin:password').toString('base64') } })
    return token.statusCode === 201 ? { 'x-challenger': guid, 'x-auth-token': token.headers['x-auth-token'] as string } : undefined
  }
  const loops = Array.from({ length: count }, async () => {
    let headers: Record<string, string> | undefined
    let n = 0
    let acked = 0
    let ackedAt = 0
    while (state.running) {
      headers ??= await session()
      if (headers === undefined) {
        // As a person would try again: not at once.
        await sleep(100)
        continue
      }
      const answer = await app.inject({ method: 'POST', url: '/secret/note', headers, payload: { note: String(++n) } })
      if (answer.statusCode === 200) {
        ackedAt = Date.now()
        acked = n
        state.acked++
        state.lastAck = performance.now()
      } else {
        if (acked > 0) checks.push({ guid: headers['x-challenger'] as string, acked, sent: n, at: ackedAt })
        headers = undefined
        n = 0
        acked = 0
      }
      await sleep(1)
    }
    if (headers !== undefined && acked > 0) checks.push({ guid: headers['x-challenger'] as string, acked, sent: n, at: ackedAt })
  })
  let stopped: Promise<void> | undefined
  return {
    acked: () => state.acked,
    lastAck: () => state.lastAck,
    checks: () => checks,
    stop: async () => { state.running = false; stopped ??= Promise.all(loops).then(() => {}); await stopped }
  }
}

/** The checks whose session, on the primary the sentinels name, holds an older note than its last acknowledged one. */
async function lostChecks (cls: RedisClass, checks: Check[], prefix: string): Promise<Array<Check & { held: number }>> {
  const primary = await cls.primary()
  const store = new RedisStore({ url: primary.url, prefix, idleMs: IDLE_MS, maxSessions: 1000 })
  try {
    await until('the primary answers', () => store.available())
    const held: number[] = []
    // A hundred at a time, each asked again while the machine is too busy for the command timeout.
    for (let from = 0; from < checks.length; from += 100) {
      held.push(...await Promise.all(checks.slice(from, from + 100).map(async check => {
        let note: string | undefined
        await until(`${check.guid}'s note read`, async () => { note = (await store.get(check.guid))?.note; return true })
        return Number(note)
      })))
    }
    return checks.map((check, i) => ({ ...check, held: held[i] as number })).filter(check => !(check.held >= check.acked && check.held <= check.sent))
  } finally {
    await store.close()
  }
}

// Following the switch takes 20 to 500 ms on a quiet machine, up to about 2 s on CI's loaded one;
// without following it, the first note on the new primary came only once Sentinel demoted the old
// one, some 10 s later (or, frozen, never within the test).
const FOLLOWS_WITHIN_MS = 5000

// The settings docs/operations.md calls safe, and the defaults (Redis's own: no min-replicas-to-write).
const SETTINGS = [
  { name: 'the documented safe settings (docs/redis/*.conf, REDIS_WAIT_REPLICAS=1)', redis: [], waitReplicas: '1', safe: true },
  { name: 'the defaults (REDIS_WAIT_REPLICAS=0, no min-replicas-to-write)', redis: ['--min-replicas-to-write', '0'], waitReplicas: '0', safe: false }
]

/** The service on `cls`, ten learners writing, and what the sentinels say. */
async function lesson (t: Test, cls: RedisClass, waitReplicas: string, prefix: string): Promise<{ app: FastifyInstance, lines: LogLine[], class: Learner[], run: { stop: () => Promise<void> }, news: Map<string, number> }> {
  await cls.settled()
  const news = await sentinelNews(t, cls)
  const { app, lines } = await logged(t, configFromEnv({ REDIS_SENTINELS: cls.sentinels, REDIS_WAIT_REPLICAS: waitReplicas, REDIS_PREFIX: prefix }).app)
  const group = await learners(app, 10)
  const run = writing(app, group, 20)
  await until('notes acknowledged', () => acked(group).length >= 50)
  return { app, lines, class: group, run, news }
}

if (redisMissing !== false && process.env.CI === 'true') {
  t.fail(redisMissing)
} else {
  for (const settings of SETTINGS) {
    t.test(`a split brain (the primary stopped past down-after, then continued) with ${settings.name}`, { skip: redisMissing }, async t => {
      const cls = await redisClass(t, settings.redis)
      const { app, lines, class: group, run, news } = await lesson(t, cls, settings.waitReplicas, 'split:')
      const primary = await cls.primary()
      const stopped = performance.now()
      primary.child.kill('SIGSTOP')
      await until('the sentinels switch', () => news.has('+switch-master'))
      const switched = news.get('+switch-master') as number
      await until('a note acknowledged after the switch, or 5 s', () => acked(group).some(note => note.at > switched) || performance.now() - switched > 5000)
      primary.child.kill('SIGCONT')
      // The old primary is back, believing itself the primary, for seconds until Sentinel demotes it: the learners write on.
      await sleep(1500)
      await run.stop()
      const lost = await lostNotes(cls, group, 'split:')
      const all = acked(group)
      const followed = firstOnNew(all, lost, switched) - switched
      t.comment(`SIGSTOP → +switch-master ${Math.round(switched - stopped)} ms; first note on the new primary ${Math.round(followed)} ms after it; ${all.length} notes acknowledged, ${lost.length} lost`)
      t.ok(followed <= FOLLOWS_WITHIN_MS, `the service follows the switch at once (${Math.round(followed)} ms)`)
      if (settings.safe) {
        t.same(lost, [], 'no acknowledged note is lost')
      } else {
        // docs/operations.md: with the defaults, only notes the primary acknowledged before it stopped and had
        // not yet sent to a replica (its replication lag, here well under 100 ms) can be lost.
        const bound = all.filter(note => note.at > stopped - 100 && note.at <= switched)
        t.ok(lost.every(note => note.at <= switched) && lost.length <= bound.length, `lost ${lost.length}, within the bound of ${bound.length}`)
      }
      t.equal(await heartbeat(app), 204)
      const said = storeLines(lines).map(line => line.event)
      t.ok(said.includes('switch-master'), `the switch is said: ${said.join(', ')}`)
      t.equal(said.filter(event => event === 'switch-master').length, 1, 'once, though each sentinel says it')
    })

    t.test(`a planned SENTINEL FAILOVER with ${settings.name}`, { skip: redisMissing }, async t => {
      const cls = await redisClass(t, settings.redis)
      const { app, lines, class: group, run, news } = await lesson(t, cls, settings.waitReplicas, 'planned:')
      const old = await cls.primary()
      const asked = performance.now()
      await (cls.admins[0] as Redis).call('SENTINEL', 'FAILOVER', 'mymaster')
      await until('the sentinels switch', () => news.has('+switch-master'))
      const switched = news.get('+switch-master') as number
      await until('a note acknowledged after the switch, or 5 s', () => acked(group).some(note => note.at > switched) || performance.now() - switched > 5000)
      // The old primary stays one, unaware, until Sentinel demotes it some seconds later: the learners write on.
      await sleep(1500)
      await run.stop()
      const lost = await lostNotes(cls, group, 'planned:')
      const first = firstOnNew(acked(group), lost, switched)
      t.not((await cls.primary()).port, old.port, 'another primary')
      t.comment(`SENTINEL FAILOVER → +switch-master ${Math.round(switched - asked)} ms; first note on the new primary ${Math.round(first - switched)} ms after it (${Math.round(first - asked)} ms after the command); ${acked(group).length} notes acknowledged, ${lost.length} lost`)
      t.ok(first - switched <= FOLLOWS_WITHIN_MS, `the service follows the switch at once (${Math.round(first - switched)} ms)`)
      t.same(lost, [], 'no acknowledged note is lost')
      t.equal(await heartbeat(app), 204)
      const said = storeLines(lines)
      // With REDIS_WAIT_REPLICAS=1, the new primary's one replica is one too few for another failover, until the old one rejoins.
      // The few-replicas warning comes when a probe counts the replicas: after the switch, or (on a loaded
      // machine) already on the old primary as its replica leaves; so it is looked for apart from the rest.
      const events = said.slice(1).map(line => `${line.event} ${line.state}`)
      // On a loaded machine the new primary's other replica may attach after its first probe, whose WAIT then
      // finds none: the store says it refuses (WAIT: 0 of 1), then that it accepts again, the outage counted from the switch.
      const waited = said.find(line => line.event === 'refusing')
      t.same(events.filter(event => !event.startsWith('few-replicas ')),
        waited === undefined ? ['failover down', 'switch-master down', 'connected up'] : ['failover down', 'switch-master down', 'refusing down', 'accepting up'],
        'the choice of a replica, the switch, the new primary')
      if (waited !== undefined) t.match(waited, { reason: /^(WAIT: 0 of 1 replicas confirmed|NOREPLICAS )/ }, 'refused only while the new primary has no replica yet')
      if (settings.safe) t.ok(events.some(event => event.startsWith('few-replicas ')), 'few replicas said: with REDIS_WAIT_REPLICAS=1, one replica left is one too few')
      const back = said.find(line => (line.event === 'connected' || line.event === 'accepting') && line.outageMs !== undefined)
      t.match(back, {
        level: INFO,
        role: 'primary',
        redis: `127.0.0.1:${(await cls.primary()).port}`,
        msg: waited === undefined ? /connected again \(primary 127\.0\.0\.1:\d+\) after \d+\.\d s$/ : /accepts commands again after \d+\.\d s$/
      })
      t.ok((back?.outageMs as number) < 10_000, `with the outage's length: ${back?.outageMs} ms`)
    })
  }

  t.test(`under load, ${ROUNDS} planned SENTINEL FAILOVERs, then a kill -9 and a split brain of the primary ${HARD_ROUNDS} time(s) each, with the documented safe settings: no acknowledged note is lost`, { skip: redisMissing }, async t => {
    const cls = await redisClass(t)
    await cls.settled()
    const failovers = await failoversHeard(t, cls)
    // Sessions left after a 503 are looked for at the end: they must outlive a long run (CLASS=1's 3 hours).
    const { app } = await logged(t, configFromEnv({ REDIS_SENTINELS: cls.sentinels, REDIS_WAIT_REPLICAS: '1', REDIS_PREFIX: 'rounds:', CREATION_RATE_LIMIT: '0', SESSION_IDLE_MS: String(IDLE_MS) }).app)
    const calm = cpuHogs(t, HOGS)
    const run = busyClass(app, WRITERS)
    t.teardown(() => run.stop())
    const faults: Fault[] = [...Array<Fault>(ROUNDS).fill('planned'), ...Array<Fault>(HARD_ROUNDS).fill('kill -9'), ...Array<Fault>(HARD_ROUNDS).fill('split brain')]
    const rounds: Array<{ fault: Fault, from: number, to: number, acked: number }> = []
    for (const [i, fault] of faults.entries()) {
      await cls.settled()
      const before = run.acked()
      const from = Date.now()
      // A bound load cannot reach: the class has settled, and only a machine far busier than the test's would take this long.
      await until('notes acknowledged before the fault', () => run.acked() >= before + 2 * WRITERS, 180_000)
      const old = await cls.primary()
      failovers.switched.delete(old.port)
      const began = performance.now()
      if (fault === 'planned') await plannedFailover(t, cls, failovers, old.port, i)
      else old.child.kill(fault === 'kill -9' ? 'SIGKILL' : 'SIGSTOP')
      await until('the sentinels switch', () => failovers.switched.has(old.port), 60_000)
      const switched = failovers.switched.get(old.port) as number
      // How long it takes is said, not judged here: on a machine this busy, connecting again took up to 26 s.
      const followed = await until('a note acknowledged after the switch', () => run.lastAck() > switched, 120_000) - switched
      // The old primary back: continued, it is a primary still, unaware, until Sentinel demotes it; restarted, the same.
      if (fault === 'split brain') old.child.kill('SIGCONT')
      if (fault === 'kill -9') await old.restart()
      // The learners write on.
      await sleep(1500)
      t.not((await cls.primary()).port, old.port, `round ${i + 1}, ${fault}: another primary`)
      rounds.push({ fault, from, to: Date.now(), acked: run.acked() - before })
      t.comment(`round ${i + 1}, ${fault}: the switch ${Math.round(switched - began)} ms after it began, a note acknowledged on the new primary within ${Math.round(followed)} ms of the switch`)
    }
    const [load] = loadavg()
    await run.stop()
    calm()
    await cls.settled()
    const checks = run.checks()
    const lost = await lostChecks(cls, checks, 'rounds:')
    for (const fault of new Set(faults)) {
      const these = rounds.filter(round => round.fault === fault)
      const lostHere = lost.filter(check => these.some(round => check.at >= round.from && check.at <= round.to))
      t.comment(`${fault}: ${these.length} under load (${HOGS} busy loops, ${WRITERS} learners, load average ${load?.toFixed(1)}), ${these.reduce((sum, round) => sum + round.acked, 0)} notes acknowledged meanwhile, ${lostHere.length} lost`)
    }
    t.comment(`in all: ${run.acked()} notes acknowledged, the last of ${checks.length} sessions' runs looked for, ${lost.length} lost`)
    t.same(lost, [], 'no acknowledged note is lost')
  })

  t.test('with the safe settings, a replica frozen (SIGSTOP) is waited for, 503, until the sentinels find it down; then the other confirms the writes', { skip: redisMissing }, async t => {
    const cls = await redisClass(t)
    await cls.settled()
    const { app } = await logged(t, configFromEnv({ REDIS_SENTINELS: cls.sentinels, REDIS_WAIT_REPLICAS: '1', REDIS_PREFIX: 'frozen-replica:' }).app)
    const create = async (): Promise<number> => (await app.inject({ method: 'POST', url: '/challenger' })).statusCode
    await until('a write confirmed by both replicas', async () => await create() === 201)
    const primary = await cls.primary()
    const replica = cls.nodes.find(node => node !== primary) as RedisNode
    // The store serves on once any sentinel says the replica is down (src/domain/sessions/redis/replicas.ts):
    // each finds it down on its own, so the first of them to say so is the one to compare with.
    let down = 0
    for (const admin of cls.admins) {
      const listener = admin.duplicate().on('error', () => {})
      t.teardown(() => listener.disconnect())
      listener.on('message', (_channel: string, message: string) => { if (message.startsWith(`slave 127.0.0.1:${replica.port} `)) down ||= performance.now() })
      await listener.subscribe('+sdown')
    }
    const frozen = performance.now()
    replica.child.kill('SIGSTOP')
    try {
      t.equal(await create(), 503, 'the frozen replica confirms nothing: 503')
      const served = await until('a write confirmed again', async () => await create() === 201, 30_000, 100)
      t.ok(down > 0 && served >= down, `confirmed again once a sentinel found it down: +sdown ${Math.round(down - frozen)} ms, the next write ${Math.round(served - frozen)} ms after SIGSTOP`)
    } finally {
      replica.child.kill('SIGCONT')
    }
    await cls.settled()
    await until('a write confirmed by both again', async () => await create() === 201)
  })

  t.test('with sentinels that name hosts (announce-hostnames yes), the switch is followed at once too', { skip: redisMissing }, async t => {
    const cls = await redisClass(t, [], { hostnames: true })
    const { lines, class: group, run, news } = await lesson(t, cls, '1', 'hostnames:')
    await (cls.admins[0] as Redis).call('SENTINEL', 'FAILOVER', 'mymaster')
    await until('the sentinels switch', () => news.has('+switch-master'))
    const switched = news.get('+switch-master') as number
    await until('a note acknowledged after the switch, or 5 s', () => acked(group).some(note => note.at > switched) || performance.now() - switched > FOLLOWS_WITHIN_MS)
    await run.stop()
    const lost = await lostNotes(cls, group, 'hostnames:')
    const first = firstOnNew(acked(group), lost, switched)
    t.ok(first - switched <= FOLLOWS_WITHIN_MS, `the new primary, named by host, is written to at once (${Math.round(first - switched)} ms after the switch)`)
    t.same(lost, [], 'no acknowledged note is lost')
    const port = (await cls.primary()).port
    t.match(storeLines(lines).find(line => line.event === 'switch-master'), { msg: new RegExp(`to localhost:${port}\\b`) }, 'the switch names the host as the sentinels do')
    // Named by its address (127.0.0.1 or ::1: localhost is both).
    // 'accepting' when the first WAIT on the new primary found no replica yet (see the planned failover above).
    const back = (): StoreLine | undefined => storeLines(lines).find(line => (line.event === 'connected' || line.event === 'accepting') && line.outageMs !== undefined)
    await until('the line of the new primary', () => back() !== undefined)
    t.match(back(), { role: 'primary', redis: new RegExp(`:${port}$`) })
  })

  t.test('an instance pointed at a writable replica acknowledges no write: 503, heartbeat 503, store_up 0, one line', { skip: redisMissing }, async t => {
    const primary = await redisServer(['--appendonly', 'no'])
    t.teardown(() => primary.remove())
    const replica = await redisServer(['--appendonly', 'no', '--replicaof', '127.0.0.1', String(primary.port), '--replica-read-only', 'no'])
    t.teardown(() => replica.remove())
    const onReplica = new Redis(replica.url)
    t.teardown(() => onReplica.disconnect())
    await until('the replica in sync', async () => /master_link_status:up/.test(await onReplica.info('replication')), 60_000)
    const TOKEN = 'an-admin-token-for-the-replica-0123'
    const { app, lines } = await logged(t, { redisUrl: replica.url, redisKeyPrefix: 'replica:', adminToken: TOKEN })
    const gauge = async (): Promise<string | undefined> => /^api_challenges_store_up (\d)$/m.exec((await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body)?.[1]
    t.equal(await heartbeat(app), 503)
    t.equal(await gauge(), '0')
    const answers = []
    for (let i = 0; i < 20; i++) answers.push((await app.inject({ method: 'POST', url: '/challenger' })).statusCode)
    t.same([...new Set(answers)], [503], 'every write 503')
    t.match((await app.inject({ method: 'POST', url: '/challenger' })).json(), { errorMessages: ['The session store is unavailable; try again shortly'] }, 'with the one error body')
    t.same(await onReplica.keys('replica:*'), [], 'nothing written to the replica')
    // Past a probe's interval it connects again, and says nothing more.
    await sleep(2500)
    const said = storeLines(lines)
    t.equal(said.length, 1, 'one line')
    t.match(said[0], { level: WARN, event: 'not-primary', state: 'down', role: 'replica', redis: `127.0.0.1:${replica.port}`, reason: `a replica of 127.0.0.1:${primary.port}` })
    t.match(said[0]?.msg, `Redis at 127.0.0.1:${replica.port} is a replica, not a primary: this service writes to a primary only (a replica of 127.0.0.1:${primary.port})`)

    // Promoted, it serves.
    await onReplica.replicaof('NO', 'ONE')
    await until('204', async () => await heartbeat(app) === 204)
    t.equal((await app.inject({ method: 'POST', url: '/challenger' })).statusCode, 201)
    t.match(storeLines(lines).at(-1), { level: INFO, event: 'primary', state: 'up', role: 'primary', msg: /is a primary again after \d+\.\d s$/ })
  })

  t.test('REDIS_WAIT_REPLICAS=1 with one replica: one warning that a failover would leave too few', { skip: redisMissing }, async t => {
    const primary = await redisServer(['--appendonly', 'no'])
    t.teardown(() => primary.remove())
    const replica = await redisServer(['--appendonly', 'no', '--replicaof', '127.0.0.1', String(primary.port)])
    t.teardown(() => replica.remove())
    const onPrimary = new Redis(primary.url)
    t.teardown(() => onPrimary.disconnect())
    await until('the replica in sync', async () => /slave0:.*state=online/.test(await onPrimary.info('replication')), 60_000)
    const { app, lines } = await logged(t, configFromEnv({ REDIS_URL: primary.url, REDIS_WAIT_REPLICAS: '1', REDIS_PREFIX: 'few:' }).app)
    await until('the warning', () => storeLines(lines).some(line => line.event === 'few-replicas'))
    t.equal(await heartbeat(app), 204, 'it serves')
    t.match(storeLines(lines).map(line => [line.level, line.event, line.state]), [[INFO, 'connected', 'up'], [WARN, 'few-replicas', 'up']])
    t.match(storeLines(lines)[1]?.msg, `Redis at 127.0.0.1:${primary.port} has too few replicas (1): with 1 to confirm each write, 2 are needed to serve on after a failover (its new primary has one fewer)`)

    // The replica away: the first write waits for it and is 503; the next ones are 503 without waiting. Counted by
    // the primary's WAIT calls, not timed (a loaded machine stretches a few milliseconds past WAIT's 500).
    await replica.stop()
    const waits = async (): Promise<number> => Number(/^cmdstat_wait:calls=(\d+)/m.exec(await onPrimary.info('commandstats'))?.[1] ?? 0)
    const post = async (): Promise<number> => (await app.inject({ method: 'POST', url: '/challenger' })).statusCode
    const before = await waits()
    const began = performance.now()
    t.equal(await post(), 503)
    const firstMs = performance.now() - began
    t.ok(firstMs >= 400, `the first waits for WAIT (${Math.round(firstMs)} ms)`)
    const waited = await waits()
    t.ok(waited > before, `the first asked WAIT (${waited - before} call(s))`)
    const next = []
    const tenBegan = performance.now()
    for (let i = 0; i < 10; i++) next.push(await post())
    t.same(next, new Array(10).fill(503))
    // The probe (every second) tries one write, WAIT and all, to learn whether the replicas are back: at most one
    // WAIT per second of the ten, however slow the machine. Ten writes that each waited would send ten more.
    const probes = Math.floor((performance.now() - tenBegan) / 1000) + 1
    const sent = await waits() - waited
    t.ok(sent <= probes, `the next ten do not wait: ${sent} WAIT(s) in their ${probes} probe interval(s), the probe's`)
    t.equal(await heartbeat(app), 503)
  })

  t.test('the log of a real outage (Redis stopped and started) holds the events docs/operations.md lists, with their fields', { skip: redisMissing }, async t => {
    const documented = documentedEvents()
    t.ok(documented.size >= 10, `the docs list the events: ${[...documented.keys()].join(', ')}`)
    const redis = await redisServer(['--appendonly', 'no'])
    t.teardown(() => redis.remove())
    const { app, lines } = await logged(t, { redisUrl: redis.url, redisKeyPrefix: 'outage:' })
    await redis.stop()
    await until('503', async () => await heartbeat(app) === 503)
    await redis.start()
    await until('204', async () => await heartbeat(app) === 204)
    const said = storeLines(lines)
    t.same(said.map(line => line.event), ['connected', 'unreachable', 'connected'])
    for (const line of said) {
      const doc = documented.get(line.event)
      t.ok(doc, `${line.event} is in the docs' list`)
      t.equal(line.level, doc?.level === 'warn' ? WARN : INFO, `${line.event}: at the documented level`)
      t.ok(doc?.state === 'either' || doc?.state === line.state, `${line.event}: state ${line.state}`)
      t.equal(line.redis, `127.0.0.1:${redis.port}`, `${line.event}: names the Redis`)
    }
    t.match(said, [{ role: 'primary' }, { reason: /^(the connection closed|read ECONNRESET)$/ }, { role: 'primary', outageMs: Number }])
  })
}

/** docs/operations.md's table of the store's events: event → level and state. */
function documentedEvents (): Map<string, { level: string, state: string }> {
  const docs = readFileSync(new URL('../docs/operations.md', import.meta.url), 'utf8')
  const events = new Map<string, { level: string, state: string }>()
  for (const [, event, level, state] of docs.matchAll(/^\| `([a-z-]+)` \| (info|warn) \| (up|down|either) \|/gm)) events.set(event as string, { level: level as string, state: state as string })
  return events
}
