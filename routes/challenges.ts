// /challenges: the catalogue with the caller's progress (all false without a known session).
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { challengeItems, challengeRows } from '../src/domain/challenges/catalogue.js'
import { challengesXml } from '../src/domain/http/xml.js'
import { answer, ChallengeList, header, XML } from '../src/domain/http/schemas.js'

// Without ?hints=true the items have exactly the reference's keys, as suites that match them expect.
const Query = Type.Object({
  hints: Type.Optional(Type.String({
    pattern: '^(true|false)$',
    description: '`true` adds `hint` to each challenge: how to pass it (the request line, its path under the base you called, and the headers). Default `false`: the reference\'s keys only'
  }))
})

const challenges: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.documentAs('challenges')
  const listed = fastify.bitFor('GET /challenges listed')
  // The hints' paths are under the base this route answers at (a host's prefix, /api), as the learner sends them;
  // a grading run's base, whose prefix has parameters, as the request named it.
  const fixed = fastify.prefix
  const baseOf = fixed.includes('/:') ? (request: FastifyRequest) => request.url.slice(0, request.url.lastIndexOf('/challenges')) : () => fixed
  fastify.get('/challenges', {
    onRequest: fastify.requireAcceptable,
    config: { xml: challengesXml },
    schema: {
      summary: 'The challenges, and which ones your session has passed (challenge 02)',
      querystring: Query,
      response: { 200: answer(ChallengeList, 'Every challenge, sorted by id', { Location: header('With a known session: its progress page, /gui/challenges/{guid}') }, XML.challenges) }
    }
  }, (request, reply) => {
    // Neither HEAD nor the challenges page's own refresh (X-Challenges-Page) passes anything.
    const page = request.headers['x-challenges-page'] !== undefined
    const bit = request.method === 'GET' && !page ? listed : 0
    if (page) request.journaled = false
    request.pass(bit)
    const progress = request.session === null ? 0 : request.session.progress | bit
    if (request.session !== null) reply.header('location', fastify.progressPage(request.session.guid))
    return { challenges: request.query.hints === 'true' ? challengeRows(progress, baseOf(request)) : challengeItems(progress) }
  })
  fastify.allowOnly('/challenges', ['GET', 'HEAD', 'OPTIONS'])
}

export default challenges
