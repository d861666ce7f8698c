// A bug hunt: what a session's JSON says of it, and what a finding is told when the answer it points
// at was the service's correct one. The hidden defects never leave the server: the JSON (and its XML,
// the pages, the board) counts them and names only those found, so no answer can be decoded into the
// hunt's answers, and there is no key to keep or share between instances. A restore never sets a
// hunt (routes/challenger.ts): a live session keeps its own, a session made again has none.
import type { Hunt } from '../sessions/store.js'
import { defectById, type Defect } from './catalogue.js'

/** Whether every hidden defect of the hunt is found: the hunt is over. */
export function huntComplete (hunt: Hunt): boolean {
  return hunt.hidden.length > 0 && hunt.found.length >= hunt.hidden.length
}

/** A hunt as a session's JSON shows it: how many defects it hides, those found by id, and whether that is all of them. */
export function huntJson (hunt: Hunt): { hidden: number, found: string[], complete: boolean } {
  return { hidden: hunt.hidden.length, found: [...hunt.found], complete: huntComplete(hunt) }
}

/** What a finding is told of a defect it found. */
export function revealed (id: string): { id: string, name: string, breaks: string, why: string } {
  // A hunt's ids are the server's own draw (drawHunt): each names a defect.
  const { name, breaks, why } = defectById(id) as Defect
  return { id, name, breaks, why }
}

/** The facts of a journal entry an explanation needs. */
export interface Answered {
  method: string
  /** The route's path without the /api base, or the path sent for an unknown one. */
  path: string
  status: number
  /** Whether the path is one of the API's (else only its 404 is explained). */
  known: boolean
}

// Why a correct answer is correct, by `METHOD path status`, then `* path status`, then `* * status`.
const OVERRIDE = 'POST /heartbeat answers 405 with Allow, unless X-HTTP-Method-Override makes it DELETE (405), PATCH (500) or TRACE (501).'
const RULES = new Map<string, string>([
  ['GET /heartbeat 204', 'GET /heartbeat answers 204 No Content: the server is running, and has nothing to say.'],
  ['HEAD /heartbeat 204', 'HEAD /heartbeat answers as GET does, 204, without a body.'],
  ['OPTIONS /heartbeat 204', 'OPTIONS /heartbeat answers 204 with the methods it allows in Allow.'],
  ['PATCH /heartbeat 500', 'PATCH /heartbeat answers 500: the heartbeat fails on purpose there.'],
  ['TRACE /heartbeat 501', 'TRACE /heartbeat answers 501 Not Implemented.'],
  ['POST /heartbeat 405', OVERRIDE],
  ['POST /heartbeat 500', OVERRIDE],
  ['POST /heartbeat 501', OVERRIDE],
  ['* /heartbeat 405', 'Methods the heartbeat does not list are answered 405 Method Not Allowed, with Allow.'],
  ['* /heartbeat 503', 'The heartbeat answers 503 while the server is shutting down or its store cannot be reached.'],
  ['GET /secret/note 200', 'GET /secret/note with the session\'s own token answers 200 and the note, as JSON or, when Accept asks for it, XML.'],
  ['GET /secret/note 401', 'GET /secret/note answers 401 when there is no session (X-CHALLENGER missing or unknown) or no token: the server does not know who is asking.'],
  ['GET /secret/note 403', 'GET /secret/note answers 403 when a token came but is not this session\'s: the server knows the request, and refuses it.'],
  ['POST /secret/note 200', 'POST /secret/note answers 200 (not 201: the note is not a new resource) with the note as kept, cut to the note length.'],
  ['POST /secret/note 400', 'A body that is not a JSON object with a string "note" is refused with 400, once the session and its token are good.'],
  ['POST /secret/note 401', 'POST /secret/note answers 401 when there is no session or no token.'],
  ['POST /secret/note 403', 'POST /secret/note answers 403 when the token is not this session\'s.'],
  ['POST /secret/note 415', 'A body that is not JSON (or XML) is refused with 415 Unsupported Media Type.'],
  ['POST /secret/token 201', 'Good Basic credentials and a live session earn the token: 201, with X-AUTH-TOKEN.'],
  ['POST /secret/token 401', 'POST /secret/token answers 401 for credentials it does not accept (with WWW-Authenticate) or for no live session (without).'],
  ['POST /challenger 201', 'POST /challenger without X-CHALLENGER makes a session: 201, with its id in X-CHALLENGER.'],
  ['POST /challenger 200', 'POST /challenger naming a live session in X-CHALLENGER answers 200: it exists already.'],
  ['* * 406', 'An Accept header that allows neither JSON nor XML gets 406 Not Acceptable.'],
  ['* * 413', 'A body over the body limit is refused with 413 before anything else.']
])

/** Why the answer of `entry` was the correct one: a finding there was a false alarm. */
export function whyCorrect (entry: Answered): string {
  const { method, path, status } = entry
  const reason = (entry.known ? RULES.get(`${method} ${path} ${status}`) ?? RULES.get(`* ${path} ${status}`) ?? RULES.get(`* * ${status}`) : undefined) ??
    (status === 404
      ? `${path} is not a path of this API, or names no live session: it is answered 404 (with a "did you mean" in the journal when a path is near).`
      : status === 405 ? `${path} does not take ${method}: 405 Method Not Allowed, with the methods it does take in Allow.` : 'That is the status the specification gives this request.')
  return `Nothing hidden changed this answer: ${method} ${path} answered ${status}, as the service's rules say. ${reason}`
}
