// The session decorator: `request.practiceSession` is the session the request names (or null), looked
// up once per request, and `request.pass(bit)` records progress on it. Single-player mode lives
// here and nowhere else: its one session answers for every request, whatever X-CHALLENGER says,
// is the only one a page shows or a restore may name (`fastify.sessionGuidFor`), and is made again
// should it ever be missing.
import type { FastifyInstance, FastifyRequest, preHandlerHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { bitFor, unreachableChallenges, type Challenge, type Trigger } from '../src/domain/challenges/catalogue.js'
import { SINGLE_PLAYER_GUID } from '../src/domain/config/options.js'
import { newToken } from '../src/domain/sessions/ids.js'
import { then, type Session, type Maybe } from '../src/domain/sessions/store.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route works without its session: a store that cannot be reached is no error there. */
    sessionOptional?: boolean
    /**
     * The route's POST writes the session's note: its session is looked up by the route's
     * `lookUpWithNote` preHandler, together with the write (SessionStore.writeNote: one round trip
     * to Redis), rather than at onRequest.
     */
    sessionWithNote?: boolean
  }
  interface FastifyInstance {
    /**
     * The session a request that names `guid` is about: `guid` itself (null for none) in
     * multi-player mode, the one session in single-player mode, whatever `guid` is.
     */
    sessionGuidFor (guid: string | null | undefined): string | null
    /**
     * The live session `guid` names (any case), or undefined; in single-player mode the one
     * session, whatever `guid` is (undefined too), made if it is missing. In multi-player mode
     * `guid` is a session id as sent: check it with sessionGuidFor first. With `write`, the note it
     * describes is stored in the same step when its token is the session's (SessionStore.writeNote). At once
     * with a store that answers at once.
     */
    findSession (guid: string | undefined, write?: NoteWrite): Maybe<Session | undefined>
    /**
     * The progress bit (for `request.pass`) of the challenge that `trigger` passes, asked for when
     * a route is registered; a trigger no challenge has throws. The app notes the triggers asked
     * for, so that it can tell which challenges no route of its can pass.
     */
    bitFor (trigger: Trigger): number
    /** The challenges whose trigger no route of this app has asked a bit for so far. */
    unreachableChallenges (): Challenge[]
    /**
     * The preHandler of a route with `config.sessionWithNote`, to run before its token is judged:
     * the session of a request whose lookup was left to it (`request.sessionDeferred`) is looked up
     * here, and in the same step the note `write` describes is stored when the token is the
     * session's. So a request that gets past the token check has had its note stored. `write` gives
     * undefined for a request that writes nothing whatever its token (no token, or a body that
     * cannot be used).
     */
    lookUpWithNote (write: (request: FastifyRequest) => NoteWrite | undefined): preHandlerHookHandler
  }
  interface FastifyRequest {
    /** The session named by X-CHALLENGER; null when the header is absent or names no session. */
    practiceSession: Session | null
    /** On a route with the session in its URL (/challenger/{guid}): that session, once its route looked it up. */
    named: Session | null
    /** The progress bits this request has set so far. */
    passedBits: number
    /** True while the session of a request to a `sessionWithNote` route is still to be looked up (lookUpWithNote). */
    sessionDeferred: boolean
    /**
     * Records a challenge on this request's session: `bit` is `fastify.bitFor(trigger)`,
     * looked up when the route is registered. Does nothing without a session or for bit 0.
     * Returns a promise only when there is something to wait for (a write to a networked store).
     */
    pass (bit: number): Promise<void> | undefined
  }
}

/** What a note write stores when `token` is the session's: `note`, and the progress bits `bits`. */
export interface NoteWrite {
  token: string
  note: string
  bits: number
}

export interface SessionOptions {
  mode: 'multi' | 'single'
}

/**
 * A lookup that failed: a route that only tracks progress (the heartbeat) answers without its session
 * when the store is away (503); every other route, and every other error, is reported.
 */
function failed (request: FastifyRequest, error: Error & { statusCode?: number }, done: (error?: Error) => void): void {
  if (error.statusCode === 503 && request.routeOptions.config.sessionOptional === true) done()
  else done(error)
}

