// The session a request is about: `request.session` is the one X-CHALLENGER names (or null), looked
// up once per request by the pipeline's session step (`fastify.sessionStep`, plugins/pipeline.ts),
// on the API's routes and the 404 only; `request.pass(bit)` and `request.writeNote(note)` ask for
// changes to it, which the pipeline's finish writes with the request's journal entry. The store may
// answer at once (the memory store) or with a promise (Redis): only the steps here wait for one.
// Single-player mode lives here and nowhere else: its one session answers for every request,
// whatever X-CHALLENGER says, is the only one a page shows or a restore may name
// (`fastify.sessionGuidFor`), and is made again should it ever be missing.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { bitFor, unreachableChallenges, type Challenge, type Trigger } from '../src/domain/challenges/catalogue.js'
import { SINGLE_PLAYER_GUID } from '../src/domain/config/options.js'
import { GUID_LENGTH, TOO_LONG_CHALLENGER } from '../src/domain/http/common-headers.js'
import { newToken } from '../src/domain/sessions/ids.js'
import { presentedToken } from '../src/domain/sessions/secrets.js'
import { isPending, type Maybe, type Session, type SessionChange } from '../src/domain/sessions/store.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route works without its session: a store that cannot be reached is no error there. */
    sessionOptional?: boolean
    /** An operator's probe (routes/health.ts; 'refused': its 405s): no session, no journal, no metrics. */
    probe?: 'live' | 'ready' | 'refused'
  }
  interface FastifyInstance {
    /** The session a request naming `guid` is about: `guid` (null for none), or in single-player mode the one session. */
    sessionGuidFor (guid: string | null | undefined): string | null
    /** The live session `guid` names, in any case; in single-player mode the one session. A value, or a promise of one. */
    findSession (guid: string | undefined): Maybe<Session | undefined>
    /** The pipeline's session step: `request.session` found, then `then(request)` (the defects), then the next step. */
    sessionStep (then: (request: FastifyRequest) => void): onRequestHookHandler
    /**
     * The session step of a note request where the store judges and keeps it in one step
     * (`store.judgeAndRecord`: with Redis, one round trip instead of two): a request with a token,
     * naming a session known to have no defects, is not looked up; its session is taken as the token
     * says (`fastify.provisional`), and the finish's one store call judges it (plugins/journal.ts).
     * Any other request: sessionStep's. Undefined where the store has no such step (in memory, a
     * lookup costs no round trip) or in single-player mode.
     */
    deferredSessionStep (then: (request: FastifyRequest) => void): onRequestHookHandler | undefined
    /** Whether `session` is one deferredSessionStep took as the token says: the request's token, no note, progress 0. */
    provisional (session: Session): boolean
    /** The pipeline's step for a route with a session in its URL (/challenger/{guid}…): `request.sessionInUrl`. */
    sessionInUrlStep: onRequestHookHandler
    /** The progress bit of the challenge `trigger` passes, asked for when a route is registered (unreachableChallenges notes it). */
    bitFor (trigger: Trigger): number
    /** The challenges whose trigger no route of this app has asked a bit for so far. */
    unreachableChallenges (): Challenge[]
  }
  interface FastifyRequest {
    /** The session X-CHALLENGER names; null when the header is absent or names no live session. */
    session: Session | null
    /** On a route with a session in its URL (/challenger/{guid}): that session, or null. */
    sessionInUrl: Session | null
    /** The progress bits this request has passed so far. */
    passedBits: number
    /** What this request changes in its session: written by the pipeline's finish, with its journal entry. */
    change: SessionChange | null
    /** Passes the challenge of `bit` (from fastify.bitFor) on this request's session, unless it was passed already. */
    pass (bit: number): void
    /** Makes `note` (already truncated) the session's note. */
    writeNote (note: string): void
  }
}

/** A session taken as a note request's token says (deferredSessionStep): the store judges it in the finish. */
class Provisional implements Session {
  readonly note = ''
  readonly progress = 0
  constructor (readonly guid: string, readonly token: string) {}
}

/** What the session step keeps on an API request (the API's and the 404's requests carry them: plugins/pipeline.ts). */
export const SESSION_FIELDS = { session: null, sessionInUrl: null, passedBits: 0, change: null }

export interface SessionOptions {
  mode: 'multi' | 'single'
}

