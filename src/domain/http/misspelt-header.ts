// A session header spelt nearly as X-CHALLENGER (X-CHALLENGE, Challenger, X_Challenger): the service
// reads only X-CHALLENGER, so such a request names no session. plugins/headers.ts says so in X-Hint and
// the journal records the request for the session it meant. Looked for only without an X-CHALLENGER.
import { nearest } from '../config/misspelt.js'

const NAME = 'x-challenger'
/** The request's first header names looked at, at most: a stranger's thousand headers cost no more. */
export const MAX_HEADERS_LOOKED_AT = 40
/** Names longer or shorter than X-CHALLENGER by more than this are not compared. */
const SLACK = 4
/** Header names already judged, as sent: clients send the same few on every request. */
const judged = new Map<string, boolean>()
/** Names judged are remembered up to this many; a stranger's made-up names past it are judged each time. */
export const MAX_NAMES_REMEMBERED = 1000

function isNear (name: string): boolean {
  let near = judged.get(name)
  if (near === undefined) {
    near = name.toLowerCase() !== NAME && nearest(name, [NAME]) !== undefined
    if (judged.size < MAX_NAMES_REMEMBERED) judged.set(name, near)
  }
  return near
}

export interface MisspeltHeader {
  /** The header's name as sent. */
  name: string
  value: string
}

/** The first header (of the first MAX_HEADERS_LOOKED_AT) near X-CHALLENGER, by misspelt.ts's rule for
 * names (a third of its length in edits, case aside); null for none. */
export function misspeltChallenger (rawHeaders: readonly string[]): MisspeltHeader | null {
  const end = Math.min(rawHeaders.length, 2 * MAX_HEADERS_LOOKED_AT)
  for (let i = 0; i < end; i += 2) {
    const name = rawHeaders[i] as string
    if (Math.abs(name.length - NAME.length) <= SLACK && isNear(name)) return { name, value: rawHeaders[i + 1] as string }
  }
  return null
}
