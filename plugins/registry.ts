// The challenger registry: every session (guid, token, note, challenge progress) behind the
// asynchronous store interface, as the instance decorator `fastify.challengers`. In single-player
// mode it also holds the one implicit session, `fastify.singlePlayerGuid`.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { SINGLE_PLAYER_GUID } from '../src/domain/options.js'
import { RedisStore } from '../src/domain/redis-store.js'
import { MemoryStore, newToken, type ChallengerRecord, type ChallengerStore } from '../src/domain/store.js'

declare module 'fastify' {
  interface FastifyInstance {
    challengers: ChallengerStore
    /** The guid of the one session in single-player mode; null in multi-player mode. */
    singlePlayerGuid: string | null
    /** Makes the single-player session if it is missing, and returns it. */
    ensureSinglePlayer (): Promise<ChallengerRecord | undefined>
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
  if (store instanceof RedisStore) {
    // One line per change, for the operator: a Redis that cannot be reached at start is said at
    // once, naming host:port (never the credentials of the URL), and so is each outage and return.
    store.onStatus(({ available, reason }) => {
      const line = `Redis at ${store.address} ${reason}`
      if (available) fastify.log.info({ redis: store.address }, line)
      else fastify.log.warn({ redis: store.address }, `${line}: requests that need a session, and GET /heartbeat, answer 503 until it is back`)
    })
    // A Redis store has a moment to connect before the app takes requests.
    await store.connected()
  }
  fastify.decorate('challengers', store)
  fastify.addHook('onClose', async () => {
    await store.close()
  })

  const single = options.mode === 'single'
  fastify.decorate('singlePlayerGuid', single ? SINGLE_PLAYER_GUID : null)
  // The one session of single-player mode, made if no instance has made it yet (ifAbsent: two
  // instances starting together on one Redis agree on one token). The session plugin makes it again
  // should it ever be missing, so a store that is away at start-up is no reason not to start.
  fastify.decorate('ensureSinglePlayer', async function () {
    await store.restore({ guid: SINGLE_PLAYER_GUID, token: newToken(), note: '', progress: 0 }, { pinned: true, ifAbsent: true })
    return await store.get(SINGLE_PLAYER_GUID)
  })
  if (single) await fastify.ensureSinglePlayer().catch((error: unknown) => { fastify.log.warn({ err: error }, 'the single-player session waits for the store') })
}

export default fp(registry, { name: 'challenger-registry', fastify: '5.x' })
