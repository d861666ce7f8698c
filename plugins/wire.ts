// The wire as learners' clients expect it (src/domain/http/wire.ts): the first value of a repeated
// X-CHALLENGER or X-AUTH-TOKEN is the one every later hook and handler reads, and every answer's
// header names go out in Title-Case (HTTP/1). Registered first, so that its hook runs before any
// other and the earliest refusals (503 while draining, 431, 404) are covered too.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { firstValues, namesOnTheWire } from '../src/domain/http/wire.js'

async function wire (fastify: FastifyInstance): Promise<void> {
  // Not async: it runs on every request, and a promise per request costs.
  fastify.addHook('onRequest', function onTheWire (request, reply, done) {
    firstValues(request.raw)
    namesOnTheWire(request.raw, reply.raw)
    done()
  })
}

export default fp(wire, { name: 'wire', fastify: '5.x' })
