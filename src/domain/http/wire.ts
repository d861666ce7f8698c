// The wire as learners' clients expect it (issue 35): response header names in the Title-Case the
// hosted reference sent (`X-Challenger`: Karate's response-header map, for one, is case-sensitive),
// and the first value of a request header sent more than once, as the reference reads it (Node joins
// the copies with ", "). Applied by plugins/headers.ts (the arrival), and by src/server-options.ts before routing.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http'

/** Names not spelled with one capital per dash-separated word. */
const SPELLED: Readonly<Record<string, string>> = {
  'www-authenticate': 'WWW-Authenticate',
  etag: 'ETag',
  'x-xss-protection': 'X-XSS-Protection',
  'x-dns-prefetch-control': 'X-DNS-Prefetch-Control',
  'x-ratelimit-limit': 'X-RateLimit-Limit',
  'x-ratelimit-remaining': 'X-RateLimit-Remaining',
  'x-ratelimit-reset': 'X-RateLimit-Reset'
}

/** `name` in Title-Case: `x-auth-token` → `X-Auth-Token`, `www-authenticate` → `WWW-Authenticate`. */
export function titleCase (name: string): string {
  const lower = name.toLowerCase()
  return SPELLED[lower] ?? lower.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase())
}

// Each name worked out once (docs/benchmarks.md, "Optimisations kept"). Names come from code, not
// from requests; the cap is a guard all the same.
const seen = new Map<string, string>()
const MAX_NAMES = 1000

/** `name` as it goes on the wire: titleCase(name), remembered. */
export function wireName (name: string): string {
  let wire = seen.get(name)
  if (wire === undefined) {
    wire = titleCase(name)
    if (seen.size < MAX_NAMES) seen.set(name, wire)
  }
  return wire
}

/** Where a response keeps the writeHead it had (Node's, or one a host's code put there). */
const ORIGINAL = Symbol('api-challenges.writeHead')
type WriteHead = (this: ServerResponse, ...args: unknown[]) => ServerResponse
type Renamed = ServerResponse & { [ORIGINAL]: WriteHead }

/** The writeHead of an answer whose names go out in Title-Case: one function for every answer, made once. */
function titleCaseWriteHead (this: Renamed, statusCode: number, reason?: unknown, headers?: unknown): ServerResponse {
  if (typeof reason === 'object') [reason, headers] = [undefined, reason]
  if (typeof headers === 'object' && headers !== null && !Array.isArray(headers)) {
    const wire: OutgoingHttpHeaders = {}
    for (const name in headers) wire[wireName(name)] = (headers as OutgoingHttpHeaders)[name]
    headers = wire
  } else {
    // An answer streamed sets its headers one by one: setHeader under another case of a name replaces it.
    for (const name of this.getHeaderNames()) this.setHeader(wireName(name), this.getHeader(name) as string)
  }
  return this[ORIGINAL](statusCode, reason, headers)
}

/**
 * Makes `response` send its header names in Title-Case, through the writeHead it has (Node's, or one
 * a host's code put there). HTTP/1 only: HTTP/2's names are lower case by definition (RFC 9113 §8.2.1).
 */
export function namesOnTheWire (request: IncomingMessage, response: ServerResponse): void {
  if (request.httpVersionMajor !== 1) return
  const renamed = response as Renamed
  renamed[ORIGINAL] = response.writeHead as WriteHead
  renamed.writeHead = titleCaseWriteHead as unknown as Renamed['writeHead']
}

/**
 * Keeps the first value of a repeated X-CHALLENGER or X-AUTH-TOKEN (REST Assured clients repeat
 * X-CHALLENGER). One header whose value has a comma is one value: the raw headers tell them apart.
 */
export function firstValues (request: IncomingMessage): void {
  for (const name of ['x-challenger', 'x-auth-token']) {
    const value = request.headers[name]
    if (typeof value !== 'string' || !value.includes(',')) continue
    const raw = request.rawHeaders
    const at = raw.findIndex((header, i) => i % 2 === 0 && header.toLowerCase() === name)
    // None when a host's code set the parsed header itself.
    if (at !== -1) request.headers[name] = raw[at + 1]
  }
}
