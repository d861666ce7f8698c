// Whether the Redis store can serve (starting → up ⇄ down), told by the connection's events, failed commands,
// a regular probe (the Redis's role, then a script) and Sentinel's news of a failover, so that the heartbeat
// says 503 even with no traffic, and nothing is written to a Redis that is not the primary. Each change is said once.
import type { Redis } from 'ioredis'
import { StoreUnavailableError, type StoreFields, type StoreStatus } from '../store.js'
import { RedisClock } from './clock.js'
import { explainConnectionError } from './connection.js'
import { DOWN, EVENT, UP, type Outage } from './outages.js'
import { ReplicaShortfall, type Replicas } from './replicas.js'
import { hostPort, type FailoverNews } from './sentinel-watch.js'

/** The oldest Redis the scripts run on: their shebang and flags (see scripts.ts) came with 7.0. */
const OLDEST_REDIS = 7
const CLUSTER = 'every session lives in one hash, so a cluster adds no capacity and its slots refuse the scripts: use one Redis, with Sentinel for failover'

// A command that timed out here, or a script that reached Redis past its deadline: too slow either way.
const timedOut = (error: unknown): boolean => /timed out|^LATE /i.test((error as Error).message)
/** An error that Redis answered (OOM, READONLY, NOAUTH, LOADING, …) or a replica shortfall, as its first line. */
const refusal = (error: unknown): string | undefined =>
  error instanceof ReplicaShortfall || (error instanceof Error && error.name === 'ReplyError') ? error.message.split('\n')[0] : undefined

export interface AvailabilityOptions {
  /** How long a command, or a connection attempt, may take. */
  timeoutMs: number
  probeIntervalMs: number
  /** How long a probe waits for its answer before Redis counts as hanging. */
  probeTimeoutMs: number
  probe: () => Promise<number>
  /** host:port of a URL's Redis; none with Sentinel, where the connection names the primary it found. */
  address?: string
  /** Replicas each write waits for at least: a primary with no more than this many is warned of, once. */
  waitReplicas?: number
  /** The primary's replicas, as each probe's ROLE finds them (see ./replicas.ts). */
  replicas?: Replicas
  /** How long writes wait for Sentinel's switch once it chose a replica to promote. */
  failoverMaxMs?: number
  now?: () => number
}

/** The connections' streams that a second error cannot throw from (see the 'error' listener below). */
const guarded = new WeakSet<object>()

export class Availability {
  readonly #client: Redis
  readonly #timeoutMs: number
  readonly #probeIntervalMs: number
  readonly #probeTimeoutMs: number
  readonly #probeScript: () => Promise<number>
  readonly #address: string | undefined
  readonly #waitReplicas: number
  readonly #replicas: Replicas | undefined
  readonly #failoverMaxMs: number
  readonly #now: () => number
  readonly clock: RedisClock
  // False after a command timed out on a connection that still looks fine, until one gets through.
  #responsive = true
  /** What Redis answered to the last command it refused (OOM, READONLY, …), until a probe passes. */
  #refusal: string | undefined
  #closing = false
  #lastError: string | undefined
  /** Why the Redis connected to cannot serve at all (too old, a cluster). */
  #unfit: string | undefined
  /** The connected Redis's role, as its last ROLE said: none until the probe of a new connection asks. */
  #role: 'primary' | 'replica' | undefined
  /** host:port of the Redis connected to (or last connected to). */
  #node: string | undefined
  /** With Sentinel, the primary as the sentinels last named it, a host name with `announce-hostnames yes` (see redirect()). */
  #named: string | undefined
  /** A failover under way: no write until the new primary (`to`, once switched from `from`) answers, or `timer` gives up. */
  #fence: { from?: string, to?: string, timer: NodeJS.Timeout } | undefined
  /** When the connection was last made. */
  #readyAt = 0
  /** The primary has no more replicas than each write waits for (said once). */
  #fewReplicas = false
  #state: 'starting' | 'up' | 'down' = 'starting'
  #outage: Outage = 'start'
  #downSince = 0
  #status: StoreStatus | undefined
  readonly #listeners: Array<(status: StoreStatus) => void> = []
  #probeTimer: NodeJS.Timeout | undefined
  /** What a new connection does first (INFO, then a probe), for connected() to wait for. */
  #settling: Promise<void> = Promise.resolve()
  #probing: Promise<void> | undefined
  /** The probe command Redis has not answered yet: it may outlive the probe that gave up on it. */
  #unanswered: Promise<void> | undefined

