// The challenger registry: every session (guid, token, note, challenge progress) behind the
// asynchronous store interface, as the instance decorator `fastify.challengers`.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { MemoryStore, type ChallengerStore } from '../src/store.js'

declare module 'fastify' {
  interface FastifyInstance {
    challengers: ChallengerStore
  }
}

export interface RegistryOptions {
  /** The store to use; a new in-memory store when absent. Either way it is closed with the app. */
  store?: ChallengerStore
}

async function registry (fastify: FastifyInstance, options: RegistryOptions): Promise<void> {
  const store = options.store ?? new MemoryStore()
  fastify.decorate('challengers', store)
  fastify.addHook('onClose', async () => {
    await store.close()
  })
}

export default fp(registry, { name: 'challenger-registry', fastify: '5.x' })
