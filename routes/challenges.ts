// /challenges: the catalogue with the caller's progress (all false without a known session).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { bitFor, challenges as catalogue, isPassed } from '../src/catalogue.js'
import { ChallengeList } from './schemas.js'

const challenges: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/challenges', {
    schema: { response: { 200: ChallengeList } }
  }, async (request) => {
    const trigger = `${request.method} /challenges listed`
    await request.passChallenge(trigger)
    // The list shows this request's own pass too.
    const progress = request.challenger === null ? 0 : request.challenger.progress | bitFor(trigger)
    return {
      challenges: catalogue.map((c, index) => ({
        id: c.id,
        name: c.name,
        description: c.description,
        status: isPassed(progress, index)
      }))
    }
  })
  fastify.allowOnly('/challenges', ['GET', 'HEAD', 'OPTIONS'])
}

export default challenges
