// The session decorator: `request.challenger` is the session the request names (or null), looked
// up once per request, and `request.pass(bit)` records progress on it. Single-player mode lives
// here and nowhere else: its one session answers for every request, whatever X-CHALLENGER says,
// is the only one a page shows or a restore may name (`fastify.sessionGuidFor`), and is made again
// should it ever be missing.
import type { FastifyInstance, FastifyRequest, preHandlerHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { bitFor, unreachableChallenges, type Challenge, type Trigger } from '../src/domain/catalogue.js'
import { SINGLE_PLAYER_GUID } from '../src/domain/options.js'
import { newToken, type ChallengerRecord } from '../src/domain/store.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route works without its session: a store that cannot be reached is no error there. */
    sessionOptional?: boolean
    /**
     * The route's POST writes the session's note: with a store across the network, its session is
     * looked up by the route's `lookUpWithNote` preHandler, together with the write (one round trip).
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
     * session, whatever `guid` is, made if it is missing.
     */
    findSession (guid: string | undefined): Promise<ChallengerRecord | undefined>
    /**
     * The progress bit (for `request.pass`) of the challenge that `trigger` passes, asked for when
     * a route is registered; a trigger no challenge has throws. The app notes the triggers asked
     * for, so that it can tell which challenges no route of its can pass.
     */
    bitFor (trigger: Trigger): number
    /** The challenges whose trigger no route of this app has asked a bit for so far. */
    unreachableChallenges (): Challenge[]
    /**
     * The preHandler of a route with `config.sessionWithNote`, to run before its token is judged: a
     * request whose lookup was left to it (`request.sessionDeferred`) is looked up here, and in the
     * same step (ChallengerStore.getAndSetNote) the note `write` describes is stored when the token
     * is the session's (`request.storedNote`). `write` gives undefined for a request that writes nothing
     * whatever its token (no token, or a body that cannot be used). Undefined where every lookup is
     * made at onRequest (a store in this process, or single-player mode): no hook to add.
     */
    lookUpWithNote (write: (request: FastifyRequest) => NoteWrite | undefined): preHandlerHookHandler | undefined
  }
  interface FastifyRequest {
    /** The session named by X-CHALLENGER; null when the header is absent or names no session. */
    challenger: ChallengerRecord | null
    /** On a route with the session in its URL (/challenger/{guid}): that session, once its route looked it up. */
    named: ChallengerRecord | null
    /** The progress bits this request has set so far. */
    passedBits: number
    /** True while the session of a request to a `sessionWithNote` route is still to be looked up (lookUpWithNote). */
    sessionDeferred: boolean
    /** The note lookUpWithNote stored, as stored; null when it stored none. */
    storedNote: string | null
    /**
     * Records a challenge on this request's session: `bit` is `fastify.bitFor(trigger)`,
     * looked up when the route is registered. Does nothing without a session or for bit 0.
     * Returns a promise only when there is something to wait for (a write to a networked store).
     */
    pass (bit: number): Promise<void> | undefined
  }
}

/** What lookUpWithNote stores when `token` is the session's: `note`, and the progress bits `bits`. */
export interface NoteWrite {
  token: string
  note: string
  bits: number
}

export interface SessionOptions {
  mode: 'multi' | 'single'
}

