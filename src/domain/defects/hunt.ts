// A bug hunt: how its hidden defects travel in a session's JSON (a code, so that a glance at the
// JSON does not spoil the hunt: hidden, not secret), and what a finding is told when the answer it
// points at was the service's correct one.
import type { Hunt } from '../sessions/store.js'
import { defectById, defects } from './catalogue.js'

/** The hunt's hidden defects as a code: base64url of their ids. */
export function huntCode (hidden: readonly string[]): string {
  return Buffer.from(hidden.join(','), 'utf8').toString('base64url')
}

/** The hunt a session's JSON describes, or why it is not one. */
export function huntFrom (given: { defects: string, found?: string[] | undefined }): Hunt | { refused: string } {
  const hidden = /^[A-Za-z0-9_-]{1,400}$/.test(given.defects) ? Buffer.from(given.defects, 'base64url').toString('utf8').split(',') : []
  if (hidden.length === 0 || hidden.some(id => defectById(id)?.hunt !== true) || new Set(hidden).size !== hidden.length) {
    return { refused: 'hunt.defects is not a hunt\'s code (copy it, unchanged, from GET /challenger/{guid})' }
  }
  const found = given.found ?? []
  const stray = found.find(id => !hidden.includes(id))
  if (stray !== undefined) return { refused: `hunt.found names ${JSON.stringify(stray)}, which this hunt does not hide` }
  return { hidden, found: [...new Set(found)] }
}

/** A hunt as a session's JSON shows it. */
export function huntJson (hunt: Hunt): { defects: string, found: string[] } {
  return { defects: huntCode(hunt.hidden), found: [...hunt.found] }
}

/** What a finding is told of a defect it found. */
export function revealed (id: string): { id: string, name: string, breaks: string, why: string } {
  const { name, breaks, why } = defectById(id) ?? defects[0] as NonNullable<ReturnType<typeof defectById>>
  return { id, name, breaks, why }
}

/** The facts of a journal entry an explanation needs. */
export interface Answered {
  method: string
  /** The route's path without the /api base, or the path sent for an unknown one. */
  path: string
  status: number
  token?: 'missing' | 'valid' | 'wrong' | undefined
  known: boolean
}

const NOTE_READ: Record<number, string> = {
  200: 'GET /secret/note with the session\'s own token answers 200 and the note, as JSON or, when Accept asks for it, XML.',
  401: 'GET /secret/note answers 401 when there is no session (X-CHALLENGER missing or unknown) or no token: the server does not know who is asking.',
  403: 'GET /secret/note answers 403 when a token came but is not this session\'s: the server knows the request, and refuses it.',
  406: 'An Accept header that allows neither JSON nor XML gets 406 Not Acceptable.'
}
const NOTE_WRITE: Record<number, string> = {
  200: 'POST /secret/note answers 200 (not 201: the note is not a new resource) with the note as kept, cut to the note length.',
  400: 'A body that is not a JSON object with a string "note" is refused with 400, once the session and its token are good.',
  401: 'POST /secret/note answers 401 when there is no session or no token.',
  403: 'POST /secret/note answers 403 when the token is not this session\'s.',
  413: 'A body over the body limit is refused with 413 before anything else.',
  415: 'A body that is not JSON (or XML) is refused with 415 Unsupported Media Type.'
}
const HEARTBEAT: Record<string, string> = {
  GET: 'GET /heartbeat answers 204 No Content: the server is running, and has nothing to say.',
  HEAD: 'HEAD /heartbeat answers as GET does, 204, without a body.',
  OPTIONS: 'OPTIONS /heartbeat answers 204 with the methods it allows in Allow.',
  PATCH: 'PATCH /heartbeat answers 500: the heartbeat fails on purpose there.',
  TRACE: 'TRACE /heartbeat answers 501 Not Implemented.',
  POST: 'POST /heartbeat answers 405 with Allow, unless X-HTTP-Method-Override makes it DELETE (405), PATCH (500) or TRACE (501).'
}

/** Why the answer of `entry` was the correct one: a finding there was a false alarm. */
export function whyCorrect (entry: Answered): string {
  const { method, path, status } = entry
  let reason: string | undefined
  if (!entry.known) reason = status === 404 ? `${path} is not a path of this API: an unknown path is answered 404 (with a "did you mean" in the journal when one is near).` : undefined
  else if (path === '/heartbeat') reason = status === 503 ? 'The heartbeat answers 503 while the server is shutting down or its store cannot be reached.' : HEARTBEAT[method] ?? 'Methods the heartbeat does not list are answered 405 Method Not Allowed, with Allow.'
  else if (path === '/secret/note') reason = method === 'POST' ? NOTE_WRITE[status] : NOTE_READ[status]
  else if (path === '/secret/token') {
    reason = status === 201
      ? 'Good Basic credentials and a live session earn the token: 201, with X-AUTH-TOKEN.'
      : status === 401 ? 'POST /secret/token answers 401 for credentials it does not accept (with WWW-Authenticate) or for no live session (without).' : undefined
  } else if (path === '/challenger') {
    reason = status === 201
      ? 'POST /challenger without X-CHALLENGER makes a session: 201, with its id in X-CHALLENGER.'
      : status === 200 ? 'POST /challenger naming a live session in X-CHALLENGER answers 200: it exists already.' : undefined
  }
  if (status === 405 && reason === undefined) reason = `${path} does not take ${method}: 405 Method Not Allowed, with the methods it does take in Allow.`
  return `Nothing hidden changed this answer: ${method} ${path} answered ${status}, as the service's rules say. ${reason ?? 'That is the status the specification gives this request.'}`
}