async function session (fastify: FastifyInstance, options: SessionOptions): Promise<void> {
  const store = fastify.sessions
  const single = options.mode === 'single'
  fastify.decorate('sessionGuidFor', single ? () => SINGLE_PLAYER_GUID : (guid: string | null | undefined) => guid === undefined || guid === '' ? null : guid)

  /** The session `guid` names (lowercase), with the note `write` describes written in the same step. */
  const look = (guid: string, write?: NoteWrite): Maybe<Session | undefined> =>
    write === undefined ? store.get(guid) : store.writeNote(guid, write.token, write.note, write.bits)
  // The one session of single-player mode, made if no instance has made it yet (ifAbsent: two
  // instances starting together on one Redis agree on one token), then looked up.
  const ensureSinglePlayer = async (write?: NoteWrite): Promise<Session | undefined> => {
    await store.restore({ guid: SINGLE_PLAYER_GUID, token: newToken(), note: '', progress: 0 }, { pinned: true, ifAbsent: true })
    return await look(SINGLE_PLAYER_GUID, write)
  }
  // A store that is away at start-up is no reason not to start: the session is made on first use.
  if (single) await ensureSinglePlayer().catch((error: unknown) => { fastify.log.warn({ err: error }, 'the single-player session waits for the store') })

  fastify.decorate('findSession', function (guid: string | undefined, write?: NoteWrite): Maybe<Session | undefined> {
    if (single) return then(look(SINGLE_PLAYER_GUID, write), record => record ?? ensureSinglePlayer(write))
    // Named, in multi-player mode: every caller has checked (sessionGuidFor, or findChallenger's
    // test). Session ids are issued in lowercase; the same UUID in capitals names the same session.
    return look((guid as string).toLowerCase(), write)
  })

  /**
   * Looks the session `guid` names up for `request` (see findSession) and goes on: at once when the
   * store answers at once.
   */
  const lookUp = (request: FastifyRequest, guid: string | undefined, write: NoteWrite | undefined, done: (error?: Error) => void): void => {
    let found: Maybe<Session | undefined>
    try {
      found = fastify.findSession(guid, write)
    } catch (error) {
      failed(request, error as Error, done)
      return
    }
    if (found instanceof Promise) {
      found.then(record => {
        request.practiceSession = record ?? null
        done()
      }, (error: Error) => { failed(request, error, done) })
      return
    }
    request.practiceSession = found ?? null
    done()
  }

  // The triggers this app's routes asked for: the check at start-up is the app's, not the module's.
  const emitted = new Set<string>()
  fastify.decorate('bitFor', function (trigger: Trigger): number {
    const bit = bitFor(trigger)
    emitted.add(trigger)
    return bit
  })
  fastify.decorate('unreachableChallenges', () => unreachableChallenges(emitted))

  fastify.decorateRequest('practiceSession', null)
  fastify.decorateRequest('named', null)
  fastify.decorateRequest('passedBits', 0)
  fastify.decorateRequest('sessionDeferred', false)

  fastify.decorateRequest('pass', function (this: FastifyRequest, bit: number): Promise<void> | undefined {
    // Already passed (as far as this request saw): nothing to write.
    if (bit === 0 || this.practiceSession === null || (this.practiceSession.progress & bit) !== 0) return undefined
    this.passedBits |= bit
    const passing = store.pass(this.practiceSession.guid, bit)
    return passing instanceof Promise ? passing : undefined
  })

  fastify.decorate('lookUpWithNote', function (write: (request: FastifyRequest) => NoteWrite | undefined): preHandlerHookHandler {
    return function lookUpWithNote (request, _reply, done) {
      if (!request.sessionDeferred) {
        done()
        return
      }
      request.sessionDeferred = false
      lookUp(request, request.headers['x-challenger'] as string | undefined, write(request), done)
    }
  })

  fastify.addHook('onRequest', function findChallenger (request, _reply, done) {
    const guid = request.headers['x-challenger'] as string | undefined
    if (!single && (guid === undefined || guid === '')) {
      done()
      return
    }
    // A note write: looked up with the write, once the body is read (lookUpWithNote).
    if (request.method === 'POST' && request.routeOptions.config.sessionWithNote === true) {
      request.sessionDeferred = true
      done()
      return
    }
    lookUp(request, guid, undefined, done)
  })
}

export default fp(session, {
  name: 'session',
  fastify: '5.x',
  dependencies: ['challenger-registry']
})
