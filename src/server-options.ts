// What a Fastify server is given, not the plugin: handlers for errors before the service's hooks run, the
// requests its node:http server ends before Fastify, and the methods it knows. src/server.ts gives them to its
// server; a host may give them to its own.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { challengerEcho, COMMON_HEADERS, hostCount, unreadBody } from './domain/http/common-headers.js'
import { lastOnItsConnection } from './domain/http/connection-table.js'
import { errorBody } from './domain/challenges/messages.js'
import { EVERY_METHOD } from './domain/http/methods.js'
import { firstValues, namesOnTheWire, wireName } from './domain/http/wire.js'

/** Fastify's `frameworkErrors` option: errors before a route is found (a malformed URL), before any hook. */
export function frameworkErrors (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // The wire as on every answer (plugins/headers.ts): one X-CHALLENGER, Title-Case names.
  firstValues(request.raw)
  namesOnTheWire(request.raw, reply.raw)
  // An oversized X-CHALLENGER is refused first, here as everywhere.
  const { echo, refusal } = challengerEcho(request.headers['x-challenger'] as string | undefined)
  if (echo !== undefined) reply.header('x-challenger', echo)
  // A body nobody will read closes the connection, as in plugins/shutdown.ts.
  if (unreadBody(request.raw)) reply.header('connection', 'close')
  reply
    .code(refusal === undefined ? error.statusCode as number : 431)
    .headers(COMMON_HEADERS)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(errorBody(refusal ?? error.message)))
}

/** Fastify's `clientErrorHandler` option: errors of Node's HTTP parser, answered after the earlier pipelined
 * answers (RFC 9112 §9.3.2), then the connection closes. */
export function clientErrorHandler (error: Error & { code?: string }, socket: Socket): void {
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
      Object.entries(closingHeaders(body)).map(([name, value]) => `${name}: ${value}\r\n`).join('') +
      '\r\n' + body
    )
  })
}

/** The headers of an error answer that closes its connection, named as on the wire. */
function closingHeaders (body: string): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(COMMON_HEADERS)) headers[wireName(name)] = value
  headers['Content-Type'] = 'application/json; charset=utf-8'
  headers['Content-Length'] = String(Buffer.byteLength(body))
  headers.Connection = 'close'
  return headers
}

const answering = new WeakSet<Socket>()

// The answer Node is writing on `socket`: Node keeps it in `_httpMessage`, as it always has.
function inFlight (socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined
}

// Calls `then` once every answer to a request that arrived whole on `socket` is out.
function afterEarlierAnswers (socket: Socket, then: () => void): void {
  const current = inFlight(socket)
  if (current === undefined || (!current.writableEnded && !current.req.complete)) {
    then()
    return
  }
  // Node moves the socket on in its own 'finish' listener, which comes first (writableFinished can come too early).
  current.once('finish', () => afterEarlierAnswers(socket, then))
}

const clientErrors: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request headers are larger than the server accepts'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request took too long to arrive']
}

/** Most headers a request may have. Node keeps the first `maxHeadersCount` and drops the rest without a word, a
 * Content-Length among them (its body would then be read as nobody's); the server keeps one more, to see it. */
export const MAX_HEADERS = 2000

/** `handler` behind the server's own checks. A request with more than MAX_HEADERS headers is answered 431 here,
 * and one without a single Host (HTTP/1.1), which the app answers 400, is made its connection's last: after
 * either, the requests pipelined behind get no answer and the connection closes. */
export function screened (handler: (request: IncomingMessage, response: ServerResponse) => void): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    if (request.rawHeaders.length > 2 * MAX_HEADERS) {
      lastOnItsConnection(response)
      const body = JSON.stringify(errorBody(`The request has more than ${MAX_HEADERS} headers`))
      response.writeHead(431, closingHeaders(body)).end(body)
      return
    }
    const hosts = hostCount(request)
    if (hosts > 1 || (hosts === 0 && request.httpVersion === '1.1')) lastOnItsConnection(response)
    handler(request, response)
  }
}

/** Teaches `fastify`'s server every method of EVERY_METHOD, bodyless, before it is ready: Fastify answers an
 * unknown method 404 before any plugin, and with this PROPFIND or QUERY get the service's 405. */
export function supportEveryMethod (fastify: FastifyInstance): void {
  for (const method of EVERY_METHOD) {
    if (!fastify.supportedMethods.includes(method)) fastify.addHttpMethod(method)
  }
}
