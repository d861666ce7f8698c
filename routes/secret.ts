// /secret/token and /secret/note. The token is earned with Basic credentials; the note is
// guarded by the auth preHandler inside its own encapsulated plugin, so nothing outside it is
// guarded. As in the reference, the session and the token are judged before the body: the body's
// 415 or 400 (see plugins/bodies.ts) comes after them, and only a body over the limit (413) before.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { NAME_A_SESSION } from '../src/domain/challenges/messages.js'
import type { TokenSource } from '../src/domain/sessions/secrets.js'
import type { Session } from '../src/domain/sessions/store.js'
import { truncate } from '../src/domain/sessions/truncate.js'
import { noteXml, noteUnfitForXml, readNoteXml, xmlNoteLimits } from '../src/domain/http/xml.js'
import { answer, failure, header, Note, NoteBody, noBody, security, XML } from '../src/domain/http/schemas.js'

export interface SecretOptions {
  noteMaxLength: number
}

/** Whose wrong credentials were too many (plugins/auth.ts counts the session's first, then the address's). */
const BY = { client: 'from this address', session: 'for this session', 'no-session': 'without a session from this address' } as const

const token: FastifyPluginAsyncTypebox = async (fastify) => {
  const refused = fastify.bitFor('POST /secret/token refused')
  const issued = fastify.bitFor('POST /secret/token issued')
  fastify.post('/secret/token', {
    schema: {
      summary: 'Trade Basic credentials for the session\'s token (challenges 29, 30)',
      security: security.token,
      response: {
        201: noBody('The session\'s token, in X-AUTH-TOKEN', { 'X-AUTH-TOKEN': header('The token for /secret/note: 32 hex digits') }),
        401: failure('Wrong or missing credentials (with WWW-Authenticate, unless the request said X-API-Challenges-Live-Widget: true), or a missing or unknown session (without; one that expired recently is told so, with the restore command)', {
          'WWW-Authenticate': header('Basic realm="User Visible Realm", when the credentials were refused (not for a request with X-API-Challenges-Live-Widget: true, so that a browser shows no login dialog)')
        }),
        413: failure('A body (which this route ignores) over the body limit'),
        415: failure('A Content-Type header that is not a valid media type'),
        429: failure('Too many wrong Basic credentials from this client, or for this session, in a minute: the right ones are refused too until Retry-After', {
          'Retry-After': header('Seconds until the minute of wrong credentials is over')
        })
      }
    }
  }, async (request, reply) => {
    const authorization = request.headers.authorization
    const verdict = await fastify.judgeCredentials(request)
    if (typeof verdict === 'object') {
      const { waitSeconds, by } = verdict
      return reply.header('retry-after', String(waitSeconds))
        .fail(429, `Too many wrong Basic credentials ${BY[by]}: try again in ${waitSeconds} s`)
    }
    if (verdict === 'refused') {
      if (authorization !== undefined) request.pass(refused)
      // A page's own request (X-API-Challenges-Live-Widget: true) gets no WWW-Authenticate: no browser login dialog.
      if (fastify.challengesBasic(request)) reply.header('www-authenticate', fastify.basicChallenge)
      return reply.fail(401, fastify.basicRefusal)
    }
    const session = request.session
    if (session === null) {
      return reply.fail(401, await fastify.whyNoSession(request.headers['x-challenger'], NAME_A_SESSION))
    }
    request.pass(issued)
    return reply.header('x-auth-token', session.token).code(201).send()
  })
  fastify.allowOnly('/secret/token', ['POST', 'OPTIONS'])
}

/** The session of a request that the auth step let through: it always has one. */
function authorized (request: { session: Session | null }): Session {
  return request.session as Session
}

const note: FastifyPluginAsyncTypebox<SecretOptions> = async (fastify, options) => {
  // XML is read only once the session and token have passed, within limits fit for a note.
  const xmlLimits = xmlNoteLimits(options.noteMaxLength)
  fastify.acceptBodies('json', { xml: text => readNoteXml(text, xmlLimits) })
  // Challenges 33, 34, 37 and 38, by method and by how the token came.
  const read = { 'x-auth-token': fastify.bitFor('GET /secret/note x-auth-token'), bearer: fastify.bitFor('GET /secret/note bearer') }
  const written = { 'x-auth-token': fastify.bitFor('POST /secret/note x-auth-token'), bearer: fastify.bitFor('POST /secret/note bearer') }
  // Challenges 31, 32, 35 and 36: the refusals, by method. The token is judged before the body
  // (the pipeline attaches the auth preHandler to a route whose config names its refusals).
  const readToken = { GET: { missing: 'GET /secret/note no-token', wrong: 'GET /secret/note wrong-token' } } as const
  const writeToken = { POST: { missing: 'POST /secret/note no-token', wrong: 'POST /secret/note wrong-token' } } as const

  const refused = {
    401: failure('A missing or unknown session (one that expired recently is told so, with the restore command), or no token', { 'WWW-Authenticate': header('Bearer') }),
    403: failure('A token that is not this session\'s')
  }

  fastify.get('/secret/note', {
    onRequest: fastify.requireAcceptable,
    config: { xml: noteXml, token: readToken },
    schema: {
      summary: 'Read your secret note (challenges 31, 32, 33, 37)',
      security: security.note,
      response: { 200: answer(Note, 'The stored note', {}, XML.note), ...refused }
    }
  }, (request) => {
    // HEAD is answered by this handler too, and passes nothing.
    if (request.method === 'GET') request.pass(read[request.tokenSource as TokenSource])
    return { note: authorized(request).note }
  })

  fastify.post('/secret/note', {
    onRequest: fastify.requireAcceptable,
    config: { xml: noteXml, token: writeToken },
    schema: {
      summary: 'Write your secret note (challenges 34, 35, 36, 38)',
      security: security.note,
      consumes: ['application/json', 'application/xml', 'text/xml'],
      body: NoteBody,
      response: {
        200: answer(Note, 'The note as stored, truncated to the note length', {}, XML.note),
        400: failure('Not a JSON object with a string note (or XML past its limits, or not well-formed), or a note with a character XML 1.0 cannot carry (U+0000, U+FFFF, a lone surrogate, …)'),
        ...refused,
        413: failure('A body over the body limit'),
        415: failure('A content type other than application/json')
      }
    }
  }, (request, reply) => {
    // Every note can be answered as XML: one XML cannot carry is refused, whole, before anything is stored.
    const unfit = noteUnfitForXml(request.body.note)
    if (unfit !== undefined) {
      reply.fail(400, unfit)
      return
    }
    const note = truncate(request.body.note, options.noteMaxLength)
    // The note and its challenge, written in one store call with the journal entry by the pipeline's
    // finish, before the answer leaves (a session gone by then makes it a 401).
    request.writeNote(note)
    request.pass(written[request.tokenSource as TokenSource])
    return { note }
  })

  fastify.allowOnly('/secret/note', ['GET', 'HEAD', 'POST', 'OPTIONS'])
}

const secret: FastifyPluginAsyncTypebox<SecretOptions> = async (fastify, options) => {
  fastify.documentAs('secret')
  await fastify.register(token)
  await fastify.register(note, options)
}

export default secret
