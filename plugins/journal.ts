// The journal, and the session's changes: `fastify.commitFor(instance, route)` makes, once per API
// route and for the 404, the part of the pipeline's finish (plugins/pipeline.ts) that writes what
// the request changed in its session (request.pass, request.writeNote) and records the request in
// that session's journal, with what it passed and, for a near miss, which challenge it missed and
// why (src/domain/journal/journal.ts, and the catalogue's near misses). The two are asked of the
// store together (with Redis, sent in one write), before the answer leaves, so that a learner who
// reads the journal next, from any instance, finds the request there. Recorded: each request about
// a live session (X-CHALLENGER's, or the one in the URL of /challenger/{guid}…). A request without X-CHALLENGER that named
// a live session in a header near it (X-CHALLENGE: plugins/headers.ts) is recorded there, with a hint
// that says so. Never recorded: the token's value,
// credentials, bodies, the journal's own reads (config.journal false) and requests a route leaves
// out (request.journaled false: the challenges page's refresh).
import { METHODS } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { BEARER, NAME_A_SESSION } from '../src/domain/challenges/messages.js'
import { MISSPELT_SESSION_HINT, nearMiss, nearMissesOf, nearMissMask, routeBase, routeResource } from '../src/domain/challenges/catalogue.js'
import { authorizationOf, type RequestFacts } from '../src/domain/challenges/near-miss-rules.js'
import { MAX_CHALLENGER_LENGTH } from '../src/domain/http/common-headers.js'
import { entryAround, keptText, knownText, sharedText, type JournalEntry } from '../src/domain/journal/journal.js'
import { bearerToken } from '../src/domain/sessions/secrets.js'
import { isPending, type Maybe, type NoteWritten, type Session } from '../src/domain/sessions/store.js'
import { truncate } from '../src/domain/sessions/truncate.js'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The finish's store call for `route` of `instance` (null: the 404): it writes the request's
     * changes and its journal entry, and resolves with the payload to send instead, when a note's
     * session was gone (401); undefined when it had nothing to wait for.
     */
    commitFor (instance: FastifyInstance, route: RouteOptions | null): (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> | undefined
  }
  interface FastifyContextConfig {
    /** false: requests to this route are not recorded (the journal's own reads). */
    journal?: boolean
  }
  interface FastifyRequest {
    /** false: this request is left out of the journal (the challenges page's own refresh). */
    journaled: boolean
  }
}

/** What the journal reads on an API request beyond the other steps' fields (the API's and the 404's requests carry it: plugins/pipeline.ts). */
export const JOURNAL_FIELDS = { journaled: true }

export interface JournalOptions {
  /** Entries kept per session; 0 turns the journal off. */
  journalSize: number
  /** A note longer than this is stored cut: its entry's body is a long-note. */
  noteMaxLength: number
}

/** The methods an X-HTTP-Method-Override is kept as (any other is "other"): a few dozen, so entries share them. */
const OVERRIDES = new Set(METHODS)

/** X-HTTP-Method-Override as an entry keeps it: the method it names, or other. */
function overrideOf (header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined
  const method = header.trim().toUpperCase()
  return OVERRIDES.has(method) ? method : 'other'
}