async function session (fastify: FastifyInstance, options: SessionOptions): Promise<void> {
  const store = fastify.challengers
  const single = options.mode === 'single'
  fastify.decorate('sessionGuidFor', single ? () => SINGLE_PLAYER_GUID : (guid: string | null | undefined) => guid === undefined || guid === '' ? null : guid)

  // The one session of single-player mode, made if no instance has made it yet (ifAbsent: two
  // instances starting together on one Redis agree on one token).
  const ensureSinglePlayer = async (): Promise<ChallengerRecord | undefined> => {
    await store.restore({ guid: SINGLE_PLAYER_GUID, token: newToken(), note: '', progress: 0 }, { pinned: true, ifAbsent: true })
    return await store.get(SINGLE_PLAYER_GUID)
  }
  // A store that is away at start-up is no reason not to start: the session is made on first use.
  if (single) await ensureSinglePlayer().catch((error: unknown) => { fastify.log.warn({ err: error }, 'the single-player session waits for the store') })

  fastify.decorate('findSession', function (guid: string | undefined): Promise<ChallengerRecord | undefined> {
    // Multi-player lookups take one promise hop; single-player ones may make the session first.
    if (single) return store.get(SINGLE_PLAYER_GUID).then(record => record ?? ensureSinglePlayer())
    // Session ids are issued in lowercase; the same UUID in capitals names the same session.
    return guid === undefined || guid === '' ? Promise.resolve(undefined) : store.get(guid.toLowerCase())
  })

  // The triggers this app's routes asked for: the check at start-up is the app's, not the module's.
  const emitted = new Set<string>()
  fastify.decorate('bitFor', function (trigger: Trigger): number {
    const bit = bitFor(trigger)
    emitted.add(trigger)
    return bit
  })
  fastify.decorate('unreachableChallenges', () => unreachableChallenges(emitted))

  fastify.decorateRequest('challenger', null)
  fastify.decorateRequest('named', null)
  fastify.decorateRequest('passedBits', 0)
  fastify.decorateRequest('sessionDeferred', false)
  fastify.decorateRequest('storedNote', null)

  const passNow = store.passNow?.bind(store)
  fastify.decorateRequest('pass', function (this: FastifyRequest, bit: number): Promise<void> | undefined {
    // Already passed (as far as this request saw): nothing to write.
    if (bit === 0 || this.challenger === null || (this.challenger.progress & bit) !== 0) return undefined
    this.passedBits |= bit
    if (passNow === undefined) return store.pass(this.challenger.guid, bit)
    passNow(this.challenger.guid, bit)
    return undefined
  })

  // A note write's lookup and write in one round trip (see lookUpWithNote): with a store across the
  // network that can, in multi-player mode (single-player lookups may have to make the session first).
  const getAndSetNote = single ? undefined : store.getAndSetNote?.bind(store)
  fastify.decorate('lookUpWithNote', function (write: (request: FastifyRequest) => NoteWrite | undefined): preHandlerHookHandler | undefined {
    if (getAndSetNote === undefined) return undefined
    return function lookUpWithNote (request, _reply, done) {
      if (!request.sessionDeferred) {
        done()
        return
      }
      request.sessionDeferred = false
      const guid = (request.headers['x-challenger'] as string).toLowerCase()
      const wanted = write(request)
      const lookup = wanted === undefined
        ? fastify.findSession(guid)
        : getAndSetNote(guid, wanted.token, wanted.note, wanted.bits).then(found => {
          if (found?.[1] === true) request.storedNote = wanted.note
          return found?.[0]
        })
      lookup.then((record) => {
        request.challenger = record ?? null
        done()
      }, done)
    }
  })

  const getNow = single ? undefined : store.getNow?.bind(store)
  fastify.addHook('onRequest', function findChallenger (request, _reply, done) {
    const guid = request.headers['x-challenger'] as string | undefined
    if (!single && (guid === undefined || guid === '')) {
      done()
      return
    }
    // A store in this process answers at once: no promise.
    if (getNow !== undefined) {
      request.challenger = getNow((guid as string).toLowerCase()) ?? null
      done()
      return
    }
    // A note write: looked up with the write, once the body is read (lookUpWithNote).
    if (getAndSetNote !== undefined && request.method === 'POST' && request.routeOptions.config.sessionWithNote === true) {
      request.sessionDeferred = true
      done()
      return
    }
    fastify.findSession(guid).then((record) => {
      request.challenger = record ?? null
      done()
    }, (error: Error & { statusCode?: number }) => {
      // A route that only tracks progress (the heartbeat) answers without its session when the
      // store is away (503); every other route, and every other error, is reported.
      if (error.statusCode === 503 && request.routeOptions.config.sessionOptional === true) done()
      else done(error)
    })
  })
}

export default fp(session, {
  name: 'session',
  fastify: '5.x',
  dependencies: ['challenger-registry']
})
