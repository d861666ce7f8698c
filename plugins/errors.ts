// Errors: one body shape, {"errorMessages": ["..."]} (src/domain/challenges/messages.ts), sent by `reply.fail(status,
// message)`, with the error handler and the 404 handler for the service. Errors that happen before
// routing are src/server-options.ts's. The service's own errors carry stable codes (APICH_…, listed
// in src/domain/http/errors.ts; Fastify's are FST_ERR_…): the log has them, a body never does. It also
// keeps the service's paths, as its routes are registered, for the 404's "did you mean …?"
// (request.nearPath, src/domain/challenges/near-paths.ts).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { errorBody } from '../src/domain/challenges/messages.js'
import { NearPaths } from '../src/domain/challenges/near-paths.js'
import { errorsXml } from '../src/domain/http/xml.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route only refuses its methods (405): the 404's hints do not count it as answering them. */
    refusal?: boolean
  }
  interface FastifyReply {
    /** Sends `status` with the error body `{"errorMessages": [message]}`. */
    fail (status: number, message: string): FastifyReply
  }
  interface FastifyRequest {
    /**
     * For a request to a path the service does not have: the real path nearest it, as the learner
     * should send it ("did you mean …?"), or null. Worked out when read: read it for 404s only.
     */
    readonly nearPath: string | null
  }
}

// Fastify's own messages, said the way a learner can act on.
type Message = (error: FastifyError, request: FastifyRequest, options: ErrorsOptions) => string

const messages: Record<string, Message> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (error, request) => {
    // request.server is the route's own plugin, which holds its body parsers.
    const accepted = request.server.hasContentTypeParser('application/xml') ? 'application/json or application/xml' : 'application/json'
    // A body without a Content-Type is read as JSON (plugins/bodies.ts), so one was sent; one that
    // is no media type at all was set aside, and comes with the error.
    const sent = (error as FastifyError & { contentType?: string }).contentType ?? request.headers['content-type']
    return `Unsupported Content-Type ${JSON.stringify(sent)}: send ${accepted}`
  },
  FST_ERR_CTP_BODY_TOO_LARGE: (_e, _request, options) =>
    `The request body is larger than the limit of ${options.bodyLimit} bytes`,
  FST_ERR_CTP_INVALID_JSON_BODY: () => 'The request body is not valid JSON (or holds a __proto__ or constructor.prototype key)',
  FST_ERR_CTP_EMPTY_JSON_BODY: () => 'The request body is empty; send a JSON object such as {"note": "..."}',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => 'The Content-Length header does not match the body',
  FST_ERR_VALIDATION: (error) => `Invalid request: ${error.message}`
}

/** What the learner reads: a message of ours for Fastify's own errors, else the error's message. */
function messageFor (error: FastifyError, request: FastifyRequest, options: ErrorsOptions): string {
  return messages[error.code]?.(error, request, options) ?? error.message
}

export interface ErrorsOptions {
  /** The body limit that the bodies plugin applies, named in the 413 message. */
  bodyLimit: number
}

async function errors (fastify: FastifyInstance, options: ErrorsOptions): Promise<void> {
  // Every route registered from here on (the API, its /api copies, the pages, /docs, /admin).
  const paths = new NearPaths(fastify.prefix)
  // The methods a route answers; none for method-guard's 405s (config.refusal), which only refuse.
  fastify.addHook('onRoute', route => { paths.add(route.url, route.config?.refusal === true ? [] : [route.method].flat()) })
  // Worked out once per 404: the message and the journal both read it.
  const suggested = new WeakMap<FastifyRequest, string | null>()
  fastify.decorateRequest('nearPath', {
    getter (this: FastifyRequest): string | null {
      let near = suggested.get(this)
      if (near === undefined) {
        const url = this.url
        const query = url.indexOf('?')
        near = paths.suggest(query === -1 ? url : url.slice(0, query), this.method)
        suggested.set(this, near)
      }
      return near
    }
  })

  fastify.decorateReply('fail', function (this: FastifyReply, status: number, message: string) {
    this.code(status)
    // In XML when Accept asks for it (see plugins/formats.ts), else JSON.
    if (this.request.format === 'xml') return this.type(`${this.request.xmlType}; charset=utf-8`).send(errorsXml(errorBody(message)))
    return this.send(errorBody(message))
  })

  // One line per invalid field (TypeBox reports a missing string twice: required, and not a string).
  fastify.setSchemaErrorFormatter(function (errors, dataVar) {
    const byField = new Map<string, string>()
    for (const error of errors) {
      const field = `${dataVar}${error.instancePath}`
      if (!byField.has(field)) byField.set(field, `${field}: ${error.message}`)
    }
    return new Error([...byField.values()].join('; '))
  })

  fastify.setErrorHandler(function (error: FastifyError, request, reply) {
    const status = error.statusCode ?? 500
    if (status === 503) {
      // The session store is away (see src/domain/sessions/redis-store.ts): a retry may succeed. Not logged:
      // the store says once when it goes away, why, and when it is back (plugins/registry.ts), where a
      // line per request would be hundreds a second in an outage.
      return reply.fail(503, error.message)
    }
    if (status >= 500) {
      // Logged in full; the learner gets no stack or internal detail.
      request.log.error({ err: error }, 'request failed')
      return reply.fail(500, 'Internal Server Error')
    }
    return reply.fail(status, messageFor(error, request, options))
  })
}

// reply.fail answers in the format the request asked for (request.format).
export default fp(errors, { name: 'errors', fastify: '5.x', dependencies: ['formats'] })
