// The deliberate defects (mutants): each changes one decision of the service and nothing else, so
// that exactly one thing is wrong. A defect is data (what it breaks, the check that catches it) and
// one small function at the phase of the request where its decision is made. plugins/defects.ts
// runs them; nothing here knows Fastify, only the shapes below.
import { truncate } from '../sessions/truncate.js'

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

const NOTE = '/secret/note'
const TOKEN_DIGITS = /^[0-9a-f]{32}$/
const BEARER = /^bearer +(\S+) *$/i

function header (asked: Asked, name: string): string | undefined {
  const value = asked.headers[name]
  return typeof value === 'string' ? value : undefined
}

function noteOf (body: unknown): string | undefined {
  return typeof body === 'object' && body !== null && typeof (body as { note?: unknown }).note === 'string' ? (body as { note: string }).note : undefined
}

/** A status swapped for another on one route and method. */
function status (method: string, resource: string, from: number, to: number) {
  return (asked: Asked, answer: Answer) => {
    if (asked.method !== method || asked.resource !== resource || answer.statusCode !== from) return { changed: false }
    answer.code(to)
    return { changed: true }
  }
}

// The notes a lost write was asked to keep, by request.
const unsaved = new WeakMap<Asked, string>()

export const defects: readonly Defect[] = [
  {
    id: 'swap-401-403',
    family: 'status',
    severity: 'high',
    source: 'HTTPMutator: status code 4XX replaced by another 4XX',
    endpoint: 'GET /secret/note',
    untried: 'a GET /secret/note refused for no token and for a wrong one',
    name: '401 and 403 swapped on GET /secret/note',
    breaks: 'Reading the note without a token is answered 403, and with a wrong token 401: the two refusals are exchanged.',
    check: 'Read the note once with no token and once with a wrong one, and assert each refusal\'s exact status, not just "4xx".',
    why: '401 says "who are you?" and 403 "you may not": a client that retries its login on 401 loops, or gives up, on the wrong one.',
    hunt: true,
    answer (asked, answer) {
      if (asked.method !== 'GET' || asked.resource !== NOTE || (answer.statusCode !== 401 && answer.statusCode !== 403)) return { changed: false }
      answer.code(answer.statusCode === 401 ? 403 : 401)
      return { changed: true }
    }
  },
  {
    id: 'foreign-token',
    family: 'auth',
    severity: 'high',
    source: 'OWASP API1:2023 Broken Object Level Authorization',
    endpoint: 'GET and POST /secret/note',
    untried: 'a request to /secret/note with another session\'s token',
    name: 'Another session\'s token opens the note',
    breaks: 'Any token shaped like one (32 hex digits) reads and writes this session\'s note, another session\'s token included.',
    check: 'Make a second session, earn its token, and use it on the first session\'s note: assert it is refused, and how.',
    why: 'Broken object-level authorisation, the first of the OWASP API Security Top 10: one user reaches another\'s data.',
    hunt: true,
    request (asked) {
      if (asked.resource !== NOTE || asked.session === null) return false
      const own = asked.session.token
      const bearer = BEARER.exec(header(asked, 'authorization') ?? '')?.[1]
      if (bearer !== undefined) {
        if (bearer === own || !TOKEN_DIGITS.test(bearer)) return false
        asked.headers.authorization = `Bearer ${own}`
        return true
      }
      const token = header(asked, 'x-auth-token')
      if (token === undefined || token === own || !TOKEN_DIGITS.test(token)) return false
      asked.headers['x-auth-token'] = own
      return true
    }
  },
  {
    id: 'note-cut-at-99',
    family: 'state',
    severity: 'medium',
    endpoint: 'POST /secret/note',
    untried: 'a note write at the note length limit or over it',
    name: 'The note is cut one character short',
    breaks: 'A note of 100 characters or more is kept, and answered, with 99.',
    check: 'Write a note exactly at the length limit, and one over it, and assert the length (or the text) of what comes back and what is read later.',
    why: 'Off-by-one errors live at boundaries: a test that only writes short notes never reaches one.',
    hunt: true,
    body (asked, { noteMaxLength }) {
      const note = noteOf(asked.body)
      if (asked.method !== 'POST' || asked.resource !== NOTE || note === undefined || [...note].length < noteMaxLength) return false
      asked.body = { note: truncate(note, noteMaxLength - 1) }
      return true
    }
  },
  {
    id: 'note-write-201',
    family: 'status',
    severity: 'low',
    source: 'HTTPMutator: status code 2XX replaced by another 2XX',
    endpoint: 'POST /secret/note',
    untried: 'a successful POST /secret/note',
    name: 'POST /secret/note answers 201',
    breaks: 'A note written is answered 201 Created instead of 200 OK.',
    check: 'Assert the exact status of a successful note write, not just that it is 2xx.',
    why: 'The status is part of the contract: clients and gateways branch on it, and 201 promises a new resource (and a Location) that is not there.',
    hunt: true,
    answer: status('POST', NOTE, 200, 201)
  },
  {
    id: 'no-challenger-echo',
    family: 'headers',
    severity: 'medium',
    source: 'HTTPMutator: header removed',
    endpoint: 'every answer to a request with X-CHALLENGER',
    untried: 'a request with X-CHALLENGER',
    name: 'X-CHALLENGER not echoed',
    breaks: 'Answers to a request with X-CHALLENGER no longer carry it back.',
    check: 'Assert the response headers too: that X-CHALLENGER comes back with the session id that was sent.',
    why: 'Headers are part of an API\'s contract as much as its body: a client that reads its session from the answer breaks.',
    hunt: true,
    answer (asked, answer) {
      if (answer.getHeader('x-challenger') === undefined || (asked.method === 'POST' && asked.resource === '/challenger')) return { changed: false }
      answer.removeHeader('x-challenger')
      return { changed: true }
    }
  },
  {
    id: 'bearer-loses',
    family: 'auth',
    severity: 'high',
    source: 'OWASP API2:2023 Broken Authentication',
    endpoint: 'GET and POST /secret/note',
    untried: 'a request to /secret/note with both Authorization: Bearer and X-AUTH-TOKEN, different',
    name: 'X-AUTH-TOKEN wins over Bearer',
    breaks: 'When both Authorization: Bearer and X-AUTH-TOKEN come, X-AUTH-TOKEN decides: Bearer should.',
    check: 'Send both headers with different tokens, one right and one wrong, and assert which one decided.',
    why: 'Which credential wins when two come is a security decision: the wrong precedence lets a stale or injected header decide.',
    hunt: true,
    request (asked) {
      const bearer = BEARER.exec(header(asked, 'authorization') ?? '')?.[1]
      const token = header(asked, 'x-auth-token')
      if (asked.resource !== NOTE || bearer === undefined || token === undefined || token === '' || token === bearer) return false
      delete asked.headers.authorization
      return true
    }
  },
  {
    id: 'patch-heartbeat-405',
    family: 'status',
    severity: 'low',
    source: 'HTTPMutator: status code 5XX replaced by a 4XX',
    endpoint: 'PATCH /heartbeat',
    untried: 'a PATCH /heartbeat',
    name: 'PATCH /heartbeat answers 405',
    breaks: 'PATCH /heartbeat is answered 405 Method Not Allowed instead of 500.',
    check: 'Assert the exact status of every method the heartbeat answers, PATCH included.',
    why: 'An endpoint that fails on purpose is still a contract: a suite that skips the odd methods misses what changes there.',
    hunt: true,
    answer: status('PATCH', '/heartbeat', 500, 405)
  },
  {
    id: 'override-ignored',
    family: 'negotiation',
    severity: 'medium',
    endpoint: 'POST /heartbeat',
    untried: 'a POST /heartbeat with X-HTTP-Method-Override',
    name: 'X-HTTP-Method-Override ignored',
    breaks: 'POST /heartbeat with X-HTTP-Method-Override is answered as a plain POST.',
    check: 'Send POST /heartbeat with each method override the service takes, and assert each status.',
    why: 'Method overrides let clients behind proxies use other verbs: ignoring one silently turns a DELETE or PATCH into something else.',
    hunt: true,
    request (asked) {
      if (asked.method !== 'POST' || asked.resource !== '/heartbeat' || header(asked, 'x-http-method-override') === undefined) return false
      delete asked.headers['x-http-method-override']
      return true
    }
  },
  {
    id: 'lost-write',
    family: 'state',
    severity: 'high',
    endpoint: 'POST /secret/note',
    untried: 'a note write that changes the note',
    name: 'A note write is not kept',
    breaks: 'POST /secret/note answers with the new note but keeps the old one: the next read returns the note from before the write.',
    check: 'After a write, read the note back (GET) and assert it is the one just written.',
    why: 'An answer that says "saved" is not proof: only reading back shows what was kept.',
    hunt: true,
    body (asked) {
      const note = noteOf(asked.body)
      if (asked.method !== 'POST' || asked.resource !== NOTE || note === undefined || asked.session === null || note === asked.session.note) return false
      unsaved.set(asked, note)
      asked.body = { note: asked.session.note }
      return true
    },
    payload (asked, payload, { noteMaxLength }) {
      const note = unsaved.get(asked)
      return note === undefined ? undefined : { ...(payload as object), note: truncate(note, noteMaxLength) }
    }
  },
  {
    id: 'any-password',
    family: 'auth',
    severity: 'high',
    source: 'OWASP API2:2023 Broken Authentication',
    endpoint: 'POST /secret/token',
    untried: 'a POST /secret/token with wrong Basic credentials',
    name: 'POST /secret/token takes any credentials',
    breaks: 'Any Basic credentials earn the token, wrong ones included.',
    check: 'Ask for the token with a wrong password and assert it is refused, and how.',
    why: 'A login that accepts anything is no login: negative tests matter as much as the happy path.',
    hunt: true,
    request (asked, { credentials }) {
      const authorization = header(asked, 'authorization')
      if (asked.method !== 'POST' || asked.resource !== '/secret/token' || authorization === undefined || !/^basic /i.test(authorization) || authorization === credentials) return false
      asked.headers.authorization = credentials
      return true
    }
  },
  {
    id: 'no-www-authenticate',
    family: 'headers',
    severity: 'medium',
    source: 'HTTPMutator: header removed',
    endpoint: 'POST /secret/token',
    untried: 'a refused Basic login (401)',
    name: 'WWW-Authenticate missing on 401',
    breaks: 'Wrong Basic credentials are answered 401 without a WWW-Authenticate header.',
    check: 'On a refused login, assert the challenge header (WWW-Authenticate) and its scheme, not just the status.',
    why: 'RFC 9110 requires it with every 401: clients and browsers use it to know how to log in.',
    hunt: true,
    answer (_asked, answer) {
      if (answer.statusCode !== 401 || answer.getHeader('www-authenticate') === undefined) return { changed: false }
      answer.removeHeader('www-authenticate')
      return { changed: true }
    }
  },
  {
    id: 'json-as-text',
    family: 'headers',
    severity: 'medium',
    source: 'HTTPMutator: Content-Type changed',
    endpoint: 'every JSON answer',
    untried: 'a request answered with a JSON body',
    name: 'JSON answered as text/plain',
    breaks: 'JSON bodies come with Content-Type text/plain.',
    check: 'Assert the Content-Type of answers with a body, not just the body.',
    why: 'Clients choose their parser by Content-Type: a JSON body labelled text/plain is not parsed, or is rendered unescaped.',
    hunt: true,
    answer (_asked, answer) {
      const type = answer.getHeader('content-type')
      if (typeof type !== 'string' || !type.startsWith('application/json')) return { changed: false }
      answer.header('content-type', 'text/plain; charset=utf-8')
      return { changed: true }
    }
  },
  {
    id: 'created-200',
    family: 'status',
    severity: 'low',
    source: 'HTTPMutator: status code 2XX replaced by another 2XX',
    endpoint: 'POST /challenger',
    untried: 'a POST /challenger that makes a session',
    name: 'POST /challenger answers 200',
    breaks: 'A new session is answered 200 OK instead of 201 Created.',
    check: 'Assert the exact status of creating a session, not just that it is 2xx.',
    why: 'A client that tells "created" from "already there" by the status gets it wrong.',
    hunt: false,
    answer (asked, answer) {
      if (asked.method !== 'POST' || asked.resource !== '/challenger' || answer.statusCode !== 201) return { changed: false }
      answer.code(200)
      return { changed: true }
    }
  },
  {
    id: 'xml-ignored',
    family: 'negotiation',
    severity: 'medium',
    endpoint: 'every answer with a body',
    untried: 'a request with Accept: application/xml only',
    name: 'An XML Accept answered with JSON',
    breaks: 'A request whose Accept asks for XML only is answered in JSON.',
    check: 'Ask for XML (Accept: application/xml) and assert the Content-Type and the body\'s form.',
    why: 'Content negotiation is a contract: a client that asked for XML and cannot read JSON breaks.',
    hunt: true,
    request (asked) {
      const accept = header(asked, 'accept')
      if (accept === undefined || !/(application|text)\/xml/i.test(accept) || /json|\*\/\*/i.test(accept)) return false
      asked.headers.accept = 'application/json'
      return true
    }
  },
  {
    id: 'heartbeat-200',
    family: 'status',
    severity: 'low',
    source: 'HTTPMutator: status code 2XX replaced by another 2XX',
    endpoint: 'GET /heartbeat',
    untried: 'a GET /heartbeat',
    name: 'GET /heartbeat answers 200 with a body',
    breaks: 'GET /heartbeat is answered 200 with a small JSON body instead of 204 No Content.',
    check: 'Assert the exact status of GET /heartbeat, and that its body is empty.',
    why: '204 promises no body: a client that trusts it never reads one, and one that does not may hang waiting for it.',
    hunt: true,
    answer (asked, answer) {
      if (asked.method !== 'GET' || asked.resource !== '/heartbeat' || answer.statusCode !== 204) return { changed: false }
      answer.code(200)
      answer.header('content-type', 'application/json; charset=utf-8')
      return { changed: true, body: '{"alive":true}' }
    }
  }
]

const byId = new Map(defects.map(defect => [defect.id, defect]))

/** The defect `id` names, or undefined. */
export function defectById (id: string): Defect | undefined {
  return byId.get(id)
}

/** The ids of a valid list, or why it is not one. */
export function checkDefectIds (ids: readonly string[]): string | undefined {
  const unknown = ids.filter(id => !byId.has(id))
  if (unknown.length > 0) return `unknown defect ${unknown.map(id => JSON.stringify(id)).join(', ')} (the defects are ${defects.map(d => d.id).join(', ')})`
  return undefined
}

/** The defects a hunt hides by default. */
export const HUNT_SIZE = 3

/** `count` different huntable defects, drawn with `random` (0 ≤ random() < 1). */
export function drawHunt (random: () => number = Math.random, count = HUNT_SIZE): string[] {
  const pool = defects.filter(defect => defect.hunt).map(defect => defect.id)
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[pool[i], pool[j]] = [pool[j] as string, pool[i] as string]
  }
  return pool.slice(0, count)
}
