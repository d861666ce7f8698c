// Redis's clock as seen from this instance, for the scripts' deadlines (see lua/session.lua).
//
// A command that times out is answered 503 here, yet Redis may still get it and run it later (a link
// that held its bytes, a Redis that was paused): it would then apply a write over a newer one that was
// answered 200. So every script that may write carries a deadline by Redis's own clock, and does
// nothing when it starts after it. The deadline is the moment this instance gives up on the command,
// told in Redis's time and moved earlier by everything that is not known exactly: how far Redis's clock
// is from ours (measured by each probe, whose answer is Redis's clock: off by at most half the probe's
// round trip) and a guard for drift and timers. A script that starts in time may still have its answer
// held until after the 503; then the write was made before the 503 was sent, never after it.

/** Taken off every deadline: clock drift between two probes, timer lateness, TIME's own rounding. */
export const GUARD_MS = 50
/** A measurement is kept at least this long unless a better one (a shorter round trip) comes. */
const KEEP_MS = 30_000

interface Offset {
  /** Redis's clock minus ours. */
  ms: number
  /** How far `ms` may be off: half the round trip of the probe that measured it. */
  within: number
  /** When it was measured, by our clock. */
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
    // A better measurement replaces the kept one at once; a worse one only once the kept one is old.
    if (kept === undefined || within <= kept.within || answered - kept.at > KEEP_MS) this.#offset = { ms, within, at: answered }
  }

  /** Another connection (perhaps another Redis, after a failover): what was measured no longer holds. */
  forget (): void {
    this.#offset = undefined
  }

  /**
   * The deadline of a command sent now that this instance gives up on after `timeoutMs`, by Redis's
   * clock in whole ms, for the scripts' ARGV; '' (none) until a probe has measured the clock.
   */
  deadline (timeoutMs: number): string {
    const offset = this.#offset
    if (offset === undefined) return ''
    return String(Math.floor(this.#now() + offset.ms + timeoutMs - offset.within - GUARD_MS))
  }
}
