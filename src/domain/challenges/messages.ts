// The error body and messages written in more than one place, so that a learner reads the same words.

/** The one shape of every error answer's body. */
export interface ErrorBody {
  errorMessages: string[]
}

export function errorBody (message: string): ErrorBody {
  return { errorMessages: [message] }
}

/** `did you mean /heartbeat?`, in the 404's message and the journal. */
export function didYouMean (path: string): string {
  return `did you mean ${path}?`
}

/** The 404's message: `No resource at GET /heartbeats; did you mean /heartbeat?`. */
export function notFoundMessage (request: { method: string, url: string, nearPath?: string | null }): string {
  const near = request.nearPath ?? null
  return `No resource at ${request.method} ${request.url}${near === null ? '' : `; ${didYouMean(near)}`}`
}

/** The `WWW-Authenticate` of every 401 of the note (the reference's, without a realm: no browser shows a dialog for it). */
export const BEARER = 'Bearer'

/** The 401 for a request that names no live session, on every route that needs one. */
export const NAME_A_SESSION = 'The X-CHALLENGER header must name a session: create one with POST /challenger'

/** A duration as a learner reads it: `10 minutes`, `90 seconds`, `1 hour`, `1500 ms`. */
export function duration (ms: number): string {
  const [count, unit] = ms % 3_600_000 === 0
    ? [ms / 3_600_000, 'hour']
    : ms % 60_000 === 0 ? [ms / 60_000, 'minute'] : ms % 1000 === 0 ? [ms / 1000, 'second'] : [ms, 'ms']
  return unit === 'ms' ? `${count} ms` : `${count} ${unit}${count === 1 ? '' : 's'}`
}

export interface ExpiredSession {
  /** The session's id, as the store issued it. */
  guid: string
  /** How long a session lasts without a request. */
  idleMs: number
  /** The API's base the request came to ('', '/api', under a host's prefix). */
  base: string
  /** The session's progress page. */
  page: string
}

/** The answer to a request naming a session that expired recently: that it expired, and how to get it back. */
export function expiredMessage ({ guid, idleMs, base, page }: ExpiredSession): string {
  return `Session ${JSON.stringify(guid)} has expired: a session ends after ${duration(idleMs)} without a request (sooner, when the server is full). ` +
    `Restore it with PUT ${base}/challenger/${guid} and the JSON saved from GET ${base}/challenger/${guid} ` +
    `(its progress page, ${page}, keeps that JSON in the browser and restores it with one click), ` +
    `or create a new session with POST ${base}/challenger`
}

/** The 401 for a note request without a token; `bare`: Authorization held a value without a scheme. */
export function missingTokenMessage (bare: boolean): string {
  return bare
    ? 'Authorization has a value but no scheme: send your token as Authorization: Bearer <token>, or in the X-AUTH-TOKEN header'
    : 'Send the token from POST /secret/token in the X-AUTH-TOKEN header'
}

// The note's body, in the 400's words and the journal's.
export const NOTE_JSON = 'a JSON object with a string "note"'
export const NOTE_XML = '<secretnote><note>hi</note></secretnote>, the note as text'

/** Whether a media type (lowercase, without parameters) is one of the XML types the note takes. */
export function isXml (mediaType: string): boolean {
  return mediaType === 'application/xml' || mediaType === 'text/xml'
}

/** The keys of a body a 400 names, at most, each cut to KEY_SHOWN characters: a stranger's body stays out. */
const KEYS_SHOWN = 3
const KEY_SHOWN = 30

/** What a JSON value is, in words: `an array`, `null`, `a number`. */
function kindOf (value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/** A body's first keys, quoted: `"notes"`, `"a", "b", "c" and 2 more`. */
function keysOf (body: object): string {
  const shown: string[] = []
  let more = 0
  for (const key in body) {
    if (shown.length < KEYS_SHOWN) shown.push(JSON.stringify(key.length > KEY_SHOWN ? `${key.slice(0, KEY_SHOWN - 1)}…` : key))
    else more++
  }
  if (more > 0) return `${shown.join(', ')} and ${more} more`
  return shown.length < 2 ? shown.join('') : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1) as string}`
}

/** The 400 of a note body that is no note, saying what it was: `…; this body has no "note" (it has "notes")`. */
export function noteBodyMessage (body: unknown, xml: boolean): string {
  if (xml) {
    const note = (body as { note?: unknown }).note
    return `Send ${NOTE_XML}; this body has ${note === undefined ? 'no <note> inside a <secretnote>' : 'a <note> that is not text only (elements in it, or more than one)'}`
  }
  const send = `Send ${NOTE_JSON}, such as {"note": "hi"}`
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return `${send}; this body is ${kindOf(body)}`
  if (!Object.hasOwn(body, 'note')) {
    const keys = keysOf(body)
    return `${send}; this body has no "note" (${keys === '' ? 'it is an empty object' : `it has ${keys}`})`
  }
  return `${send}; its "note" is ${kindOf((body as { note: unknown }).note)}`
}

/** The journal's hint of a request that named the session in a header near X-CHALLENGER (X-Hint names it). */
export const MISSPELT_SESSION_HEADER = 'This request named your session in a header that is not X-CHALLENGER (misspelt?), so it counted for no session and passed nothing'

/** The X-Hint of an answer to a request that sent `name`, a header near X-CHALLENGER, and no X-CHALLENGER. */
export function misspeltHeaderHint (name: string): string {
  return `The header ${name} is not X-CHALLENGER, so this request named no session: send your session id in X-CHALLENGER`
}
