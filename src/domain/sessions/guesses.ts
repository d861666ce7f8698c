// Wrong guesses (admin tokens, Basic credentials) counted per key in fixed windows: in the store, so that
// instances sharing a Redis count together, and in this process while the store is away.
import { performance } from 'node:perf_hooks'
import { WindowCounts } from './counts.js'
import type { CreationCount, SessionStore } from './store.js'

/** Counts `add` (1 for a wrong guess, 0 to read) against `key` in windows of `windowMs`. */
export type GuessCount = (key: string, add: 0 | 1) => Promise<CreationCount>

export function guessCounter (store: Pick<SessionStore, 'countCreation' | 'available'>, windowMs: number, now = () => Math.floor(performance.now())): GuessCount {
  const local = new WindowCounts(now)
  // A store known to be away is not waited for: /metrics must answer at once during an incident.
  return async (key, add) => !store.available()
    ? local.count(key, windowMs, add)
    : await store.countCreation(key, windowMs, add).catch(() => local.count(key, windowMs, add))
}

/** Retry-After, in whole seconds (at least 1), for a window with `msLeft` to go. */
export function retryAfterSeconds (msLeft: number): number {
  return Math.max(1, Math.ceil(msLeft / 1000))
}
