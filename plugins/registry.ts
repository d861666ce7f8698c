// The challenger registry: every session (guid, token, note, challenge progress) behind the
// asynchronous store interface, as the instance decorator `fastify.challengers`. In single-player
// mode it also holds the one implicit session, `fastify.singlePlayerGuid`.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { SINGLE_PLAYER_GUID } from '../src/options.js'
import { RedisStore } from '../src/redis-store.js'
import { MemoryStore, newToken, type ChallengerStore } from '../src/store.js'

declare module 'fastify' {
  interface FastifyInstance {
    challengers: ChallengerStore
    /** The guid of the one session in single-player mode; null in multi-player mode. */
    singlePlayerGuid: string | null
  }
}

export interface RegistryOptions {
  /** The store to use; when absent, a Redis store for `redisUrl`, else a new in-memory one. Closed with the app. */
  store?: ChallengerStore
  redisUrl?: string
  redisKeyPrefix: string
  mode: 'multi' | 'single'
  sessionIdleMs: number
  maxSessions: number
}

async function registry (fastify: FastifyInstance, options: RegistryOptions): Promise<void> {
  const sessions = { idleMs: options.sessionIdleMs, maxSessions: options.maxSessions }
  const store = options.store ?? (options.redisUrl === undefined
    ? new MemoryStore(sessions)
    : new RedisStore({ url: options.redisUrl, prefix: options.redisKeyPrefix, ...sessions }))
  // A Redis store has a moment to connect before the app takes requests.
  if (store instanceof RedisStore) await store.connected()
  fastify.decorate('challengers', store)
  fastify.addHook('onClose', async () => {
    await store.close()
  })

  const single = options.mode === 'single'
  fastify.decorate('singlePlayerGuid', single ? SINGLE_PLAYER_GUID : null)
  if (single && await store.get(SINGLE_PLAYER_GUID) === undefined) {
    await store.restore({ guid: SINGLE_PLAYER_GUID, token: newToken(), note: '', progress: 0 }, { pinned: true })
  }
}

export default fp(registry, { name: 'challenger-registry', fastify: '5.x' })
