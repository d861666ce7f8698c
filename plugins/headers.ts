// The arrival: the first step of every request (plugins/pipeline.ts), `fastify.checkHeaders`. The
// wire as learners' clients expect it (src/domain/http/wire.ts): the first value of a repeated
// X-CHALLENGER or X-AUTH-TOKEN, and every answer's header names in Title-Case. Then the common
// response headers: X-Challenger echoes the request's X-CHALLENGER on every answer (errors and 404s
// too), and X-Content-Type-Options: nosniff keeps a browser from reading an answer as another type
// than it says (CORS is plugins/cors.ts's). An X-CHALLENGER over 100 characters is refused with 431
// (on the API's routes by the session step, which looks up its first 36 characters, the reference's
// challenge 47), and a missing or repeated Host with 400, before routing has any effect, before a body is read.
// Without X-CHALLENGER, a header near it (X-CHALLENGE) is named in X-Hint, and on the API's routes and
// the 404 kept for the journal (request.misspeltChallenger).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { misspeltHeaderHint } from '../src/domain/challenges/messages.js'
import { challengerEcho, COMMON_HEADERS, hostCount } from '../src/domain/http/common-headers.js'
import { misspeltChallenger, type MisspeltHeader } from '../src/domain/http/misspelt-header.js'
import { firstValues, namesOnTheWire } from '../src/domain/http/wire.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The arrival's step: true once it has answered (431, the Host 400s). */
    checkHeaders (request: FastifyRequest, reply: FastifyReply): boolean
    /** The same for the 404, which journals a request: a header near X-CHALLENGER is kept for its entry. */
    checkNotFoundHeaders (request: FastifyRequest, reply: FastifyReply): boolean
    /** The same for the API's routes, but a 431 is left to the session step, which passes challenge 47 with it. */
    checkApiHeaders (request: FastifyRequest, reply: FastifyReply): boolean
  }
  interface FastifyRequest {
    /** On the API's routes, an X-CHALLENGER over the limit: the session step answers it 431. */
    tooLongChallenger: string | null
    /** On the API's routes and the 404, without X-CHALLENGER: a header near it that the request sent (its name as sent, and value), or null. */
    misspeltChallenger: MisspeltHeader | null
  }
}

export interface HeadersOptions {
  /** In single-player mode X-CHALLENGER is not needed, so a header near it deserves no hint. */
  mode: 'multi' | 'single'
}

/** What the arrival keeps on an API request (the API's and the 404's requests carry them: plugins/pipeline.ts). */
export const CHALLENGER_FIELDS = { misspeltChallenger: null, tooLongChallenger: null }

/** The common headers that @fastify/cors does not set. */
const OWN_HEADERS = {
  'access-control-allow-headers': COMMON_HEADERS['access-control-allow-headers'] as string,
  'x-content-type-options': COMMON_HEADERS['x-content-type-options'] as string
}

async function headers (fastify: FastifyInstance, options: HeadersOptions): Promise<void> {
  const hints = options.mode !== 'single'
  // `journaled`: the request's journal entry names a header near X-CHALLENGER; `api`: a 431 is the session step's.
  const arrival = (journaled: boolean, api: boolean) => function checkHeaders (request: FastifyRequest, reply: FastifyReply): boolean {
    const raw = request.raw
    firstValues(raw)
    namesOnTheWire(raw, reply.raw)
    // @fastify/cors sets the origin and exposed headers; the rest of the common ones are set here.
    reply.headers(OWN_HEADERS)
    const { echo, refusal } = challengerEcho(request.headers['x-challenger'] as string | undefined)
    if (refusal !== undefined) {
      if (api) {
        request.tooLongChallenger = request.headers['x-challenger'] as string
        return false
      }
      reply.fail(431, refusal)
      return true
    }
    if (echo !== undefined) reply.header('x-challenger', echo)
    else if (hints) {
      const misspelt = misspeltChallenger(raw.rawHeaders)
      if (misspelt !== null) {
        if (journaled) request.misspeltChallenger = misspelt
        reply.header('x-hint', misspeltHeaderHint(misspelt.name))
      }
    }
    // HTTP/1.1 requires exactly one Host (RFC 9112 §3.2: 400 otherwise, whatever the path). The
    // server lets a request without one through to here, so that the refusal carries the echo and
    // the error body like every other answer. Node keeps the first of two Hosts in
    // `request.headers` and drops the other: only the raw headers show them both (counted once,
    // by the server's own screening when it is npm start's: src/server-options.ts).
    const hostless = request.headers.host === undefined && raw.httpVersion === '1.1'
    if (hostless || hostCount(raw) > 1) {
      // The connection's last answer in any server (`npm start`'s marks it so before the app: server-options.ts).
      reply.raw.shouldKeepAlive = false
      reply.fail(400, hostless ? 'An HTTP/1.1 request needs a Host header' : 'The request has more than one Host header; send one')
      return true
    }
    return false
  }
  fastify.decorate('checkHeaders', arrival(false, false))
  fastify.decorate('checkNotFoundHeaders', arrival(true, false))
  fastify.decorate('checkApiHeaders', arrival(true, true))
}

// @fastify/cors's hook, the one global hook, runs before every route's steps: its headers are on every refusal made here too.
export default fp(headers, { name: 'headers', fastify: '5.x', dependencies: ['errors'] })
