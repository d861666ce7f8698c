// Common response headers and the checks that come before everything else. X-Challenger echoes
// the request's X-CHALLENGER on every answer (errors and 404s too); CORS lets any page, Swagger UI
// among them, call the service and read its custom headers (X-CHALLENGER, X-AUTH-TOKEN). An
// X-CHALLENGER over 100 characters is refused with 431 and a missing Host with 400, before routing
// has any effect, before a body is read. While the server shuts down (`fastify.closing`), every
// answer carries Connection: close, so that clients and load balancers move on.
import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { notFoundMessage } from './errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** True once the server has begun to close. */
    readonly closing: boolean
  }
}

/** The longest X-CHALLENGER accepted: a UUID is 36 characters; the reference allows 100. */
export const MAX_CHALLENGER_LENGTH = 100

async function headers (fastify: FastifyInstance): Promise<void> {
  let closing = false
  fastify.decorate('closing', { getter: () => closing })
  fastify.addHook('preClose', async () => { closing = true })
  // At answer time, so that requests already in flight when the close began get it too.
  fastify.addHook('onSend', function closeConnection (_request, reply, payload, done) {
    if (closing) reply.header('connection', 'close')
    done(null, payload)
  })

  await fastify.register(cors, {
    origin: '*',
    exposedHeaders: '*',
    // With preflight on, @fastify/cors answers every OPTIONS itself; the routes answer their own
    // OPTIONS (with Allow and Access-Control-Allow-Methods), which also serves as the preflight.
    preflight: false
  })

  fastify.addHook('onRequest', function echoChallenger (request, reply, done) {
    reply.header('access-control-allow-headers', '*')
    const challenger = request.headers['x-challenger']
    if (challenger !== undefined && challenger.length > MAX_CHALLENGER_LENGTH) {
      reply.fail(431, `X-CHALLENGER is longer than ${MAX_CHALLENGER_LENGTH} characters`)
      return
    }
    if (challenger !== undefined) reply.header('x-challenger', challenger)
    // An unknown path is 404 whatever it carries: answered here, before a body is read or parsed.
    // (@fastify/cors's catch-all OPTIONS route counts as unknown too. It is the only OPTIONS route
    // that ends in `*`; GET /docs/static/*, Swagger UI's assets, is a real route.)
    if (request.is404 || (request.method === 'OPTIONS' && request.routeOptions.url?.endsWith('*') === true)) {
      reply.fail(404, notFoundMessage(request))
      return
    }
    // HTTP/1.1 requires Host (RFC 9112 §3.2). The server lets such a request through to here, so
    // that the refusal carries the echo and the error body like every other answer.
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      reply.fail(400, 'An HTTP/1.1 request needs a Host header')
      return
    }
    done()
  })
}

export default fp(headers, { name: 'common-headers', fastify: '5.x', dependencies: ['errors'] })
