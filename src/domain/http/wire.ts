// What goes over the wire as learners' clients expect it (issue 35), as plain Node functions:
// response header names in the Title-Case the hosted reference delivered (`X-Challenger`, not
// `x-challenger`: Karate's response-header map, for one, is case-sensitive), and one value of a
// request header sent more than once (the reference reads the first; Node joins the copies with
// ", "). plugins/wire.ts applies them to every answer of the service; src/server-options.ts to the
// answers given before the service's hooks run. Nothing here knows Fastify.
import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http'

/** Names whose usual spelling is not one capital per dash-separated word. */
const SPELLED: Readonly<Record<string, string>> = {
  'www-authenticate': 'WWW-Authenticate',
  etag: 'ETag',
  'x-xss-protection': 'X-XSS-Protection',
  'x-dns-prefetch-control': 'X-DNS-Prefetch-Control',
  'x-ratelimit-limit': 'X-RateLimit-Limit',
  'x-ratelimit-remaining': 'X-RateLimit-Remaining',
  'x-ratelimit-reset': 'X-RateLimit-Reset'
}

/**
 * The names seen so far, as they go on the wire. Response header names come from code (ours and
 * our plugins'), never from a request, so the map stays small; the cap is a guard all the same.
 */
const names = new Map<string, string>(Object.entries(SPELLED))
const MAX_NAMES = 1000

/** `name` as it goes on the wire: `x-auth-token` → `X-Auth-Token`, `www-authenticate` → `WWW-Authenticate`. */
export function wireName (name: string): string {
  let wire = names.get(name)
  if (wire === undefined) {
    const lower = name.toLowerCase()
    wire = SPELLED[lower] ?? lower.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase())
    if (names.size < MAX_NAMES) names.set(name, wire)
  }
  return wire
}

/**
 * The same headers under their wire names, as the flat list (name, value, name, value, …) that
 * writeHead takes: a list costs a fifth of a new object with the same keys (150–200 ns against
 * 700–900 ns for seven headers, node dist/bench/wire-names.js).
 */
export function wireHeaders (headers: OutgoingHttpHeaders): OutgoingHttpHeader[] {
  const wire: OutgoingHttpHeader[] = []
  for (const name in headers) wire.push(wireName(name), headers[name] as OutgoingHttpHeader)
  return wire
}

type WriteHead = (this: ServerResponse, statusCode: number, reason?: unknown, headers?: unknown) => ServerResponse

/**
 * Calls `writeHead` on `response` with the header names on the wire. Fastify passes the headers
 * to writeHead as one object (lower case); an answer streamed (a static file) sets them one by one
 * with setHeader, and Node calls writeHead without any: then those are renamed in place.
 */
function onTheWire (response: ServerResponse, writeHead: WriteHead, statusCode: number, reason?: unknown, headers?: unknown): ServerResponse {
  if (headers === undefined && typeof reason === 'object' && reason !== null && !Array.isArray(reason)) {
    return writeHead.call(response, statusCode, wireHeaders(reason as OutgoingHttpHeaders))
  }
  if (typeof headers === 'object' && headers !== null && !Array.isArray(headers)) {
    return writeHead.call(response, statusCode, reason, wireHeaders(headers as OutgoingHttpHeaders))
  }
  // setHeader under the same name, whatever its case, replaces the value and takes the new spelling.
  for (const name of response.getHeaderNames()) response.setHeader(wireName(name), response.getHeader(name) as string)
  return writeHead.call(response, statusCode, reason, headers)
}

/** writeHead with the names on the wire, over the class's own (Node's, or a subclass's such as light-my-request's for inject()). */
function writeHeadOnTheWire (this: ServerResponse, statusCode: number, reason?: unknown, headers?: unknown): ServerResponse {
  return onTheWire(this, (Object.getPrototypeOf(this) as { writeHead: WriteHead }).writeHead, statusCode, reason, headers)
}

/**
 * Makes `response` write its header names in Title-Case. HTTP/1 only: HTTP/2 sends names in lower
 * case by definition (RFC 9113 §8.2.1), and Node's HTTP/2 compatibility layer lowers them anyway.
 * A writeHead that a host's code put on the response before (to add a header as the answer goes
 * out, say) is kept: the names go through it.
 */
export function namesOnTheWire (request: IncomingMessage, response: ServerResponse): void {
  if (request.httpVersionMajor !== 1) return
  if (!Object.hasOwn(response, 'writeHead')) {
    response.writeHead = writeHeadOnTheWire as ServerResponse['writeHead']
    return
  }
  const previous = response.writeHead as WriteHead
  response.writeHead = function (this: ServerResponse, statusCode: number, reason?: unknown, headers?: unknown): ServerResponse {
    return onTheWire(this, previous, statusCode, reason, headers)
  } as ServerResponse['writeHead']
}

/** The request headers of which only the first copy counts, as the reference reads them. */
const FIRST_ONLY = ['x-challenger', 'x-auth-token'] as const

/**
 * Keeps only the first value of X-CHALLENGER and X-AUTH-TOKEN when the request repeated one. Node
 * joins the copies of a header it does not know with ", " (`a, b`); REST Assured clients that add
 * X-CHALLENGER on every call send it two to four times. Only a value with a comma costs a look at
 * the raw headers: a single header whose value has a comma keeps it whole (it is one value).
 */
export function firstValues (request: IncomingMessage): void {
  const headers = request.headers
  for (const name of FIRST_ONLY) {
    // A string for these names: Node (and inject()) make an array of set-cookie only.
    const value = headers[name] as string | undefined
    if (value !== undefined && value.includes(',')) headers[name] = firstRaw(request.rawHeaders, name) ?? value
  }
}

/**
 * The value of the first `name` header in Node's raw list (name, value, name, value, …); none when
 * it is not there (a host's code set the parsed header itself).
 */
function firstRaw (rawHeaders: readonly string[], name: string): string | undefined {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const raw = rawHeaders[i] as string
    if (raw.length === name.length && raw.toLowerCase() === name) return rawHeaders[i + 1]
  }
  return undefined
}
