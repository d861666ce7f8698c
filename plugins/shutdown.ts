// Shutdown, and connections worth closing: `fastify.closing` is true once the service drains (the
// drainSignal option) or the server has begun to close. Answers carry Connection: close then, so
// that clients and load balancers move on, and when the request's body was never read, so that
// Node does not read it to its end to keep the connection (a 1 GB body sent to a 404 would be
// swallowed whole).
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { unreadBody } from '../src/domain/http/common-headers.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** True once the service drains or the server has begun to close. */
    readonly closing: boolean
  }
}

export interface ShutdownOptions {
  /** Once it aborts, the service drains: as while closing, but the host still listens. */
  drainSignal?: AbortSignal
}

async function shutdown (fastify: FastifyInstance, { drainSignal }: ShutdownOptions): Promise<void> {
  let closing = drainSignal?.aborted === true
  const drain = (): void => { closing = true }
  fastify.decorate('closing', { getter: () => closing })
  drainSignal?.addEventListener('abort', drain, { once: true })
  fastify.addHook('preClose', async () => { closing = true })
  // A signal that outlives the app must not keep it alive.
  fastify.addHook('onClose', async () => { drainSignal?.removeEventListener('abort', drain) })
  // At answer time, so that requests already in flight when the close began get it too, and so
  // that every early answer (404, 405, 431, the heartbeat, OPTIONS, a handler that took no body)
  // is seen whatever answered it.
  fastify.addHook('onSend', function closeConnection (request, reply, payload, done) {
    if (closing || unreadBody(request.raw)) reply.header('connection', 'close')
    done(null, payload)
  })
}

export default fp(shutdown, { name: 'shutdown', fastify: '5.x' })
