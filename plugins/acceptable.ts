// The 406: `fastify.requireAcceptable`, an onRequest hook for the routes whose answers have a body,
// answers in JSON when Accept allows neither JSON nor XML, before auth and the body.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyInstance {
    requireAcceptable: onRequestHookHandler
  }
}

async function acceptable (fastify: FastifyInstance): Promise<void> {
  fastify.decorate('requireAcceptable', function requireAcceptable (request: FastifyRequest, reply: FastifyReply, done: () => void) {
    if (request.format === null) {
      reply.fail(406, `Accept ${JSON.stringify(request.headers.accept)} allows neither application/json nor application/xml (or text/xml)`)
      return
    }
    done()
  })
}

export default fp(acceptable, { name: 'acceptable', fastify: '5.x', dependencies: ['formats', 'errors'] })
