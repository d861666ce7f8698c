// Wrong guesses (admin tokens, Basic credentials) counted per key in fixed windows: in the store, so that
// instances sharing a Redis count together, and in this process while the store is away. What each count
// came to is kept here too, so that a caller can read it without waiting on the store (see known).
import { performance } from 'node:perf_hooks'
import { MAX_COUNTED, WindowCounts } from './counts.js'
import type { CreationCount, SessionStore } from './store.js'

/** Counts `add` (1 for a wrong guess, 0 to read) against `key` in windows of `windowMs`. */
export type GuessCount = (key: string, add: 0 | 1) => Promise<CreationCount>

export interface GuessCounter extends GuessCount {
  /** The count of `key` as this process last learned it (the store's answer, or its own count), with no I/O. */
  known: (key: string) => CreationCount
}

export function guessCounter (store: Pick<SessionStore, 'countCreation' | 'available'>, windowMs: number, now = () => Math.floor(performance.now())): GuessCounter {
  const local = new WindowCounts(now)
  /** Each key's last count, and when its window ends (by this process's clock); the oldest forgotten past MAX_COUNTED. */
  const learned = new Map<string, { count: number, end: number }>()
  const learn = (key: string, counted: CreationCount): CreationCount => {
    learned.delete(key)
    if (learned.size >= MAX_COUNTED) learned.delete(learned.keys().next().value as string)
    learned.set(key, { count: counted.count, end: now() + counted.msLeft })
    return counted
  }
  // A store known to be away is not waited for: /metrics must answer at once during an incident.
  const count = async (key: string, add: 0 | 1): Promise<CreationCount> => learn(key, !store.available()
    ? local.count(key, windowMs, add)
    : await store.countCreation(key, windowMs, add).catch(() => local.count(key, windowMs, add)))
  return Object.assign(count, {
    known (key: string): CreationCount {
      const last = learned.get(key)
      const msLeft = last === undefined ? 0 : last.end - now()
      return msLeft > 0 ? { count: (last as { count: number }).count, msLeft } : { count: 0, msLeft: 0 }
    }
  })
}

/** Retry-After, in whole seconds (at least 1), for a window with `msLeft` to go. */
export function retryAfterSeconds (msLeft: number): number {
  return Math.max(1, Math.ceil(msLeft / 1000))
}
