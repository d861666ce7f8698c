// The session store, chosen from the options: the host's, Redis for a URL or sentinels, else memory.
import { RedisStore } from './redis-store.js'
import { MemoryStore } from './memory-store.js'
import { inRedis, redisSettings, type ApiChallengesOptions, type RedisConnectionOption } from '../config/options.js'
import type { SessionStore } from './store.js'

export interface StoreOptions extends Pick<ApiChallengesOptions, RedisConnectionOption> {
  /** The store to use, as it is: it brings its own expiry and capacity. */
  store?: SessionStore
  redisKeyPrefix: string
  sessionIdleMs: number
  maxSessions: number
  journalSize: number
  redisWaitReplicas: number
}

export function createStore (options: StoreOptions): SessionStore {
  if (options.store !== undefined) return options.store
  const sessions = { idleMs: options.sessionIdleMs, maxSessions: options.maxSessions, journalSize: options.journalSize }
  if (!inRedis(options)) return new MemoryStore(sessions)
  return new RedisStore({ ...redisSettings(options), prefix: options.redisKeyPrefix, waitReplicas: options.redisWaitReplicas, ...sessions })
}
