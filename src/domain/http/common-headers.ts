// What every answer carries, and the checks every request meets first, as plain functions:
// plugins/headers.ts applies them in its hook, and the framework-error handlers (for what fails
// before any hook runs) apply the same ones. Nothing here knows Fastify.
import type { IncomingMessage } from 'node:http'

/** The longest X-CHALLENGER accepted: a UUID is 36 characters; the reference allows 100. */
export const MAX_CHALLENGER_LENGTH = 100

/** On every answer: CORS for any page (Swagger UI among them), and no type-sniffing by browsers. */
export const COMMON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'access-control-allow-origin': '*',
  'access-control-allow-headers': '*',
  'access-control-expose-headers': '*',
  'x-content-type-options': 'nosniff'
})

/**
 * (Node joins a repeated X-CHALLENGER into one string, so the header is always a string.)
 * The echo of X-CHALLENGER for an answer, or, for a value over the limit, the 431 to answer instead
 * (its message); nothing when the header was not sent.
 */
export function challengerEcho (value: string | undefined): { echo?: string, refusal?: string } {
  if (value === undefined) return {}
  if (value.length > MAX_CHALLENGER_LENGTH) return { refusal: `X-CHALLENGER is longer than ${MAX_CHALLENGER_LENGTH} characters` }
  return { echo: value }
}

/**
 * Whether the request announced a body (Content-Length above 0, or Transfer-Encoding) that has
 * neither arrived whole nor been read. Once answered, Node would read such a body to its end,
 * whatever its size, to keep the connection; answering with Connection: close makes Node close
 * the connection as soon as the answer is written instead.
 */
export function unreadBody (raw: IncomingMessage): boolean {
  const length = raw.headers['content-length']
  const announced = (length !== undefined && Number(length) > 0) || raw.headers['transfer-encoding'] !== undefined
  // `complete`: every byte has arrived; `readableEnded`: a reader took them all (as for inject()).
  return announced && !(raw.complete || raw.readableEnded)
}

/** How many Host headers the request has: Node keeps only the first in `headers`. */
export function hostCount (raw: IncomingMessage): number {
  let count = 0
  const { rawHeaders } = raw
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string
    if (name.length === 4 && name.toLowerCase() === 'host') count++
  }
  return count
}
