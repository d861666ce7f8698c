// Whether the Redis store can serve requests, as a small state machine (starting → up ⇄ down), told
// by the connection's events, by the commands that time out, and by a probe about every second
// (lua/probe.lua), so that the heartbeat says 503 within about 2 s of a hang even when no request
// runs into it, and 204 again once it is over. Each change is reported once, never per request.
import type { Redis } from 'ioredis'
import { StoreUnavailableError, type StoreStatus } from '../store.js'

type Outage = 'start' | 'lost' | 'hang' | 'old'
const DOWN: Record<Outage, string> = { start: 'cannot be reached', lost: 'is unreachable', hang: 'stopped answering', old: 'cannot run this service\'s scripts' }
const UP: Record<Outage, string> = { start: 'connected', lost: 'connected again', hang: 'answers again', old: 'connected' }
/** The oldest Redis the scripts run on: their shebang and flags (see scripts.ts) came with 7.0. */
const OLDEST_REDIS = 7

const timedOut = (error: unknown): boolean => /timed out/i.test((error as Error).message)

export interface AvailabilityOptions {
  /** How long a command, or a connection attempt, may take. */
  timeoutMs: number
  /** Time between the end of one probe and the start of the next. */
  probeIntervalMs: number
  /** How long a probe waits for its answer before Redis counts as hanging. */
  probeTimeoutMs: number
  /** Runs the probe script. */
  probe: () => Promise<unknown>
}

export class Availability {
  readonly #client: Redis
  readonly #timeoutMs: number
  readonly #probeIntervalMs: number
  readonly #probeTimeoutMs: number
  readonly #probeScript: () => Promise<unknown>
  // False after a command timed out on a connection that still looks fine (a Redis that hangs),
  // until a command (a probe, most likely) gets through again.
  #responsive = true
  #closing = false
  #lastError: string | undefined
  /** The version of a Redis too old for the scripts, while connected to one. */
  #tooOld: string | undefined
  #state: 'starting' | 'up' | 'down' = 'starting'
  #outage: Outage = 'start'
  #status: StoreStatus | undefined
  readonly #listeners: Array<(status: StoreStatus) => void> = []
  #probeTimer: NodeJS.Timeout | undefined
  /** The probe under way; there is never a second. */
  #probing: Promise<void> | undefined
  /** The probe command Redis has not answered yet: it may outlive the probe that gave up on it. */
  #unanswered: Promise<void> | undefined

  constructor (client: Redis, options: AvailabilityOptions) {
    this.#client = client
    this.#timeoutMs = options.timeoutMs
    this.#probeIntervalMs = options.probeIntervalMs
    this.#probeTimeoutMs = options.probeTimeoutMs
    this.#probeScript = options.probe
    // A connection error is reported by the commands that fail, and by the status change it causes
    // (an unhandled 'error' would end the process). Every failed attempt repeats it: keep the last.
    client.on('error', (error: Error) => { this.#lastError = error.message })
    client.on('close', () => {
      this.#down('lost', this.#lastError ?? 'the connection closed')
    })
    client.on('ready', () => {
      this.#lastError = undefined
      this.#tooOld = undefined
      // After a hang, connected is not yet answering: the probe decides.
      if (this.#responsive) this.#up()
      else this.probe()
      // Then its version (without INFO, as for a user not allowed it, the scripts' errors will tell).
      client.info('server').then(info => {
        // A server that gives no version (a Redis-compatible proxy) is left to its scripts' errors.
        const version = /^redis_version:(\S+)/m.exec(info)?.[1]
        if (!(Number(version?.split('.')[0]) < OLDEST_REDIS)) return
        this.#tooOld = version
        this.#down('old', `Redis ${version}; version ${OLDEST_REDIS}.0 or later is needed`)
      }, () => {})
    })
    this.#scheduleProbe()
  }

  /**
   * Calls `listener` once per change of availability (and at once with the current state, when
   * it is already known): for log lines, not for every request.
   */
  onStatus (listener: (status: StoreStatus) => void): void {
    this.#listeners.push(listener)
    if (this.#status !== undefined) listener(this.#status)
  }

  #report (status: StoreStatus): void {
    this.#status = status
    for (const listener of this.#listeners) listener(status)
  }

  #up (): void {
    if (this.#closing || this.#state === 'up' || this.#tooOld !== undefined) return
    this.#state = 'up'
    this.#report({ available: true, reason: UP[this.#outage] })
  }

  #down (outage: Outage, detail: string): void {
    if (this.#closing || this.#state === 'down') return
    // The first failure before Redis was ever reached is the one said at start.
    this.#outage = this.#state === 'starting' ? 'start' : outage
    this.#state = 'down'
    this.#report({ available: false, reason: `${DOWN[this.#outage]} (${detail})` })
  }

  #answered (): void {
    this.#responsive = true
    if (this.#client.status === 'ready') this.#up()
  }

  #stalled (ms: number): void {
    this.#responsive = false
    this.#down('hang', `no answer within ${ms} ms`)
  }

  /** Runs a command: its answer tells that Redis answers, its time-out that it hangs; any failure is a StoreUnavailableError. */
  async run<T> (command: () => Promise<T>): Promise<T> {
    try {
      const result = await command()
      this.#answered()
      return result
    } catch (error) {
      if (timedOut(error)) this.#stalled(this.#timeoutMs)
      throw new StoreUnavailableError(error)
    }
  }

  // The next probe starts an interval after the last one ended, so that probes never overlap.
  // The timer does not keep the process alive, and close() stops it.
  #scheduleProbe (): void {
    if (this.#closing) return
    this.#probeTimer = setTimeout(() => {
      this.probe().then(() => { this.#scheduleProbe() })
    }, this.#probeIntervalMs).unref()
  }

  /**
   * Asks Redis whether it runs scripts (see lua/probe.lua), or joins the probe already under way;
   * resolves either way, once answered or after the probe timeout.
   */
  async probe (): Promise<void> {
    this.#probing ??= this.#probeOnce().finally(() => { this.#probing = undefined })
    await this.#probing
  }

  async #probeOnce (): Promise<void> {
    // Not connected: the connection's own events tell, and a command would fail at once anyway.
    if (this.#client.status !== 'ready') return
    // A probe command that Redis still holds is waited for again rather than joined by another, so
    // a long hang does not fill Redis's queue; its late answer is the sign that Redis is back.
    this.#unanswered ??= this.#probeScript().then(() => { this.#answered() }, (error: unknown) => {
      if (timedOut(error)) this.#stalled(this.#timeoutMs)
    }).finally(() => { this.#unanswered = undefined })
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<boolean>(resolve => { timer = setTimeout(resolve, this.#probeTimeoutMs, true).unref() })
    const gaveUp = await Promise.race([this.#unanswered.then(() => false), late])
    clearTimeout(timer)
    if (gaveUp) this.#stalled(this.#probeTimeoutMs)
  }

  /** Resolves once connected, or after the connect timeout (the store then answers 503 until Redis is there). */
  async connected (): Promise<void> {
    if (this.available()) return
    await new Promise<void>(resolve => {
      const done = (): void => { clearTimeout(timer); this.#client.off('ready', done); resolve() }
      const timer = setTimeout(done, this.#timeoutMs)
      this.#client.once('ready', done)
    })
  }

  /** Whether Redis is connected, ready and answering, as the last probe or command found it. No I/O. */
  available (): boolean {
    return this.#client.status === 'ready' && this.#responsive && this.#tooOld === undefined
  }

  /** Closing is no outage: nothing more to report, and no more probes. */
  close (): void {
    this.#closing = true
    clearTimeout(this.#probeTimer)
  }
}
