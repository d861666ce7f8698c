// The wire as learners' clients expect it (src/domain/http/wire.ts): every later hook and handler
// reads the first value of a repeated X-CHALLENGER or X-AUTH-TOKEN, and every answer's header names
// go out in Title-Case. Registered first, so that the earliest refusals (503, 431, 404) are covered.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { firstValues, namesOnTheWire } from '../src/domain/http/wire.js'

async function wire (fastify: FastifyInstance): Promise<void> {
  fastify.addHook('onRequest', function onTheWire (request, reply, done) {
    firstValues(request.raw)
    namesOnTheWire(request.raw, reply.raw)
    done()
  })
}

export default fp(wire, { name: 'wire', fastify: '5.x' })
