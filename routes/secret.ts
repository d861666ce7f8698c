// /secret/token and /secret/note. The token is earned with Basic credentials; the note is
// guarded by the auth preHandler inside its own encapsulated plugin, so body parsing and
// validation come first (a malformed body is 400 whoever sends it) and nothing outside it is guarded.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { bitFor } from '../src/catalogue.js'
import type { ChallengerRecord } from '../src/store.js'
import { truncate } from '../src/truncate.js'
import { Empty, ErrorBody, Note, NoteBody } from './schemas.js'

/** How the token came, once tokenAuth has let the request through. */
type TokenSource = NonNullable<FastifyRequest['tokenSource']>

export interface SecretOptions {
  noteMaxLength: number
}

const token: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.acceptBodies('none')
  const refused = bitFor('POST /secret/token refused')
  const issued = bitFor('POST /secret/token issued')
  fastify.post('/secret/token', {
    schema: { response: { 201: Empty, 401: ErrorBody } }
  }, async (request, reply) => {
    const authorization = request.headers.authorization
    if (!fastify.checkCredentials(authorization)) {
      if (authorization !== undefined) await request.pass(refused)
      return reply
        .header('www-authenticate', fastify.basicChallenge)
        .fail(401, 'Send Basic credentials that the server accepts (by default admin:password) in the Authorization header')
    }
    const challenger = request.challenger
    if (challenger === null) {
      return reply.fail(401, 'The X-CHALLENGER header must name a session: create one with POST /challenger')
    }
    await request.pass(issued)
    return reply.header('x-auth-token', challenger.token).code(201).send()
  })
  fastify.allowOnly('/secret/token', ['POST', 'OPTIONS'])
}

/** The session of a request that tokenAuth let through: it always has one. */
function authorized (request: { challenger: ChallengerRecord | null }): ChallengerRecord {
  return request.challenger as ChallengerRecord
}

const note: FastifyPluginAsyncTypebox<SecretOptions> = async (fastify, options) => {
  fastify.acceptBodies('json')
  fastify.addHook('preHandler', fastify.tokenAuth('/secret/note'))
  // Challenges 33, 34, 37 and 38, by method and by how the token came.
  const success = (method: string) => ({ 'x-auth-token': bitFor(`${method} /secret/note x-auth-token`), bearer: bitFor(`${method} /secret/note bearer`) })
  const read = success('GET')
  const written = success('POST')

  const response = { 200: Note, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 413: ErrorBody, 415: ErrorBody }

  fastify.get('/secret/note', { schema: { response } }, async (request) => {
    // HEAD is answered by this handler too, and passes nothing.
    if (request.method === 'GET') await request.pass(read[request.tokenSource as TokenSource])
    return { note: authorized(request).note }
  })

  fastify.post('/secret/note', {
    schema: { body: NoteBody, response }
  }, async (request, reply) => {
    const stored = await fastify.challengers.setNote(
      authorized(request).guid,
      truncate(request.body.note, options.noteMaxLength)
    )
    // The store may have dropped the session since the request began.
    if (stored === undefined) return reply.fail(401, 'The session ended before the note was stored')
    await request.pass(written[request.tokenSource as TokenSource])
    return { note: stored }
  })

  fastify.allowOnly('/secret/note', ['GET', 'HEAD', 'POST', 'OPTIONS'])
}

const secret: FastifyPluginAsyncTypebox<SecretOptions> = async (fastify, options) => {
  await fastify.register(token)
  await fastify.register(note, options)
}

export default secret
