// The challenger registry: every session (guid, token, note, challenge progress) behind the
// asynchronous store interface, as the instance decorator `fastify.challengers`. In single-player
// mode it also holds the one implicit session, `fastify.singlePlayerGuid`.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { SINGLE_PLAYER_GUID } from '../src/options.js'
import { MemoryStore, newToken, type ChallengerStore } from '../src/store.js'

declare module 'fastify' {
  interface FastifyInstance {
    challengers: ChallengerStore
    /** The guid of the one session in single-player mode; null in multi-player mode. */
    singlePlayerGuid: string | null
  }
}

export interface RegistryOptions {
  /** The store to use; a new in-memory store when absent. Either way it is closed with the app. */
  store?: ChallengerStore
  mode: 'multi' | 'single'
  sessionIdleMs: number
  maxSessions: number
}

async function registry (fastify: FastifyInstance, options: RegistryOptions): Promise<void> {
  const store = options.store ?? new MemoryStore({ idleMs: options.sessionIdleMs, maxSessions: options.maxSessions })
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
