// The method guard: the answers that depend only on the path and the method. An unknown path is
// 404, OPTIONS lists the path's methods (204 with Allow, which also serves as the CORS preflight),
// and any other method the path does not take is 405 with Allow and the error body.
//
// Each is answered in an onRequest hook, before Fastify reads, limits or parses a body: a request
// that is refused is refused whatever it carries, and its body is never read to the end (see
// plugins/shutdown.ts). Fastify wants a handler on every route, so each route's handler is the same
// function as its hook: reading the route shows its answer. The 404 is `fastify.answerNotFound`,
// which plugins/pipeline.ts makes the not-found handler and the last of the 404's steps.
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { notFoundMessage } from '../src/domain/challenges/messages.js'
import { EVERY_METHOD } from '../src/domain/http/methods.js'
import { Allow, failure, header, noBody } from '../src/domain/http/schemas.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The methods routes can be asked for: the server's (see supportEveryMethod) but CONNECT. */
    knownMethods (): string[]
    /**
     * Answers OPTIONS on `url` with 204 and `Allow`, and every other method of the server that is
     * not in `allow` with 405, `Allow` and the error body, before any body is read.
     */
    allowOnly (url: string, allow: readonly string[], config?: FastifyContextConfig): void
    /** The 404 of the service, for any path under its prefix that it does not have: a hook and a handler. */
    answerNotFound (request: FastifyRequest, reply: FastifyReply): void
  }
}

/** The 404 of the service, for any path under its prefix that it does not have. */
function notFound (request: FastifyRequest, reply: FastifyReply): void {
  reply.fail(404, notFoundMessage(request))
}

async function methodGuard (fastify: FastifyInstance): Promise<void> {
  fastify.decorate('knownMethods', function (this: FastifyInstance) {
    return this.supportedMethods.filter(method => EVERY_METHOD.includes(method))
  })

  fastify.decorate('answerNotFound', notFound)

  fastify.decorate('allowOnly', function (this: FastifyInstance, url: string, allow: readonly string[], config: FastifyContextConfig = {}) {
    const allowHeader = allow.join(', ')
    const options = async (_request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> =>
      reply.code(204).headers({ allow: allowHeader, 'access-control-allow-methods': allowHeader }).send()
    this.route({
      method: 'OPTIONS',
      url,
      schema: {
        // The document shows the operations a learner uses: OPTIONS only where it is a lesson (the
        // heartbeat's, which its own route documents).
        hide: true,
        summary: 'The methods this path answers (also the CORS preflight)',
        response: { 204: noBody(`Allow: ${allowHeader}`, { Allow, 'Access-Control-Allow-Methods': header('The same methods, for CORS') }) }
      },
      config,
      onRequest: options,
      handler: options
    })

    const notAllowed = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> =>
      reply.header('allow', allowHeader).fail(405, `${request.method} is not allowed on ${request.url.split('?')[0]}; allowed: ${allowHeader}`)
    this.route({
      method: this.knownMethods().filter(method => !allow.includes(method)),
      url,
      // Every path has them, and they teach nothing: they answer, but the document leaves them out.
      schema: { hide: true, summary: 'Not allowed here', response: { 405: failure(`Method not allowed; allowed: ${allowHeader}`, { Allow }) } },
      config: { ...config, refusal: true },
      onRequest: notAllowed,
      handler: notAllowed
    })
  })
}

// After headers, so that its checks (431, Host) come first and its headers are on these answers.
export default fp(methodGuard, { name: 'method-guard', fastify: '5.x', dependencies: ['errors', 'headers'] })
