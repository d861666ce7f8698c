// Redis's clock as seen from here, for the scripts' deadlines: a command answered 503 may still reach Redis
// later, and must not then write over a newer write. So a script that may write does nothing past the
// moment this instance gave up on it, in Redis's time, less the probe's uncertainty and a guard.

/** Taken off every deadline: drift between probes, timer lateness, TIME's rounding. */
export const GUARD_MS = 50
/** A measurement is kept at least this long unless a better one (a shorter round trip) comes. */
const KEEP_MS = 30_000

interface Offset {
  /** Redis's clock minus ours, within `within`, measured `at` by ours. */
  ms: number
  within: number
  at: number
}

export class RedisClock {
  #offset: Offset | undefined
  readonly #now: () => number

  constructor (now: () => number = Date.now) {
    this.#now = now
  }

  /** A probe sent at `sent` and answered at `answered` (our clock) found Redis's clock at `redisMs`. */
  measured (sent: number, answered: number, redisMs: number): void {
    const within = (answered - sent) / 2
    const ms = redisMs - (sent + within)
    const kept = this.#offset
    if (kept === undefined || within <= kept.within || answered - kept.at > KEEP_MS) this.#offset = { ms, within, at: answered }
  }

  forget (): void {
    this.#offset = undefined
  }

  /** The deadline by Redis's clock of a command sent now with `timeoutMs`; '' until a probe has measured the clock. */
  deadline (timeoutMs: number): string {
    const offset = this.#offset
    if (offset === undefined) return ''
    return String(Math.floor(this.#now() + offset.ms + timeoutMs - offset.within - GUARD_MS))
  }
}
