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
    done()
  })
}

export default fp(headers, { name: 'common-headers', fastify: '5.x' })
