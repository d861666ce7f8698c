// /challenger: creates a session, or confirms that the one named by X-CHALLENGER is live.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { bitFor } from '../src/catalogue.js'
import { Empty, ErrorBody } from './schemas.js'

const challenger: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.acceptBodies('none')
  const created = bitFor('POST /challenger created')
  fastify.post('/challenger', {
    schema: { response: { 200: Empty, 201: Empty, 404: ErrorBody } }
  }, async (request, reply) => {
    const named = request.headers['x-challenger']
    if (named === undefined || named === '') {
      const session = await fastify.challengers.create()
      request.challenger = session
      await request.pass(created)
      return reply.header('x-challenger', session.guid).code(201).send()
    }
    if (request.challenger === null) {
      return reply.fail(404, `No session ${JSON.stringify(named)}: send POST /challenger without X-CHALLENGER to create one`)
    }
    return reply.code(200).send()
  })
  fastify.allowOnly('/challenger', ['POST', 'OPTIONS'])
}

export default challenger