/** What a body was, by what the route made of it; undefined when none came. */
function bodyOf (request: FastifyRequest, status: number, noteMaxLength: number): JournalEntry['body'] {
  const length = request.headers['content-length']
  if (request.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return undefined
  if (status === 413) return 'too-large'
  // (Neither field is on a route that takes no body: acceptBodies, plugins/bodies.ts.)
  const error = request.bodyError ?? null
  if (error !== null) return error.statusCode === 415 ? 'unsupported' : 'malformed'
  // An XML body the verdict never read (refused before it): the schema judged only a stand-in.
  if (typeof request.xmlText === 'string') return 'ignored'
  if (request.validationError !== undefined && request.validationError !== null) return 'refused'
  const body = request.body as { note?: unknown } | null | undefined
  if (body === undefined) return 'ignored'
  const note = body?.note
  if (typeof note === 'string') return truncate(note, noteMaxLength) === note ? 'note' : 'long-note'
  return status === 400 ? 'refused' : 'other'
}

/**
 * The media type of the request's Content-Type, without parameters, in lowercase; null for none. On a
 * route that takes a body, as Fastify parsed it for its body parser (not parsed twice); elsewhere, and
 * for one that is no media type, as sent (Fastify's parse of a stranger's unknown types, for a 404,
 * took the RSS of 8,000 such journals from 1,750 to 3,198 bytes a session: `RSS_KIND=hostile node
 * dist/bench/session-rss.js`).
 */
function mediaType (request: FastifyRequest, parsed: boolean): string | null {
  const type = parsed ? request.mediaType : undefined
  if (type !== undefined) return keptText(type)
  const sent = request.headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase() ?? ''
  return sent === '' ? null : keptText(sent)
}

/** What the journal knows of a route, worked out when it is registered. */
interface RouteFacts {
  /** The route's URL as registered (prefix included), or null for the 404. */
  url: string | null
  /** The URL without the service's prefix and the /api base, for the catalogue's near misses ('' for the 404). */
  resource: string
  /** The API base the route is under ('' or '/api'): the paths its hints name are under it. */
  base: string
  /** The progress bits of the challenges the route's requests can come near (0: none). */
  missable: number
  takesToken: boolean
  /** Whether its requests are recorded (config.journal). */
  recorded: boolean
  /** Whether it takes a body (Fastify parses its Content-Type). */
  takesBody: boolean
}

async function journal (fastify: FastifyInstance, options: JournalOptions): Promise<void> {
  const store = fastify.sessions
  const prefix = fastify.prefix
  const keeps = options.journalSize > 0

  /** What the journal keeps of the request. */
  const entryOf = (request: FastifyRequest, reply: FastifyReply, session: Session, route: RouteFacts, misspelt: boolean): JournalEntry => {
    const headers = request.headers
    const url = request.url
    const query = url.indexOf('?')
    const path = query === -1 ? url : url.slice(0, query)
    const contentType = mediaType(request, route.takesBody)
    // The token is judged on the session X-CHALLENGER names, the one a token route guards.
    const token = route.takesToken && request.session !== null ? fastify.judgeToken(request) : undefined
    const tokenSource = token === undefined ? undefined : request.tokenSource ?? undefined
    const passed = request.passedBits
    const status = reply.statusCode
    const entry: JournalEntry = {
      at: Date.now(),
      method: request.method,
      path: path === route.url ? route.url : keptText(path),
      status,
      contentType,
      passed,
      hint: -1,
      // A 404's "did you mean …?" (plugins/errors.ts).
      suggestion: route.url === null ? request.nearPath : null
    }
    if (token !== undefined) entry.token = token
    if (tokenSource !== undefined) entry.tokenSource = tokenSource
    // A request that passed nothing, to a path with challenges not all passed: did it come close to one?
    if (misspelt) entry.hint = MISSPELT_SESSION_HINT
    else if (passed === 0 && (session.progress & route.missable) !== route.missable) entry.hint = nearMiss(route.resource, missFacts(request, entry, route), session.progress)
    if (request.defectHit !== null) entry.defect = request.defectHit
    // What a replay needs (src/domain/journal/replay.ts): kinds, never a value.
    if (query !== -1 && query < url.length - 1) entry.query = keptText(url.slice(query + 1))
    const format = request.format
    if (format !== 'json') entry.accept = format === null ? 'other' : request.xmlType as 'application/xml' | 'text/xml'
    const override = overrideOf(headers['x-http-method-override'])
    if (override !== undefined) entry.override = override
    const authorization = authorizationKind(headers.authorization)
    if (authorization !== undefined) entry.authorization = authorization
    const body = bodyOf(request, status, options.noteMaxLength)
    if (body !== undefined) entry.body = body
    const named = headers['x-challenger']
    if (typeof named !== 'string' || named.toLowerCase() !== session.guid) entry.challengerHeader = false
    return entry
  }

  /** What the near misses' rules see of a request (src/domain/challenges/near-miss-rules.ts), its entry made. */
  const missFacts = (request: FastifyRequest, entry: JournalEntry, route: RouteFacts): RequestFacts => {
    const headers = request.headers
    return {
      method: request.method,
      status: entry.status,
      token: entry.token,
      tokenSource: entry.tokenSource,
      contentType: entry.contentType,
      override: typeof headers['x-http-method-override'] === 'string' ? headers['x-http-method-override'].trim().toUpperCase() : null,
      authorization: authorizationOf(headers.authorization),
      namedSession: headers['x-challenger'] !== undefined,
      base: route.base
    }
  }

  /** The kind of an Authorization header: Basic with this server's credentials or not, Bearer, a bare token, other. */
  const authorizationKind = (header: string | undefined): JournalEntry['authorization'] => {
    if (header === undefined) return undefined
    if (/^basic(?: |$)/i.test(header)) return fastify.checkCredentials(header) ? 'basic' : 'basic-wrong'
    if (bearerToken(header) !== undefined) return 'bearer'
    return /^(?!bearer$)\S+$/i.test(header) ? 'token' : 'other'
  }

  /** A request without X-CHALLENGER that named a live session in a header near it: recorded there, with a hint that says so. */
  const recordMisspelt = async (request: FastifyRequest, reply: FastifyReply, route: RouteFacts): Promise<undefined> => {
    const value = request.misspeltChallenger?.value
    if (value === undefined || value === '' || value.length > MAX_CHALLENGER_LENGTH) return
    try {
      const meant = await fastify.findSession(value)
      if (meant !== undefined) await store.record(meant.guid, entryOf(request, reply, meant, route, true))
    } catch {
      // The journal is for learning: a store that fails to keep an entry (or to find one) fails nothing else.
    }
  }

  /** A note written to a session that is gone since it was looked up: the answer becomes its 401. */
  const gone = async (instance: FastifyInstance, request: FastifyRequest, reply: FastifyReply, guid: string): Promise<unknown> => {
    request.passedBits = 0
    // The note's 401, like its others (plugins/auth.ts).
    reply.header('www-authenticate', BEARER)
    return fastify.failurePayload(request, reply, 401, await instance.whyNoSession(guid, NAME_A_SESSION))
  }

  fastify.decorate('commitFor', function (instance: FastifyInstance, route: RouteOptions | null) {
    const facts: RouteFacts = route === null
      ? { url: null, resource: '', base: '', missable: 0, takesToken: false, recorded: true, takesBody: false }
      : factsOf(route)
    const refusals = route?.config?.token
    const judged = refusals === undefined ? undefined : judgedBy(instance, facts, fastify.wrongTokenFor(refusals))
    return function commit (request: FastifyRequest, reply: FastifyReply): Promise<unknown> | undefined {
      const session = request.session ?? request.sessionInUrl
      // A note request whose session was taken as its token says (plugins/session.ts's deferred step).
      if (judged !== undefined && session !== null && fastify.provisional(session)) return judged(request, reply, session, commit)
      const recorded = keeps && facts.recorded && request.journaled
      if (session === null) return recorded && request.misspeltChallenger !== null ? recordMisspelt(request, reply, facts) : undefined
      const change = request.change
      request.change = null
      const entry = recorded ? entryOf(request, reply, session, facts, false) : null
      if (change === null) {
        if (entry === null) return undefined
        // The journal is for learning: a store that fails to keep an entry fails nothing else.
        try {
          const kept = store.record(session.guid, entry)
          return isPending(kept) ? kept.then(() => undefined, () => undefined) : undefined
        } catch {
          return undefined
        }
      }
      // The change and the entry in one store call (with Redis, one script).
      let written: Maybe<boolean>
      try {
        written = entry === null ? store.update(session.guid, change) : store.record(session.guid, entry, change)
      } catch (error) {
        written = Promise.reject(error)
      }
      if (!isPending(written)) return written || change.note === undefined ? undefined : gone(instance, request, reply, session.guid)
      return written.then(done => done || change.note === undefined ? undefined : gone(instance, request, reply, session.guid), (error: unknown) => {
        // The change was not written: the answer is the store's failure, and it passed nothing.
        request.passedBits = 0
        throw error
      })
    }
  })

  /**
   * The finish of a note request whose session was taken as its token says (`fastify.provisional`):
   * the lookup, the token, the change and the entry in one store call (`store.judgeAndRecord`), which
   * works out the entry's progress and hint from the session as entryOf would. The answer then stands,
   * or becomes what the steps would have answered had they had the session: the 401 of a session that
   * is not there, or the 403 of a token that is not its own (its challenge and entry kept as the auth
   * step's are). Answered before the token was judged (a 406, a 413), the session is looked up here.
   */
  function judgedBy (instance: FastifyInstance, route: RouteFacts, wrongToken: (request: FastifyRequest) => string) {
    return async function judged (request: FastifyRequest, reply: FastifyReply, session: Session, commit: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> | undefined): Promise<unknown> {
      if (request.tokenVerdict === null) {
        // A store that fails here fails the request (503), as it would have in the session step.
        request.session = await fastify.findSession(session.guid) ?? null
        return await commit(request, reply)
      }
      const change = request.change
      request.change = null
      const entry = keeps && route.recorded && request.journaled ? entryOf(request, reply, session, route, false) : null
      let written: NoteWritten
      try {
        written = await (store.judgeAndRecord as NonNullable<typeof store.judgeAndRecord>)(session.guid, {
          token: session.token,
          entry: entry === null ? null : entryAround(entry),
          asked: request.passedBits,
          note: change?.note,
          missable: route.missable,
          misses: entry === null ? [] : nearMissesOf(route.resource, missFacts(request, entry, route))
        })
      } catch (error) {
        // Nothing was written: the answer is the store's failure, and it passed nothing.
        request.passedBits = 0
        throw error
      }
      if (!written.found) return await gone(instance, request, reply, session.guid)
      if (written.own) {
        request.passedBits = written.passed
        return undefined
      }
      // The auth step's 403, on the session as it is (nothing was written).
      request.session = written.session
      request.passedBits = 0
      request.tokenVerdict = 'wrong'
      const payload = fastify.failurePayload(request, reply, 403, wrongToken(request))
      await commit(request, reply)
      return payload
    }
  }

  /** What the journal knows of a route, worked out when the pipeline asks. */
  function factsOf (route: RouteOptions): RouteFacts {
    const resource = routeResource(route.url, prefix)
    return {
      url: sharedText(route.url),
      resource,
      base: routeBase(route.url, prefix),
      missable: nearMissMask(resource),
      takesToken: route.config?.token !== undefined,
      recorded: route.config?.journal !== false,
      takesBody: route.schema?.body !== undefined
    }
  }

  // Every route's path is a known text: an entry's path, or a 404's suggestion, is then shared.
  fastify.addHook('onRoute', route => { knownText(route.url) })
}

export default fp(journal, {
  name: 'journal',
  fastify: '5.x',
  dependencies: ['challenger-registry', 'session', 'auth', 'errors', 'defects', 'headers']
})
