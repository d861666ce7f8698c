// What a deliberate defect is (data, and one small function at the phase where its decision is
// made), the shapes of the request and answer it sees, and the small helpers the families share.
// Nothing here knows Fastify, only the shapes below; plugins/defects.ts runs the phases.

/** The request as a defect sees it: `resource` is the route's path without prefix or /api. */
export interface Asked {
  readonly method: string
  readonly resource: string
  readonly headers: Record<string, string | string[] | undefined>
  body: unknown
  readonly session: { readonly token: string, readonly note: string } | null
}

/** The answer as a defect sees it (a FastifyReply is one). */
export interface Answer {
  readonly statusCode: number
  code (status: number): unknown
  getHeader (name: string): unknown
  header (name: string, value: string): unknown
  removeHeader (name: string): unknown
}

/** What a defect needs of the service's settings. */
export interface DefectContext {
  /** The Authorization header that earns a token. */
  readonly credentials: string
  readonly noteMaxLength: number
}

/** A phase's function: true when it changed this request or answer. */
export interface Phases {
  /** Before the route's own hooks, once the session is known: may change the headers. */
  request?: (asked: Asked, context: DefectContext) => boolean
  /** Once the body is parsed and the token has passed, before the body is judged: may change the body. */
  body?: (asked: Asked, context: DefectContext) => boolean
  /** The handler's payload before it is serialized: the payload to send instead, or undefined. */
  payload?: (asked: Asked, payload: unknown, context: DefectContext) => unknown
  /** The answer before it leaves: status and headers; the body to send instead, or undefined when unchanged. */
  answer?: (asked: Asked, answer: Answer, body: unknown) => { changed: boolean, body?: string }
}

/** The part of the contract a defect breaks: a report groups its mutants by it, and a survivor's hint names it. */
export type Family = 'status' | 'headers' | 'body' | 'auth' | 'sessions' | 'state' | 'negotiation'

/** How much harm the bug would do in a real API: security and lost data high, a wrong label low. */
export type Severity = 'low' | 'medium' | 'high'

export interface Defect extends Phases {
  /** Short, stable, for --only and --skip: lowercase words joined by hyphens. */
  readonly id: string
  readonly family: Family
  readonly severity: Severity
  /** The published operator or risk it is an instance of, where there is one: HTTPMutator's operator, or the OWASP API Security Top 10 (2023). */
  readonly source?: string
  /** Where it lives, as a survivor's hint names it: a method and a path, or "every answer". */
  readonly endpoint: string
  /** What a suite must send for this defect to change anything: named when no request of a run ever met it (no coverage). */
  readonly untried: string
  /** What it is, in a few words: revealed when found, and listed after the spoiler warning. */
  readonly name: string
  /** What is wrong, as a learner would see it. */
  readonly breaks: string
  /** The kind of check a suite needs to catch it: never the answer to copy. */
  readonly check: string
  /** Why a bug like it matters. */
  readonly why: string
  /** Whether a hunt may hide it: a defect no session's request can meet (the creation's) cannot be hunted. */
  readonly hunt: boolean
}

/** A defect's outcome at the answer phase. */
export type Outcome = ReturnType<NonNullable<Phases['answer']>>

export const NOTE = '/secret/note'
export const UNCHANGED: Outcome = Object.freeze({ changed: false })
const BEARER = /^bearer +(\S+) *$/i

export function header (asked: Asked, name: string): string | undefined {
  const value = asked.headers[name]
  return typeof value === 'string' ? value : undefined
}

export function noteOf (body: unknown): string | undefined {
  return typeof body === 'object' && body !== null && typeof (body as { note?: unknown }).note === 'string' ? (body as { note: string }).note : undefined
}

/** A status swapped for another on one route and method. */
export function status (method: string, resource: string, from: number, to: number) {
  return (asked: Asked, answer: Answer): Outcome => {
    if (asked.method !== method || asked.resource !== resource || answer.statusCode !== from) return UNCHANGED
    answer.code(to)
    return { changed: true }
  }
}

/**
 * The note's token as `accepts` judges it: a token the session's is not, but that `accepts` takes,
 * is replaced by the session's own (in the header that decides: Bearer, else X-AUTH-TOKEN).
 */
export function acceptToken (asked: Asked, accepts: (token: string, own: string) => boolean): boolean {
  if (asked.resource !== NOTE || asked.session === null) return false
  const own = asked.session.token
  const bearer = BEARER.exec(header(asked, 'authorization') ?? '')?.[1]
  if (bearer !== undefined) {
    if (bearer === own || !accepts(bearer, own)) return false
    asked.headers.authorization = `Bearer ${own}`
    return true
  }
  const token = header(asked, 'x-auth-token')
  if (token === undefined || token === own || !accepts(token, own)) return false
  asked.headers['x-auth-token'] = own
  return true
}

/** Whether the request to the note carries its session's token where it decides (Bearer, else X-AUTH-TOKEN): only then is its body read. */
export function withOwnToken (asked: Asked): boolean {
  const token = BEARER.exec(header(asked, 'authorization') ?? '')?.[1] ?? header(asked, 'x-auth-token')
  return asked.session !== null && token === asked.session.token
}

/** Whether the answer's Content-Type is JSON. */
export function isJson (answer: Answer): boolean {
  const type = answer.getHeader('content-type')
  return typeof type === 'string' && type.startsWith('application/json')
}

/**
 * A JSON answer's body changed by `change` (which returns the new value, or undefined for none), on
 * `method resource` (either may be '*') with status `statusCode` (or any error status for 'error').
 */
export function rewriteJson (method: string, resource: string, statusCode: number | 'error', change: (body: unknown, asked: Asked) => unknown) {
  return (asked: Asked, answer: Answer, body: unknown): Outcome => {
    const status = statusCode === 'error' ? answer.statusCode >= 400 : answer.statusCode === statusCode
    if ((method !== '*' && asked.method !== method) || (resource !== '*' && asked.resource !== resource) || !status || !isJson(answer) || typeof body !== 'string' || body === '') return UNCHANGED
    const changed = change(JSON.parse(body), asked)
    return changed === undefined ? UNCHANGED : { changed: true, body: JSON.stringify(changed) }
  }
}
