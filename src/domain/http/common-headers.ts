// What every answer carries and the checks every request meets first: plugins/headers.ts applies them,
// and so do the framework-error handlers, for what fails before any hook runs.
import type { IncomingMessage } from 'node:http'

/** The longest X-CHALLENGER accepted: a UUID is 36 characters; the reference allows 100. */
export const MAX_CHALLENGER_LENGTH = 100

/** The 431's message, the reference's words (its challenge 47 is passed by the answer that says them). */
export const TOO_LONG_CHALLENGER = `X-CHALLENGER header is too large, maximum allowed is ${MAX_CHALLENGER_LENGTH} characters`

/** A session id's length: the reference reads an over-long X-CHALLENGER's first 36 characters as the session it tracks. */
export const GUID_LENGTH = 36

export const COMMON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'access-control-allow-origin': '*',
  'access-control-allow-headers': '*',
  'access-control-expose-headers': '*',
  'x-content-type-options': 'nosniff'
})

/** The echo of X-CHALLENGER, or for one over the limit the 431's message; nothing when not sent. */
export function challengerEcho (value: string | undefined): { echo?: string, refusal?: string } {
  if (value === undefined) return {}
  if (value.length > MAX_CHALLENGER_LENGTH) return { refusal: TOO_LONG_CHALLENGER }
  return { echo: value }
}

/** Whether an announced body has neither arrived whole nor been read: Node would read it all after the
 * answer, whatever its size, unless the answer says Connection: close. */
export function unreadBody (raw: IncomingMessage): boolean {
  const length = raw.headers['content-length']
  const announced = (length !== undefined && Number(length) > 0) || raw.headers['transfer-encoding'] !== undefined
  // `complete`: every byte has arrived; `readableEnded`: a reader took them all (as for inject()).
  return announced && !(raw.complete || raw.readableEnded)
}

/** Where npm start's server keeps a request's count of Host headers (src/server-options.ts), so that the app counts them once. */
export const HOSTS = Symbol('api-challenges.hosts')

/** How many Host headers the request has: Node keeps only the first in `headers`. Counted once per request. */
export function hostCount (raw: IncomingMessage & { [HOSTS]?: number }): number {
  const counted = raw[HOSTS]
  if (counted !== undefined) return counted
  let count = 0
  const { rawHeaders } = raw
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string
    if (name.length === 4 && name.toLowerCase() === 'host') count++
  }
  raw[HOSTS] = count
  return count
}
