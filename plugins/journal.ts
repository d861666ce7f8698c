// The journal: each request that names a live session (in X-CHALLENGER, or in the URL of
// /challenger/{guid}…) is recorded in that session's journal as it is answered, with what it passed
// and, for a near miss, which challenge it missed and why (src/domain/journal/journal.ts, and the
// catalogue's near misses). Recorded (in Redis: sent to Redis) before the answer leaves, so that a
// learner who reads the journal next, from any instance, finds the request there. Never recorded: the token's value,
// credentials, bodies, the journal's own reads (config.journal false) and requests a route leaves
// out (request.journaled false: the challenges page's refresh).
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { nearMiss, nearMissMask, routeResource } from '../src/domain/challenges/catalogue.js'
import type { RequestFacts, TokenVerdict } from '../src/domain/challenges/challenge-list.js'
import { keptText, knownText, sharedText, type JournalEntry } from '../src/domain/journal/journal.js'
import { presentedToken, safeEqual, type TokenSource } from '../src/domain/sessions/secrets.js'
import type { Session } from '../src/domain/sessions/store.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: requests to this route are not recorded (the journal's own reads). */
    journal?: boolean
    /** The route takes the session's token: its entries say whether one came, and was right. */
    takesToken?: boolean
  }
  interface FastifyRequest {
    /** false: this request is left out of the journal (the challenges page's own refresh). */
    journaled: boolean
  }
}

export interface JournalOptions {
  /** Entries kept per session; 0 turns the journal off. */
  journalSize: number
}

function mediaType (header: string | undefined): string | null {
  if (header === undefined) return null
  const semicolon = header.indexOf(';')
  const type = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase()
  if (type === '') return null
  // The usual types are kept as one shared string; anything else is the client's text, cut.
  return keptText(type)
}

/** Whether the request's token was the session's, for a route that takes one where tokenAuth did not judge it. */
function judgeToken (headers: FastifyRequest['headers'], session: Session): [TokenVerdict, TokenSource?] {
  const found = presentedToken(headers.authorization, headers['x-auth-token'])
  if (found === undefined) return ['missing']
  return [safeEqual(found[0], session.token) ? 'valid' : 'wrong', found[1]]
}

/** What the journal knows of a route once, when it is registered, rather than on every request. */
interface RouteFacts {
  /** The route's URL as registered (prefix included), or null for the 404. */
  url: string | null
  /** The URL without the service's prefix and the /api base, for the catalogue's near misses ('' for the 404). */
  resource: string
  /** The progress bits of the challenges the route's requests can come near (0: none, as for the 404). */
  missable: number
  takesToken: boolean
}

