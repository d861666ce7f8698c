// What a run's suite sent, request by request, in the order the service got them: kept by grade's
// own service (never the product's: the listener and the hook are added to the instance grade made,
// for that run alone). A session's journal would not do: it keeps 100 entries at most, and nothing
// of a request that names no session (GET /heartbeat without X-CHALLENGER).
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/** One request and its answer, described by kinds (never a token, credentials or a body). */
export interface SentRequest {
  readonly method: string
  /** The path as sent (at most PATH_CHARS characters, without the query). */
  readonly path: string
  /** The route it reached, as registered (/secret/note, /challenger/:guid), or null when none (404). */
  route: string | null
  /** The status answered; 0 when no answer was finished. */
  status: number
  /** The headers that decide the service's answer, as kinds: "a wrong token", "an application/xml body". */
  with: string[]
  /** The deliberate defect that changed this request or its answer (request.defectHit), or null. */
  defect: string | null
}

const PATH_CHARS = 120
const VALUE_CHARS = 40
const BEARER = /^bearer +(\S+) *$/i

/** The headers that matter, as the request arrived (a defect may change request.headers after). */
interface Sent {
  readonly authorization: string | undefined
  readonly xAuthToken: string | undefined
  readonly challenger: string | undefined
  readonly contentType: string | undefined
  readonly hasBody: boolean
  readonly accept: string | undefined
  readonly override: string | undefined
}

// Node joins a repeated X- header into one text: an array is never one of these.
const one = (value: string | string[] | undefined): string | undefined => value as string | undefined
const shown = (value: string): string => value.length > VALUE_CHARS ? `${value.slice(0, VALUE_CHARS)}…` : value

function sentOf (request: IncomingMessage): Sent {
  const headers = request.headers
  const length = headers['content-length']
  return {
    authorization: headers.authorization,
    xAuthToken: one(headers['x-auth-token']),
    challenger: one(headers['x-challenger']),
    contentType: headers['content-type'],
    hasBody: headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0'),
    accept: headers.accept,
    override: one(headers['x-http-method-override'])
  }
}

/** What of `sent` decided the answer of `request`, in words. */
function describe (sent: Sent, request: FastifyRequest, route: string | null): string[] {
  const said: string[] = []
  const session = request.session
  // X-CHALLENGER matters where a session is needed (the heartbeat and a new session need none).
  if (route?.includes('/secret/') === true) {
    if (sent.challenger === undefined) said.push('without X-CHALLENGER')
    else if (session === null) said.push('with an X-CHALLENGER that names no live session')
  }
  if (route?.endsWith('/secret/note') === true) {
    const bearer = BEARER.exec(sent.authorization ?? '')?.[1]
    const token = bearer ?? sent.xAuthToken
    const how = bearer === undefined ? 'X-AUTH-TOKEN' : 'Authorization: Bearer'
    if (token === undefined) said.push('with no token')
    else if (session !== null && token === session.token) said.push(`with the session's token (${how})`)
    else said.push(`with a wrong token (${how})`)
  }
  if (route?.endsWith('/secret/token') === true) {
    if (sent.authorization === undefined) said.push('with no credentials')
    else if (/^basic\b/i.test(sent.authorization)) said.push(request.server.checkCredentials(sent.authorization) ? 'with the right Basic credentials' : 'with wrong Basic credentials')
    else said.push('with an Authorization that is not Basic')
  }
  if (sent.override !== undefined) said.push(`with X-HTTP-Method-Override: ${shown(sent.override)}`)
  if (sent.hasBody) said.push(sent.contentType === undefined ? 'with a body and no Content-Type' : `with a body of Content-Type ${shown((sent.contentType.split(';', 1)[0] as string).trim())}`)
  if (sent.accept !== undefined && !/^(\*\/\*|application\/json)$/i.test(sent.accept.trim())) said.push(`asking for ${shown(sent.accept)}`)
  return said
}

/**
 * Keeps every request `app` gets from now on, in the order they arrive, each completed when it is
 * answered. Call before `app` is ready: the hook must reach the service's routes.
 */
export function recordRequests (app: FastifyInstance): SentRequest[] {
  const kept: SentRequest[] = []
  const arrived = new WeakMap<IncomingMessage, [SentRequest, Sent]>()
  // Before Fastify's own listener: its hooks (a defect's request phase among them) may change the headers at once.
  app.server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    // A server's request always has its URL and method.
    const url = request.url as string
    const query = url.indexOf('?')
    const path = query === -1 ? url : url.slice(0, query)
    const entry: SentRequest = { method: request.method as string, path: path.slice(0, PATH_CHARS), route: null, status: 0, with: [], defect: null }
    kept.push(entry)
    arrived.set(request, [entry, sentOf(request)])
    response.once('finish', () => { entry.status = response.statusCode })
  })
  app.addHook('onResponse', async (request) => {
    const found = arrived.get(request.raw)
    if (found === undefined) return
    const [entry, sent] = found
    entry.route = request.is404 ? null : request.routeOptions.url as string
    entry.defect = request.defectHit
    entry.with = describe(sent, request, entry.route)
  })
  return kept
}

const ORDINALS = ['th', 'st', 'nd', 'rd']

/** 1st, 2nd, 3rd, 4th, 11th, 21st… */
export function ordinal (n: number): string {
  const tens = n % 100
  return `${n}${(tens > 10 && tens < 14) ? 'th' : ORDINALS[n % 10] ?? 'th'}`
}

/** "GET /secret/note with a wrong token (X-AUTH-TOKEN), asking for application/xml". */
export function requestText (request: SentRequest): string {
  return request.with.length === 0 ? `${request.method} ${request.path}` : `${request.method} ${request.path} ${request.with.join(', ')}`
}
