// Errors: one body shape, {"errorMessages": ["..."]}, made in one place.
// Adds `reply.fail(status, message)`, the error handler and the 404 handler for the service,
// and the handlers for errors that happen before routing (see `frameworkErrors`).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import { challengerEcho, COMMON_HEADERS, unreadBody } from '../src/common-headers.js'
import { notFoundMessage } from '../src/messages.js'
import { errorsXml } from '../src/xml.js'

declare module 'fastify' {
  interface FastifyReply {
    /** Sends `status` with the error body `{"errorMessages": [message]}`. */
    fail (status: number, message: string): FastifyReply
  }
}

export interface ErrorBody {
  errorMessages: string[]
}

export function errorBody (message: string): ErrorBody {
  return { errorMessages: [message] }
}

// Fastify's own messages, said the way a learner can act on.
type Message = (error: FastifyError, request: FastifyRequest, options: ErrorsOptions) => string

const messages: Record<string, Message> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (_e, request) => {
    // request.server is the route's own plugin, which holds its body parsers.
    const accepted = request.server.hasContentTypeParser('application/xml') ? 'application/json or application/xml' : 'application/json'
    // A body without a Content-Type is read as JSON (plugins/bodies.ts), so one was sent.
    const sent = request.unusableContentType ?? request.headers['content-type']
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

/**
 * Fastify's `frameworkErrors` option: errors raised before a route is found (a malformed URL).
 * Hooks have not run, so the common headers are set here.
 */
export function frameworkErrors (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // An oversized X-CHALLENGER is refused first, here as everywhere: the same check as the
  // common-headers plugin's (src/common-headers.ts).
  const { echo, refusal } = challengerEcho(request.headers['x-challenger'] as string | undefined)
  if (echo !== undefined) reply.header('x-challenger', echo)
  // A body nobody will read closes the connection, as in the common-headers plugin.
  if (unreadBody(request.raw)) reply.header('connection', 'close')
  reply
    // Fastify's framework errors always carry their status.
    .code(refusal === undefined ? error.statusCode as number : 431)
    .headers(COMMON_HEADERS)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(errorBody(refusal ?? error.message)))
}

/**
 * Fastify's `clientErrorHandler` option: errors from Node's HTTP parser (a malformed request line,
 * headers over Node's size limit, a request that timed out). No request was parsed, so there is
 * nothing to echo: the status, the CORS headers and the error body, then the connection closes.
 */
export function clientErrorHandler (error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy()
    return
  }
  const [status, message] = clientErrors[error.code ?? ''] ?? [400, 'Malformed HTTP request']
  const body = JSON.stringify(errorBody(message))
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    Object.entries(COMMON_HEADERS).map(([name, value]) => `${name}: ${value}\r\n`).join('') +
    'content-type: application/json; charset=utf-8\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    'connection: close\r\n\r\n' +
    body
  )
}

const clientErrors: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request headers are larger than the server accepts'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request took too long to arrive']
}

export interface ErrorsOptions {
  /** The body limit that the bodies plugin applies, named in the 413 message. */
  bodyLimit: number
}

async function errors (fastify: FastifyInstance, options: ErrorsOptions): Promise<void> {
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
      // The session store is away (see src/redis-store.ts): a retry may succeed.
      request.log.warn({ err: error }, 'store unavailable')
      return reply.fail(503, error.message)
    }
    if (status >= 500) {
      // Logged in full; the learner gets no stack or internal detail.
      request.log.error({ err: error }, 'request failed')
      return reply.fail(500, 'Internal Server Error')
    }
    return reply.fail(status, messageFor(error, request, options))
  })

  // Setting a handler here puts unknown paths under this plugin's hooks; the common-headers hook
  // then answers them before any body is read, so the handler itself is only a fallback.
  /* c8 ignore next 3 */
  fastify.setNotFoundHandler(function (request, reply) {
    return reply.fail(404, notFoundMessage(request))
  })
}

// reply.fail answers in the format the request asked for (request.format).
export default fp(errors, { name: 'errors', fastify: '5.x', dependencies: ['formats'] })
