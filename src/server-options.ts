// What a Fastify server itself is given, as opposed to the plugin: the handlers for errors that
// happen before the service's hooks run (Fastify's `frameworkErrors` and `clientErrorHandler`
// options) and the HTTP methods the server knows. src/server.ts gives them to its server; a host
// that embeds the service may give them to its own (docs/embedding.md). They sit
// above the plain modules of src/domain/ because they act on Fastify's server and replies; they
// give those early answers the common headers, the X-CHALLENGER checks and the error body of every
// other answer (src/domain/http/common-headers.ts, src/domain/challenges/messages.ts).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { STATUS_CODES, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { challengerEcho, COMMON_HEADERS, unreadBody } from './domain/http/common-headers.js'
import { errorBody } from './domain/challenges/messages.js'
import { EVERY_METHOD } from './domain/http/methods.js'
import { firstValues, namesOnTheWire, wireName } from './domain/http/wire.js'

/**
 * Fastify's `frameworkErrors` option: errors raised before a route is found (a malformed URL).
 * Hooks have not run, so the common headers are set here.
 */
export function frameworkErrors (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // The wire as on every answer (plugins/wire.ts): one X-CHALLENGER, Title-Case names.
  firstValues(request.raw)
  namesOnTheWire(request.raw, reply.raw)
  // An oversized X-CHALLENGER is refused first, here as everywhere: the same check as the
  // headers plugin's (plugins/headers.ts).
  const { echo, refusal } = challengerEcho(request.headers['x-challenger'] as string | undefined)
  if (echo !== undefined) reply.header('x-challenger', echo)
  // A body nobody will read closes the connection, as in plugins/shutdown.ts.
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
 * Answers go out in request order (RFC 9112 §9.3.2): the answers to requests that arrived whole
 * before the error are written first, then this one.
 */
export function clientErrorHandler (error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy()
    return
  }
  // The parser says so again for every later read while the earlier answers go out: once is enough.
  if (answering.has(socket)) return
  answering.add(socket)
  afterEarlierAnswers(socket, () => {
    const current = inFlight(socket)
    // Half an answer on the wire (to the request the error cut short) cannot be followed by another.
    if (!socket.writable || current?.headersSent === true) {
      socket.destroy()
      return
    }
    const [status, message] = clientErrors[error.code ?? ''] ?? [400, 'Malformed HTTP request']
    const body = JSON.stringify(errorBody(message))
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      Object.entries(COMMON_HEADERS).map(([name, value]) => `${wireName(name)}: ${value}\r\n`).join('') +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body
    )
  })
}

/** Connections whose parser error is being answered. */
const answering = new WeakSet<Socket>()

/**
 * The answer Node is writing on `socket`, if any. Node keeps it there (`_httpMessage`, as it has
 * since its first versions) and hands the socket to the next pipelined answer when it is done.
 */
function inFlight (socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined
}

/**
 * Calls `then` once every answer to a request that arrived whole on `socket` has been written out:
 * at once when none is in flight, or when the one in flight is to the request the error cut short
 * (its body never arrived whole, so its answer is this error).
 */
function afterEarlierAnswers (socket: Socket, then: () => void): void {
  const current = inFlight(socket)
  if (current === undefined || (!current.writableEnded && !current.req.complete)) {
    then()
    return
  }
  // Node moves the socket to the next answer in its own 'finish' listener, which comes first. (Not
  // writableFinished: it can say so before the answer's last write has completed.)
  current.once('finish', () => afterEarlierAnswers(socket, then))
}

const clientErrors: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request headers are larger than the server accepts'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request took too long to arrive']
}

/**
 * Adds to `fastify`'s server every method of EVERY_METHOD that it does not know yet, as bodyless:
 * Fastify then parses no body for them on any route, so none can fail on a body before a route
 * refuses it. Call it before the server is ready (Fastify refuses new methods after). Fastify keeps
 * one list of methods per server and answers a method it does not know with its 404 before any
 * plugin sees it: with this, PROPFIND or QUERY reach the service and get a 405.
 */
export function supportEveryMethod (fastify: FastifyInstance): void {
  for (const method of EVERY_METHOD) {
    if (!fastify.supportedMethods.includes(method)) fastify.addHttpMethod(method)
  }
}
