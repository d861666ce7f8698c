// The store the service keeps its sessions in, chosen once from the options: the one the host
// passed, a Redis store for a Redis URL, else a new in-memory store.
import { RedisStore } from './redis-store.js'
import { MemoryStore } from './memory-store.js'
import type { SessionStore } from './store.js'

export interface StoreOptions {
  /** The store to use, as it is: it brings its own expiry and capacity. */
  store?: SessionStore
  redisUrl?: string
  redisKeyPrefix: string
  sessionIdleMs: number
  maxSessions: number
  journalSize: number
}

export function createStore (options: StoreOptions): SessionStore {
  if (options.store !== undefined) return options.store
  const sessions = { idleMs: options.sessionIdleMs, maxSessions: options.maxSessions, journalSize: options.journalSize }
  if (options.redisUrl === undefined) return new MemoryStore(sessions)
  return new RedisStore({ url: options.redisUrl, prefix: options.redisKeyPrefix, ...sessions })
}
