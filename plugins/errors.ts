// Errors: one body shape, {"errorMessages": [...]}, sent by `reply.fail(status, message)`, and the error
// handler (no body carries an error's code). It keeps the routes' paths for the 404's "did you mean …?".
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { errorBody, isXml, noteBodyMessage } from '../src/domain/challenges/messages.js'
import { NearPaths } from '../src/domain/challenges/near-paths.js'
import { NoteBody } from '../src/domain/http/schemas.js'
import { ERROR_CODES } from '../src/domain/http/errors.js'
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
  interface FastifyInstance {
    /** For an answer already on its way (an onSend step): sets `status`, and gives the error body to send instead. */
    failurePayload (request: FastifyRequest, reply: FastifyReply, status: number, message: string): string
  }
  interface FastifyRequest {
    /** For a 404: the real path nearest the one sent, or null. Worked out when read. */
    readonly nearPath: string | null
  }
}

type Message = (error: FastifyError, request: FastifyRequest, options: ErrorsOptions) => string

const messages: Record<string, Message> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (error, request) => {
    // request.server is the route's own plugin, which holds its body parsers.
    const accepted = request.server.hasContentTypeParser('application/xml') ? 'application/json or application/xml' : 'application/json'
    // A body without a Content-Type is read as JSON, so one was sent (as the error has it, if set aside).
    const sent = (error as FastifyError & { contentType?: string }).contentType ?? request.headers['content-type']
    return `Unsupported Content-Type ${JSON.stringify(sent)}: send ${accepted}`
  },
  FST_ERR_CTP_BODY_TOO_LARGE: (_e, _request, options) =>
    `The request body is larger than the limit of ${options.bodyLimit} bytes`,
  FST_ERR_CTP_INVALID_JSON_BODY: () => 'The request body is not valid JSON (or holds a __proto__ or constructor.prototype key)',
  FST_ERR_CTP_EMPTY_JSON_BODY: () => 'The request body is empty; send a JSON object such as {"note": "..."}',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => 'The Content-Length header does not match the body',
  // The note's body in the journal's plain words, naming what the body was; other routes' as TypeBox says.
  FST_ERR_VALIDATION: (error, request) => error.validationContext === 'body' && request.routeOptions.schema?.body === NoteBody
    ? noteBodyMessage(request.body, isXml(request.mediaType ?? ''))
    : `Invalid request: ${error.message}`
}

function messageFor (error: FastifyError, request: FastifyRequest, options: ErrorsOptions): string {
  return messages[error.code]?.(error, request, options) ?? error.message
}

export interface ErrorsOptions {
  bodyLimit: number
}

async function errors (fastify: FastifyInstance, options: ErrorsOptions): Promise<void> {
  const paths = new NearPaths(fastify.prefix)
  fastify.addHook('onRoute', route => { paths.add(route.url, route.config?.refusal === true ? [] : [route.method].flat()) })
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
    if (this.request.format === 'xml') return this.type(`${this.request.xmlType}; charset=utf-8`).send(errorsXml(errorBody(message)))
    return this.send(errorBody(message))
  })

  fastify.decorate('failurePayload', function (request: FastifyRequest, reply: FastifyReply, status: number, message: string): string {
    reply.code(status)
    if (request.format === 'xml') {
      reply.type(`${request.xmlType}; charset=utf-8`)
      return errorsXml(errorBody(message))
    }
    reply.type('application/json; charset=utf-8')
    return JSON.stringify(errorBody(message))
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

  // MAX_SESSIONS with every session at work: said the first time, as the connection limits are.
  let fullSaid = false
  fastify.setErrorHandler(function (error: FastifyError, request, reply) {
    const status = error.statusCode ?? 500
    if (error.code === ERROR_CODES.sessionsFull && !fullSaid) {
      fullSaid = true
      request.log.warn({ code: error.code }, 'MAX_SESSIONS reached with every session at work: new sessions are refused (503) until one expires; see "Which session makes room" in docs/operations.md')
    }
    if (status === 503) {
      // The session store is away. Not logged per request: plugins/challenger-registry.ts logs each change once.
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

export default fp(errors, { name: 'errors', fastify: '5.x', dependencies: ['formats'] })
