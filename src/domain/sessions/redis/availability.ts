// Whether the Redis store can serve (starting → up ⇄ down), told by the connection's events, failed commands
// and a regular probe, so that the heartbeat says 503 even with no traffic. Each change is said once.
import type { Redis } from 'ioredis'
import { StoreUnavailableError, type StoreStatus } from '../store.js'
import { RedisClock } from './clock.js'
import { explainConnectionError } from './connection.js'

type Outage = 'start' | 'lost' | 'hang' | 'refused' | 'old' | 'cluster'
const DOWN: Record<Outage, string> = {
  start: 'cannot be reached',
  lost: 'is unreachable',
  hang: 'stopped answering',
  refused: 'refuses this service\'s commands',
  old: 'cannot run this service\'s scripts',
  cluster: 'is a Redis Cluster, which this service does not use'
}
const UP: Record<Outage, string> = { start: 'connected', lost: 'connected again', hang: 'answers again', refused: 'accepts commands again', old: 'connected', cluster: 'connected' }
/** The oldest Redis the scripts run on: their shebang and flags (see scripts.ts) came with 7.0. */
const OLDEST_REDIS = 7
const CLUSTER = 'every session lives in one hash, so a cluster adds no capacity and its slots refuse the scripts: use one Redis, with Sentinel for failover'

// A command that timed out here, or a script that reached Redis past its deadline: too slow either way.
const timedOut = (error: unknown): boolean => /timed out|^LATE /i.test((error as Error).message)
/** Fewer replicas than asked for (REDIS_WAIT_REPLICAS) confirmed a write: it is answered 503. */
export class ReplicaShortfall extends Error {
  constructor (confirmed: number, wanted: number, withinMs: number) {
    super(`WAIT: ${confirmed} of ${wanted} replicas confirmed the write within ${withinMs} ms`)
  }
}

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
      // Perhaps another Redis (a failover): the probe below measures its clock.
      this.clock.forget()
      // After a hang or a refusal, connected is not yet answering: the probe decides.
      if (this.#responsive && this.#refusal === undefined) this.#up()
      // Then what it is (without INFO or a version, the scripts' errors will tell), and a probe.
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

  #report (status: StoreStatus): void {
    this.#status = status
    for (const listener of this.#listeners) listener(status)
  }

  #up (): void {
    if (this.#closing || this.#state === 'up' || this.#unfit !== undefined) return
    const after = this.#state === 'down' && this.#outage !== 'start' ? ` after ${((this.#now() - this.#downSince) / 1000).toFixed(1)} s` : ''
    this.#state = 'up'
    this.#report({ available: true, reason: `${UP[this.#outage]}${after}` })
  }

  #down (outage: Outage, detail: string): void {
    if (this.#closing) return
    if (this.#state === 'down') {
      // Down already: said again only when Redis now says why (it refuses), unless it is unfit.
      if (outage !== 'refused' || this.#outage === 'refused' || this.#unfit !== undefined) return
      this.#outage = outage
      this.#report({ available: false, reason: `${DOWN[outage]} (${detail})` })
      return
    }
    this.#outage = this.#state === 'starting' && outage !== 'refused' ? 'start' : outage
    this.#state = 'down'
    this.#downSince = this.#now()
    this.#report({ available: false, reason: `${DOWN[this.#outage]} (${detail})` })
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
    this.#down('refused', reason)
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

  /** Runs a command (`writes`: a script that may write), learning from its outcome; any failure is a StoreUnavailableError. */
  async run<T> (command: () => Promise<T>, writes: boolean): Promise<T> {
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

  #scheduleProbe (): void {
    if (this.#closing) return
    this.#probeTimer = setTimeout(() => {
      this.probe().then(() => { this.#scheduleProbe() })
    }, this.#probeIntervalMs).unref()
  }

  /** Asks Redis whether it runs scripts, or joins the probe under way; resolves once answered or timed out. */
  async probe (): Promise<void> {
    this.#probing ??= this.#probeOnce().finally(() => { this.#probing = undefined })
    await this.#probing
  }

  async #probeOnce (): Promise<void> {
    if (this.#client.status !== 'ready') return
    // A probe Redis still holds is waited for again, not joined by another: a long hang does not fill
    // Redis's queue, and its late answer is the sign that Redis is back.
    const sent = this.#now()
    this.#unanswered ??= this.#probeScript().then(redisMs => {
      this.clock.measured(sent, this.#now(), redisMs)
      this.#answered()
    }, (error: unknown) => { this.#failed(error, this.#timeoutMs) }).finally(() => { this.#unanswered = undefined })
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<boolean>(resolve => { timer = setTimeout(resolve, this.#probeTimeoutMs, true).unref() })
    const gaveUp = await Promise.race([this.#unanswered.then(() => false), late])
    clearTimeout(timer)
    if (gaveUp) this.#stalled(this.#probeTimeoutMs)
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

  available (): boolean {
    return this.#client.status === 'ready' && this.#responsive && this.#refusal === undefined && this.#unfit === undefined
  }

  close (): void {
    this.#closing = true
    clearTimeout(this.#probeTimer)
  }
}
