// The challenger registry: every session (guid, token, note, challenge progress) behind the
// asynchronous store interface, as the instance decorator `fastify.sessions`. createStore
// (src/domain/sessions/stores.ts) chooses the store; the registry lets it connect before the app takes
// requests, says in the log when it can or cannot be reached, and closes it with the app.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { SessionStore } from '../src/domain/sessions/store.js'
import { createStore, type StoreOptions } from '../src/domain/sessions/stores.js'

declare module 'fastify' {
  interface FastifyInstance {
    sessions: SessionStore
  }
}

async function challengerRegistry (fastify: FastifyInstance, options: StoreOptions): Promise<void> {
  const store = createStore(options)
  // One line per change, for the operator: a store that cannot be reached at start is said at
  // once, naming where it is (never the credentials of its URL), and so is each outage and return.
  // Its fields (event, state, reason, redis, role, outageMs) are listed in docs/operations.md.
  store.onStatus?.(({ available, reason, warn, fields }) => {
    const line = `${store.description} ${reason}`
    const said = { store: store.description, ...fields, state: available ? 'up' : 'down' }
    if (!available) fastify.log.warn(said, `${line}: requests that need a session, and GET /heartbeat, answer 503 until it is back`)
    else if (warn === true) fastify.log.warn(said, line)
    else fastify.log.info(said, line)
  })
  // A store across the network has a moment to connect before the app takes requests.
  await store.connected?.()
  fastify.decorate('sessions', store)
  fastify.addHook('onClose', async () => {
    await store.close()
  })
}

export default fp(challengerRegistry, { name: 'challenger-registry', fastify: '5.x' })
