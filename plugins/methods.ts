// HTTP methods: teaches the server every method Node's parser accepts (but CONNECT), so that
// odd verbs reach the service and get a 405 instead of Fastify's 404, and adds
// `fastify.answerEarly` and `fastify.allowOnly` for routes that answer before any body is read.
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify'
import fp from 'fastify-plugin'
import { METHODS } from 'node:http'
import { Allow, failure, header, noBody } from '../src/domain/schemas.js'

/** Every method a route can be asked for. */
export const ALL_METHODS: readonly string[] = METHODS.filter(method => method !== 'CONNECT')

/** The methods an OpenAPI 3 document can describe; routes for the others are hidden from it. */
const DOCUMENTED = new Set(['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'])

type Answer = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>

declare module 'fastify' {
  interface FastifyInstance {
    /** Every method Node's parser accepts but CONNECT. */
    allMethods: readonly string[]
    /**
     * Registers `url` for `methods`, answered by `answer` in the route's onRequest hook, before
     * Fastify reads, limits or parses a body: a method that is refused is refused whatever it carries.
     */
    answerEarly (url: string, methods: readonly string[], answer: Answer, schema?: FastifySchema, config?: FastifyContextConfig): void
    /**
     * Answers OPTIONS on `url` with 204 and `Allow` (which also serves as the CORS preflight), and
     * every method not in `allow` with 405, `Allow` and the error body.
     */
    allowOnly (url: string, allow: readonly string[]): void
  }
}

/* c8 ignore next 4 */
function unreachable (): void {
  // answerEarly's onRequest hook always sends the reply, so Fastify never calls the handler.
  throw new Error('unreachable')
}

async function methods (fastify: FastifyInstance): Promise<void> {
  // Fastify keeps one list of methods per server. Added as bodyless: Fastify never parses a body
  // for them, so they cannot fail on one before the route refuses them.
  for (const method of ALL_METHODS) {
    if (!fastify.supportedMethods.includes(method)) fastify.addHttpMethod(method)
  }

  fastify.decorate('allMethods', ALL_METHODS)

  fastify.decorate('answerEarly', function (this: FastifyInstance, url: string, methods: readonly string[], answer: Answer, schema: FastifySchema = {}, config: FastifyContextConfig = {}) {
    const documented = methods.filter(method => DOCUMENTED.has(method))
    const hidden = methods.filter(method => !DOCUMENTED.has(method))
    if (documented.length > 0) this.route({ method: documented, url, schema, config, onRequest: answer, handler: unreachable })
    if (hidden.length > 0) this.route({ method: hidden, url, schema: { ...schema, hide: true }, config, onRequest: answer, handler: unreachable })
  })

  fastify.decorate('allowOnly', function (this: FastifyInstance, url: string, allow: readonly string[]) {
    const allowHeader = allow.join(', ')
    this.answerEarly(url, ['OPTIONS'], async (_request, reply) =>
      reply.code(204).headers({ allow: allowHeader, 'access-control-allow-methods': allowHeader }).send(), {
      summary: 'The methods this path answers (also the CORS preflight)',
      response: { 204: noBody(`Allow: ${allowHeader}`, { Allow, 'Access-Control-Allow-Methods': header('The same methods, for CORS') }) }
    })
    const refused = ALL_METHODS.filter(method => !allow.includes(method))
    // Every path has them, and they teach nothing: they answer, but the document leaves them out.
    this.answerEarly(url, refused, async (request, reply) =>
      reply.header('allow', allowHeader).fail(405, `${request.method} is not allowed on ${request.url.split('?')[0]}; allowed: ${allowHeader}`), {
      hide: true,
      summary: 'Not allowed here',
      response: { 405: failure(`Method not allowed; allowed: ${allowHeader}`, { Allow }) }
    })
  })
}

export default fp(methods, { name: 'http-methods', fastify: '5.x', dependencies: ['errors'] })
