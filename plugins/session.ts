// The session a request is about: `request.session` is the one X-CHALLENGER names (or null), looked
// up once per request, here; `request.pass(bit)` records progress on it. Single-player mode lives
// here and nowhere else: its one session answers for every request, whatever X-CHALLENGER says,
// is the only one a page shows or a restore may name (`fastify.sessionGuidFor`), and is made again
// should it ever be missing.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { bitFor, unreachableChallenges, type Challenge, type Trigger } from '../src/domain/challenges/catalogue.js'
import { SINGLE_PLAYER_GUID } from '../src/domain/config/options.js'
import { newToken } from '../src/domain/sessions/ids.js'
import type { Session } from '../src/domain/sessions/store.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route works without its session: a store that cannot be reached is no error there. */
    sessionOptional?: boolean
  }
  interface FastifyInstance {
    /**
     * The session a request that names `guid` is about: `guid` itself (null for none) in
     * multi-player mode, the one session in single-player mode, whatever `guid` is.
     */
    sessionGuidFor (guid: string | null | undefined): string | null
    /**
     * The live session `guid` names (any case), or undefined; in single-player mode the one
     * session, whatever `guid` is, made if it is missing. In multi-player mode check `guid` with
     * sessionGuidFor first.
     */
    findSession (guid: string | undefined): Promise<Session | undefined>
    /**
     * The progress bit (for `request.pass`) of the challenge that `trigger` passes, asked for when
     * a route is registered; a trigger no challenge has throws. The app notes the triggers asked
     * for, so that it can tell which challenges no route of its can pass.
     */
    bitFor (trigger: Trigger): number
    /** The challenges whose trigger no route of this app has asked a bit for so far. */
    unreachableChallenges (): Challenge[]
  }
  interface FastifyRequest {
    /** The session X-CHALLENGER names; null when the header is absent or names no live session. */
    session: Session | null
    /** On a route with a session in its URL (/challenger/{guid}): that session, once its route looked it up. */
    sessionInUrl: Session | null
    /** The progress bits this request has set so far. */
    passedBits: number
    /**
     * Records a challenge on this request's session: `bit` is `fastify.bitFor(trigger)`, looked up
     * when the route is registered. Nothing to do without a session, for bit 0, or for a challenge
     * the session had passed already.
     */
    pass (bit: number): Promise<void>
  }
}

export interface SessionOptions {
  mode: 'multi' | 'single'
}

async function session (fastify: FastifyInstance, options: SessionOptions): Promise<void> {
  const store = fastify.sessions
  const single = options.mode === 'single'
  fastify.decorate('sessionGuidFor', single ? () => SINGLE_PLAYER_GUID : (guid: string | null | undefined) => guid === undefined || guid === '' ? null : guid)

  // The one session of single-player mode, made if no instance has made it yet (ifAbsent: two
  // instances starting together on one Redis agree on one token), then looked up.
  const singlePlayer = async (): Promise<Session | undefined> => {
    await store.restore({ guid: SINGLE_PLAYER_GUID, token: newToken(), note: '', progress: 0 }, { pinned: true, ifAbsent: true })
    return await store.get(SINGLE_PLAYER_GUID)
  }
  // A store that is away at start-up is no reason not to start: the session is made on first use.
  if (single) await singlePlayer().catch((error: unknown) => { fastify.log.warn({ err: error }, 'the single-player session waits for the store') })

  fastify.decorate('findSession', async function (guid: string | undefined): Promise<Session | undefined> {
    if (single) return await store.get(SINGLE_PLAYER_GUID) ?? await singlePlayer()
    // Session ids are issued in lowercase; the same UUID in capitals names the same session.
    return await store.get((guid as string).toLowerCase())
  })

  // The triggers this app's routes asked for: the check at start-up is the app's, not the module's.
  const emitted = new Set<string>()
  fastify.decorate('bitFor', function (trigger: Trigger): number {
    const bit = bitFor(trigger)
    emitted.add(trigger)
    return bit
  })
  fastify.decorate('unreachableChallenges', () => unreachableChallenges(emitted))

  fastify.decorateRequest('session', null)
  fastify.decorateRequest('sessionInUrl', null)
  fastify.decorateRequest('passedBits', 0)

  fastify.decorateRequest('pass', async function (this: FastifyRequest, bit: number): Promise<void> {
    if (bit === 0 || this.session === null || (this.session.progress & bit) !== 0) return
    await store.update(this.session.guid, { passed: bit })
    this.passedBits |= bit
  })

  // The one lookup: before the routes' own hooks, the 404 of an unknown path included, so that the
  // journal keeps a learner's typo too.
  fastify.addHook('onRequest', async function findSession (request) {
    const guid = fastify.sessionGuidFor(request.headers['x-challenger'] as string | undefined)
    if (guid === null) return
    try {
      request.session = await fastify.findSession(guid) ?? null
    } catch (error) {
      // A route that only tracks progress (the heartbeat), or an unknown path, answers without its
      // session while the store is away (503); every other route reports it.
      const optional = request.is404 || request.routeOptions.config.sessionOptional === true
      if ((error as { statusCode?: number }).statusCode !== 503 || !optional) throw error
    }
  })
}

export default fp(session, {
  name: 'session',
  fastify: '5.x',
  dependencies: ['challenger-registry']
})
