// Common response headers and the checks that come before everything else. X-Challenger echoes
// the request's X-CHALLENGER on every answer (errors and 404s too); CORS lets any page, Swagger UI
// among them, call the service and read its custom headers (X-CHALLENGER, X-AUTH-TOKEN); and
// X-Content-Type-Options: nosniff keeps a browser from reading an answer as another type than it
// says. An X-CHALLENGER over 100 characters is refused with 431, and a missing or repeated Host
// with 400, before routing has any effect, before a body is read. Answers carry Connection: close
// while the server shuts down (`fastify.closing`), so that clients and load balancers move on, and
// when the request's body was never read, so that Node does not read it to the end to keep the
// connection (a 1 GB body to a 404 would be swallowed whole).
import cors from '@fastify/cors'
import type { FastifyHelmetOptions } from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { challengerEcho, COMMON_HEADERS, hostCount, unreadBody } from '../src/common-headers.js'
import { notFoundMessage } from '../src/messages.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** True once the server has begun to close. */
    readonly closing: boolean
  }
}

/**
 * @fastify/helmet's options for what a browser shows (the pages, /docs), registered in their own
 * plugins so that the API's answers stay lean: the page's Content-Security-Policy (`directives`,
 * nothing added), framing refused (X-Frame-Options: DENY beside CSP's frame-ancestors), and
 * helmet's other defaults. Not HSTS: whether the service is reached over HTTPS is the operator's
 * choice, made at the proxy in front of it, and helmet's HSTS (a year, includeSubDomains) would
 * bind every other site under the same domain too. nosniff is set on every answer by this plugin.
 */
export function browserHeaders (directives: Readonly<Record<string, string[]>>): FastifyHelmetOptions {
  return {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives },
    frameguard: { action: 'deny' },
    strictTransportSecurity: false,
    xContentTypeOptions: false
  }
}

/** The common headers that @fastify/cors does not set. */
const OWN_HEADERS = {
  'access-control-allow-headers': COMMON_HEADERS['access-control-allow-headers'] as string,
  'x-content-type-options': COMMON_HEADERS['x-content-type-options'] as string
}

async function headers (fastify: FastifyInstance): Promise<void> {
  let closing = false
  fastify.decorate('closing', { getter: () => closing })
  fastify.addHook('preClose', async () => { closing = true })
  // At answer time, so that requests already in flight when the close began get it too, and so
  // that every early answer (404, 405, 431, the heartbeat, OPTIONS, a handler that took no body)
  // is seen whatever answered it.
  fastify.addHook('onSend', function closeConnection (request, reply, payload, done) {
    if (closing || unreadBody(request.raw)) reply.header('connection', 'close')
    done(null, payload)
  })

  await fastify.register(cors, {
    origin: '*',
    exposedHeaders: '*',
    // With preflight on, @fastify/cors answers every OPTIONS itself; the routes answer their own
    // OPTIONS (with Allow and Access-Control-Allow-Methods), which also serves as the preflight.
    preflight: false
  })

  fastify.addHook('onRequest', function echoChallenger (request, reply, done) {
    // @fastify/cors sets the origin and exposed headers; the rest of the common ones are set here.
    reply.headers(OWN_HEADERS)
    const { echo, refusal } = challengerEcho(request.headers['x-challenger'] as string | undefined)
    if (refusal !== undefined) {
      reply.fail(431, refusal)
      return
    }
    if (echo !== undefined) reply.header('x-challenger', echo)
    // HTTP/1.1 requires exactly one Host (RFC 9112 §3.2: 400 otherwise, whatever the path). The
    // server lets a request without one through to here, so that the refusal carries the echo and
    // the error body like every other answer. Node keeps the first of two Hosts in
    // `request.headers` and drops the other: only the raw headers show them both.
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      reply.fail(400, 'An HTTP/1.1 request needs a Host header')
      return
    }
    if (hostCount(request.raw) > 1) {
      reply.fail(400, 'The request has more than one Host header; send one')
      return
    }
    // An unknown path is 404 whatever it carries: answered here, before a body is read or parsed.
    // (@fastify/cors's catch-all OPTIONS route counts as unknown too. It is the only OPTIONS route
    // that ends in `*`; GET /docs/static/*, Swagger UI's assets, is a real route.)
    if (request.is404 || (request.method === 'OPTIONS' && request.routeOptions.url?.endsWith('*') === true)) {
      reply.fail(404, notFoundMessage(request))
      return
    }
    done()
  })
}

export default fp(headers, { name: 'common-headers', fastify: '5.x', dependencies: ['errors'] })