  constructor (client: Redis, options: AvailabilityOptions) {
    this.#client = client
    this.#timeoutMs = options.timeoutMs
    this.#probeIntervalMs = options.probeIntervalMs
    this.#probeTimeoutMs = options.probeTimeoutMs
    this.#probeScript = options.probe
    this.#address = options.address
    this.#node = options.address
    this.#waitReplicas = options.waitReplicas ?? 0
    this.#replicas = options.replicas
    this.#failoverMaxMs = options.failoverMaxMs ?? 30_000
    this.#now = options.now ?? Date.now
    this.clock = new RedisClock(this.#now)
    // Listened for, as an unhandled 'error' would end the process; the failing commands report it.
    client.on('error', (error: Error) => {
      this.#lastError = explainConnectionError(error, client)
      // ioredis listens for one error of a stream (once): a second, as TLS can give while closing,
      // would end the process. (No stream while unreachable sentinels are asked, whatever its type says.)
      const stream = client.stream as typeof client.stream | undefined
      if (stream !== undefined && !guarded.has(stream)) {
        guarded.add(stream)
        stream.on('error', () => {})
      }
      // Redis refused the connection (WRONGPASS, NOAUTH): said even when down already (a rotated password shows first as lost).
      const reason = refusal(error)
      if (reason !== undefined) this.#refused(reason)
      // Not reached yet: said at once (unreachable sentinels never give a 'close').
      else if (this.#state === 'starting') this.#down('start', this.#lastError)
    })
    client.on('close', () => {
      this.#down('lost', this.#lastError ?? 'the connection closed')
    })
    client.on('ready', () => {
      this.#lastError = undefined
      this.#unfit = undefined
      this.#role = undefined
      this.#readyAt = this.#now()
      this.#node = this.#address ?? hostPort(client.stream.remoteAddress as string, client.stream.remotePort as number)
      // Perhaps another Redis (a failover): the probe below measures its clock.
      this.clock.forget()
      // After a switch, the new primary only, by its address or by the host name the sentinels gave it (see redirect()).
      if (this.#fence?.to !== undefined) {
        if (this.#node !== this.#fence.to && this.#named !== this.#fence.to) return client.disconnect(true)
        this.#unfence()
      }
      // What it is (without INFO or a version, the scripts' errors will tell), then a probe: its role, then a script.
      this.#settling = client.info().then(info => {
        const version = /^redis_version:(\S+)/m.exec(info)?.[1]
        if (Number(version?.split('.')[0]) < OLDEST_REDIS) {
          this.#unfit = version
          this.#down('old', `Redis ${version}; version ${OLDEST_REDIS}.0 or later is needed`)
        } else if (/^cluster_enabled:1/m.test(info)) {
          this.#unfit = 'cluster'
          this.#down('cluster', CLUSTER)
        }
      }, () => {}).then(() => this.probe())
    })
    this.#scheduleProbe()
  }

  /** Calls `listener` once per change of availability, and at once with the current state if known. */
  onStatus (listener: (status: StoreStatus) => void): void {
    this.#listeners.push(listener)
    if (this.#status !== undefined) listener(this.#status)
  }

  #report (available: boolean, reason: string, fields: StoreFields, warn = false): void {
    const said = { event: fields.event, reason: fields.reason, redis: this.#node, role: this.#role, outageMs: fields.outageMs }
    const status = { available, reason, fields: said, ...(warn ? { warn } : {}) }
    this.#status = status
    for (const listener of this.#listeners) listener(status)
  }

  #up (): void {
    if (this.#closing || this.#state === 'up' || this.#unfit !== undefined || this.#role !== 'primary' || this.#fence !== undefined) return
    const outageMs = this.#state === 'down' && this.#outage !== 'start' ? this.#now() - this.#downSince : undefined
    const [event, text] = UP[this.#outage]
    // With Sentinel, which primary it found.
    const primary = this.#address === undefined && event === 'connected' ? ` (primary ${this.#node})` : ''
    this.#state = 'up'
    this.#report(true, `${text}${primary}${outageMs === undefined ? '' : ` after ${(outageMs / 1000).toFixed(1)} s`}`, { event, outageMs })
  }

  /** `news`: Sentinel's, said even when down already. */
  #down (outage: Outage, detail: string, news = false): void {
    if (this.#closing) return
    if (this.#state === 'down') {
      // Down already: said again only for news, or when Redis now says why (it refuses), unless it is unfit.
      if (!news && (outage !== 'refused' || this.#outage === 'refused' || this.#unfit !== undefined)) return
    } else {
      this.#downSince = this.#now()
    }
    this.#outage = outage
    this.#state = 'down'
    this.#report(false, `${DOWN[this.#outage]} (${detail})`, { event: EVENT[this.#outage], reason: detail })
  }

  /** A script that may write passed: Redis answers and runs this store's scripts. */
  #answered (): void {
    this.#responsive = true
    this.#refusal = undefined
    if (this.#client.status === 'ready') this.#up()
  }

  /** A script that only reads passed: Redis answers (whether it runs writes, the probe tells). */
  #heard (): void {
    this.#responsive = true
    if (this.#client.status === 'ready' && this.#refusal === undefined) this.#up()
  }

  #refused (reason: string): void {
    this.#refusal = reason
    // A write sent before a failover's news falls short as the replica promoted leaves: the failover's line says why.
    if (this.#fence === undefined || !reason.startsWith('WAIT:')) this.#down('refused', reason)
  }

  #failed (error: unknown, waitedMs: number): void {
    const reason = refusal(error)
    if (timedOut(error)) this.#stalled(waitedMs)
    else if (reason !== undefined) this.#refused(reason)
  }

  #stalled (ms: number): void {
    this.#responsive = false
    this.#down('hang', `no answer within ${ms} ms`)
  }

  /** Why a command is not sent at all: to a Redis that is not the primary, in a failover, or while replicas fall short (each WAIT would wait). */
  #held (): string | undefined {
    if (this.#fence !== undefined) return 'a failover is under way'
    if (this.#role !== 'primary') return 'the Redis connected to is not known to be a primary'
    return this.#refusal?.startsWith('WAIT:') === true ? this.#refusal : undefined
  }

  /** Runs a command (`writes`: a script that may write), learning from its outcome; any failure is a StoreUnavailableError. */
  async run<T> (command: () => Promise<T>, writes: boolean): Promise<T> {
    const held = this.#held()
    if (held !== undefined) throw new StoreUnavailableError(new Error(held))
    try {
      const result = await command()
      if (writes) this.#answered()
      else this.#heard()
      return result
    } catch (error) {
      this.#failed(error, this.#timeoutMs)
      throw new StoreUnavailableError(error)
    }
  }

  deadline (): string {
    return this.clock.deadline(this.#timeoutMs)
  }

  /** How long the connection waits before its next attempt: at once after a switch, then soon, as the sentinels catch up. */
  retryDelay (attempt: number): number {
    return this.#fence === undefined ? Math.min(attempt * 100, 250) : Math.min((attempt - 1) * 50, 250)
  }

  /** Sentinel's news (see ./sentinel-watch.ts): no write from the choice of a replica until the new primary answers. */
  failover (news: FailoverNews): void {
    if (news.news === 'abandoned') {
      this.#unfence()
      // The old primary again, if it still is one: the probe tells (it never rejects).
      this.probe()
      return
    }
    this.#unfence()
    const timer = setTimeout(() => { this.failover({ news: 'abandoned' }) }, this.#failoverMaxMs).unref()
    this.#fence = news.news === 'switched' ? { from: news.from, to: news.to, timer } : { timer }
    if (news.news === 'switched') {
      this.#down('switch', `Sentinel moved it from ${news.from} to ${news.to}`, true)
      // A new connection at once, to the new primary: the old one's is dropped, not ended (a frozen
      // primary would never answer the goodbye; ioredis would wait two seconds for it).
      this.#client.stream?.destroy()
    } else {
      this.#down('failover', `Sentinel chose ${news.replica} to promote: nothing is written until the switch`, true)
    }
  }

  /**
   * With Sentinel, where to connect instead of `address` (host:port, as a sentinel named the primary):
   * after a switch, a sentinel that has not heard of it yet still names the old primary, meaning the new one.
   * ioredis asks this of the sentinels it learns of, then of the primary, then connects: the last asked is the primary.
   */
  redirect (address: string): { host: string, port: number } | null {
    const at = address.lastIndexOf(':')
    const named = hostPort(address.slice(0, at), address.slice(at + 1))
    const to = named === this.#fence?.from ? this.#fence.to : undefined
    this.#named = to ?? named
    if (to === undefined) return null
    const [, toHost, toPort] = /^\[?(.*?)\]?:(\d+)$/.exec(to) as unknown as [string, string, string]
    return { host: toHost, port: Number(toPort) }
  }

  #unfence (): void {
    clearTimeout(this.#fence?.timer)
    this.#fence = undefined
  }

  #scheduleProbe (): void {
    if (this.#closing) return
    this.#probeTimer = setTimeout(() => {
      this.probe().then(() => { this.#scheduleProbe() })
    }, this.#probeIntervalMs).unref()
  }

  /** Asks Redis its role, then whether it runs scripts, or joins the probe under way; resolves once answered or timed out. */
  async probe (): Promise<void> {
    this.#probing ??= this.#probeOnce().finally(() => { this.#probing = undefined })
    await this.#probing
  }

  async #probeOnce (): Promise<void> {
    // In a failover, the old primary is of no more interest (and its replicas leave it, one by one).
    if (this.#client.status !== 'ready' || this.#fence !== undefined) return
    // A probe Redis still holds is waited for again, not joined by another: a long hang does not fill
    // Redis's queue, and its late answer is the sign that Redis is back.
    this.#unanswered ??= this.#ask().catch((error: unknown) => { this.#failed(error, this.#timeoutMs) }).finally(() => { this.#unanswered = undefined })
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<boolean>(resolve => { timer = setTimeout(resolve, this.#probeTimeoutMs, true).unref() })
    const gaveUp = await Promise.race([this.#unanswered.then(() => false), late])
    clearTimeout(timer)
    if (gaveUp) this.#stalled(this.#probeTimeoutMs)
  }

  /** ROLE, then (on a primary) the probe's script, which measures Redis's clock. */
  async #ask (): Promise<void> {
    const [role, second, third] = await this.#client.call('ROLE') as [string, unknown, unknown]
    if (role !== 'master') {
      // A replica (a URL that names one, or an old primary Sentinel demoted): nothing is sent to it, and a
      // connection older than a probe's interval is made again, which with Sentinel, or a name that moved, finds the primary.
      this.#role = 'replica'
      this.#down('replica', `a replica of ${hostPort(String(second), String(third))}`)
      if (this.#now() - this.#readyAt >= this.#probeIntervalMs) this.#client.disconnect(true)
      return
    }
    this.#role = 'primary'
    const replicas = third as Array<[host: string, port: string, offset: string]>
    this.#replicas?.observed(this.#node as string, replicas.map(([host, port]) => hostPort(host, port)))
    const sent = this.#now()
    const redisMs = await this.#probeScript()
    this.clock.measured(sent, this.#now(), redisMs)
    this.#answered()
    this.#countReplicas(replicas.length)
  }

  /** Says once when the primary has no more replicas than each write waits for: a failover would leave too few. */
  #countReplicas (replicas: number): void {
    const few = replicas <= this.#waitReplicas && this.#waitReplicas > 0
    if (few && !this.#fewReplicas) {
      this.#report(this.available(), `has too few replicas (${replicas}): with ${this.#waitReplicas} to confirm each write, ` +
        `${this.#waitReplicas + 1} are needed to serve on after a failover (its new primary has one fewer)`, { event: 'few-replicas', reason: `${replicas} of ${this.#waitReplicas + 1}` }, true)
    }
    this.#fewReplicas = few
  }

  /** Resolves once connected and probed (so that the first scripts carry deadlines), or after the connect timeout. */
  async connected (): Promise<void> {
    if (this.#client.status !== 'ready') {
      await new Promise<void>(resolve => {
        const done = (): void => { clearTimeout(timer); this.#client.off('ready', done); resolve() }
        const timer = setTimeout(done, this.#timeoutMs)
        this.#client.once('ready', done)
      })
    }
    await this.#settling
  }

  /** Up, as the log last said (so that the heartbeat's 204 and the line agree), and still so. */
  available (): boolean {
    return this.#state === 'up' && this.#client.status === 'ready' && this.#responsive && this.#refusal === undefined && this.#unfit === undefined && this.#held() === undefined
  }

  close (): void {
    this.#closing = true
    clearTimeout(this.#probeTimer)
    this.#unfence()
  }
}