async function journal (fastify: FastifyInstance, options: JournalOptions): Promise<void> {
  fastify.decorateRequest('journaled', true)
  const store = fastify.sessions
  if (options.journalSize === 0 || store.record === undefined) return
  const record = store.record.bind(store)
  const prefix = fastify.prefix

  // A store keeps nothing of an entry once record returns (SessionStore.record): one entry, and
  // one set of near-miss facts, serve every request.
  const scratch: JournalEntry = { at: 0, method: '', path: '', status: 0, token: undefined, tokenSource: undefined, contentType: null, passed: 0, hint: -1, suggestion: null }
  const facts: RequestFacts = { method: '', status: 0, token: undefined, tokenSource: undefined, contentType: null, override: null, authorization: 'none', namedSession: false }

  /** Fills `entry` with what the journal keeps of the request, and returns it. */
  const entryOf = (request: FastifyRequest, reply: FastifyReply, session: Session, route: RouteFacts, entry: JournalEntry): JournalEntry => {
    // Fastify's request.headers is a getter: read once.
    const headers = request.headers
    const url = request.url
    const query = url.indexOf('?')
    const path = query === -1 ? url : url.slice(0, query)
    const contentType = mediaType(headers['content-type'])
    let token: TokenVerdict | undefined
    let tokenSource: TokenSource | undefined
    if (route.takesToken) {
      if (request.tokenVerdict === null) [token, tokenSource] = judgeToken(headers, session)
      else {
        token = request.tokenVerdict
        tokenSource = request.tokenSource ?? undefined
      }
    }
    const passed = request.passedBits
    const status = reply.statusCode
    let hint = -1
    // A request that passed nothing, to a path with challenges not all passed: did it come close to one?
    if (passed === 0 && (session.progress & route.missable) !== route.missable) {
      const override = headers['x-http-method-override']
      const authorization = headers.authorization
      facts.method = request.method
      facts.status = status
      facts.token = token
      facts.tokenSource = tokenSource
      facts.contentType = contentType
      facts.override = typeof override === 'string' ? override.trim().toUpperCase() : null
      facts.authorization = authorization === undefined ? 'none' : /^basic /i.test(authorization) ? 'basic' : 'other'
      facts.namedSession = headers['x-challenger'] !== undefined
      hint = nearMiss(route.resource, facts, session.progress)
    }
    entry.at = Date.now()
    entry.method = request.method
    // The route's own path string when it is the whole path: no string per entry.
    entry.path = path === route.url ? route.url : keptText(path)
    entry.status = status
    entry.token = token
    entry.tokenSource = tokenSource
    entry.contentType = contentType
    entry.passed = passed
    entry.hint = hint
    // A 404's "did you mean …?" (plugins/errors.ts), worked out only for 404s.
    entry.suggestion = request.unmatched ? request.nearPath : null
    return entry
  }

  /** Records the request in `session`'s journal, then calls `next`: at once when the store answers at once. */
  const write = (request: FastifyRequest, reply: FastifyReply, session: Session, route: RouteFacts, next: () => void): void => {
    const recording = record(session.guid, entryOf(request, reply, session, route, scratch))
    // The journal is for learning: a store that fails to keep an entry fails nothing else.
    if (recording instanceof Promise) recording.then(next, next)
    else next()
  }

  // Each route gets its own recorder, made when the route is: what it needs to know of the route is
  // worked out once, not per request (Fastify's request.routeOptions builds an object each time).
  const recorder = (route: RouteFacts): onSendHookHandler => function recordRequest (request, reply, payload, done) {
    if (!request.journaled) {
      done(null, payload)
      return
    }
    const session = request.practiceSession ?? request.named
    if (session !== null) {
      const recording = record(session.guid, entryOf(request, reply, session, route, scratch))
      if (recording instanceof Promise) recording.then(() => { done(null, payload) }, () => { done(null, payload) })
      else done(null, payload)
      return
    }
    // An unknown path is answered before the session is looked up: a learner's typo is worth a line.
    // So is a note write answered (406, 413) before its session was (see lookUpWithNote).
    const guid = request.headers['x-challenger'] as string | undefined
    if ((route.url !== null && !request.sessionDeferred) || fastify.sessionGuidFor(guid) === null) {
      done(null, payload)
      return
    }
    const next = (): void => { done(null, payload) }
    // (Not on a hot path: a promise whatever the store.)
    Promise.resolve().then(() => fastify.findSession(guid)).then(found => {
      if (found === undefined) next()
      else write(request, reply, found, route, next)
    }, next)
  }

  fastify.addHook('onRoute', route => {
    // Every route's path is a known text: an entry's path, or a 404's suggestion, is then a code.
    knownText(route.url)
    // The journal's own reads are not recorded.
    if (route.config?.journal === false) return
    const resource = routeResource(route.url, prefix)
    const facts: RouteFacts = { url: sharedText(route.url), resource, missable: nearMissMask(resource), takesToken: route.config?.takesToken === true }
    route.onSend = [...[route.onSend ?? []].flat(), recorder(facts)]
  })
  // Unknown paths (404) have no route: one hook for them, which lets every routed request by at once.
  const notFound = recorder({ url: null, resource: '', missable: 0, takesToken: false })
  fastify.addHook('onSend', function recordNotFound (request, reply, payload, done) {
    if (request.is404) notFound.call(this, request, reply, payload, done)
    else done(null, payload)
  })
}
export default fp(journal, {
  name: 'journal',
  fastify: '5.x',
  dependencies: ['challenger-registry', 'session', 'auth', 'errors']
})
