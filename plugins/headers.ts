// Common response headers: X-Challenger echoes the request's X-CHALLENGER on every answer
// (errors and 404s too), and CORS lets any page, Swagger UI among them, call the service and
// read its custom headers (X-CHALLENGER, X-AUTH-TOKEN).
import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

async function headers (fastify: FastifyInstance): Promise<void> {
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
    if (challenger !== undefined) reply.header('x-challenger', challenger)
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