async function session (fastify: FastifyInstance, options: SessionOptions): Promise<void> {
  const store = fastify.sessions
  const single = options.mode === 'single'
  fastify.decorate('sessionGuidFor', single ? () => SINGLE_PLAYER_GUID : (guid: string | null | undefined) => guid === undefined || guid === '' ? null : guid)

  // Made if no instance has made it yet: ifAbsent, so that instances starting together agree on one token.
  const singlePlayer = async (): Promise<Session | undefined> => {
    await store.restore({ guid: SINGLE_PLAYER_GUID, token: newToken(), note: '', progress: 0 }, { pinned: true, ifAbsent: true })
    return await store.get(SINGLE_PLAYER_GUID)
  }
  // A store that is away at start-up is no reason not to start: the session is made on first use.
  if (single) await singlePlayer().catch((error: unknown) => { fastify.log.warn({ err: error }, 'the single-player session waits for the store') })

  fastify.decorate('findSession', function (guid: string | undefined): Maybe<Session | undefined> {
    if (!single) {
      // Session ids are issued in lowercase; the same UUID in capitals names the same session.
      return store.get((guid as string).toLowerCase())
    }
    const found = store.get(SINGLE_PLAYER_GUID)
    return isPending(found) ? found.then(async one => one ?? await singlePlayer()) : found ?? singlePlayer()
  })

  const emitted = new Set<string>()
  fastify.decorate('bitFor', function (trigger: Trigger): number {
    const bit = bitFor(trigger)
    emitted.add(trigger)
    return bit
  })
  fastify.decorate('unreachableChallenges', () => unreachableChallenges(emitted))

  // Methods, on the requests' prototype: no request pays for them (their fields are SESSION_FIELDS).
  fastify.decorateRequest('pass', function (this: FastifyRequest, bit: number): void {
    if (bit === 0 || this.session === null || ((this.session.progress | this.passedBits) & bit) !== 0) return
    this.passedBits |= bit
    this.change = { ...this.change, passed: (this.change?.passed ?? 0) | bit }
  })
  fastify.decorateRequest('writeNote', function (this: FastifyRequest, note: string): void {
    this.change = { ...this.change, note }
  })

  /** While the store is away (503), the heartbeat and an unknown path answer without the session. */
  const unless = (request: FastifyRequest, error: unknown): unknown => {
    const optional = request.is404 || request.routeOptions.config.sessionOptional === true
    return (error as { statusCode?: number }).statusCode === 503 && optional ? undefined : error
  }

  fastify.decorate('sessionStep', function (then: (request: FastifyRequest) => void): onRequestHookHandler {
    // Challenge 47 is passed here, on every route of the API, as the reference passes it on every path of its API.
    const tooLongBit = fastify.bitFor('GET /heartbeat challenger-too-long')
    /** The 431 of an over-long X-CHALLENGER: as the reference, its first 36 characters name the session it tracks. */
    const refuseTooLong = (request: FastifyRequest, reply: FastifyReply, value: string): void => {
      const answer = (session: Session | undefined): void => {
        if (session !== undefined) {
          request.session = session
          reply.header('x-challenger', session.guid)
          // HEAD passes nothing, here as everywhere.
          if (request.method !== 'HEAD') request.pass(tooLongBit)
        }
        reply.fail(431, TOO_LONG_CHALLENGER)
      }
      let found: Maybe<Session | undefined>
      try {
        found = fastify.findSession(value.slice(0, GUID_LENGTH))
      } catch {
        found = undefined
      }
      // A store that fails costs the learner the challenge, never the 431.
      if (isPending(found)) found.then(answer, () => { answer(undefined) })
      else answer(found)
    }
    return function lookUpSession (request, reply, done) {
      const tooLong = request.tooLongChallenger
      if (tooLong !== null) return refuseTooLong(request, reply, tooLong)
      const guid = request.headers['x-challenger'] as string | undefined
      if (!single && (guid === undefined || guid === '')) {
        then(request)
        return done()
      }
      let found: Maybe<Session | undefined>
      try {
        found = fastify.findSession(guid)
      } catch (error) {
        // A host's store may throw where ours reject.
        found = Promise.reject(error)
      }
      if (!isPending(found)) {
        request.session = found ?? null
        then(request)
        return done()
      }
      found.then(session => {
        request.session = session ?? null
        then(request)
        done()
      }, (error: unknown) => {
        const failure = unless(request, error)
        if (failure === undefined) then(request)
        done(failure as Error | undefined)
      })
    }
  })

  fastify.decorate('provisional', (session: Session) => session instanceof Provisional)
  fastify.decorate('deferredSessionStep', function (then: (request: FastifyRequest) => void): onRequestHookHandler | undefined {
    if (single || store.plain === undefined || store.judgeAndRecord === undefined) return undefined
    const plain = store.plain.bind(store)
    const lookUp = fastify.sessionStep(then)
    return function deferSession (request, reply, done) {
      const named = request.headers['x-challenger']
      // A store that cannot be reached answers 503 here, before anything else, as for any request.
      const token = typeof named === 'string' && request.tooLongChallenger === null && store.available()
        ? presentedToken(request.headers.authorization, request.headers['x-auth-token'])
        : undefined
      const guid = token === undefined ? undefined : (named as string).toLowerCase()
      if (guid === undefined || !plain(guid)) return lookUp.call(this, request, reply, done)
      request.session = new Provisional(guid, (token as [string, unknown])[0])
      then(request)
      done()
    }
  })

  // Every request that names a session in the URL counts as activity, whatever its method or fate.
  fastify.decorate('sessionInUrlStep', function lookUpSessionInUrl (request: FastifyRequest, _reply: unknown, done: (error?: Error) => void) {
    const guid = (request.params as { guid: string }).guid.toLowerCase()
    // The session of X-CHALLENGER, when it is this one, was looked up already: once is enough.
    if (request.session?.guid === guid) {
      request.sessionInUrl = request.session
      return done()
    }
    let found: Maybe<Session | undefined>
    try {
      found = store.get(guid)
    } catch (error) {
      found = Promise.reject(error)
    }
    if (!isPending(found)) {
      request.sessionInUrl = found ?? null
      return done()
    }
    found.then(session => {
      request.sessionInUrl = session ?? null
      done()
    }, done)
  } as onRequestHookHandler)
}

export default fp(session, {
  name: 'session',
  fastify: '5.x',
  dependencies: ['challenger-registry', 'errors', 'headers']
})
