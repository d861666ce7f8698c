// Shutdown: `fastify.closing` once the service drains or the server closes. Answers then carry Connection:
// close, so that clients move on, as do answers to an unread body, which Node would otherwise read whole.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { unreadBody } from '../src/domain/http/common-headers.js'

declare module 'fastify' {
  interface FastifyInstance {
    readonly closing: boolean
    /** Part of the pipeline's finish: Connection: close while draining or closing, or for an unread body. */
    closeIfDraining (request: FastifyRequest, reply: FastifyReply): void
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
  // At answer time (the finish), so that requests in flight and every early answer get it too.
  fastify.decorate('closeIfDraining', function closeIfDraining (request: FastifyRequest, reply: FastifyReply): void {
    if (closing || unreadBody(request.raw)) reply.header('connection', 'close')
  })
}

export default fp(shutdown, { name: 'shutdown', fastify: '5.x' })
