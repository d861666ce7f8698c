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
    /** An operator's probe (routes/health.ts; 'refused': its 405s): no session is looked up, in single-player mode either. */
    probe?: 'live' | 'ready' | 'refused'
  }
  interface FastifyInstance {
    /** The session a request naming `guid` is about: `guid` (null for none), or in single-player mode the one session. */
    sessionGuidFor (guid: string | null | undefined): string | null
    /** The live session `guid` (checked with sessionGuidFor) names, in any case; in single-player mode the one session. */
    findSession (guid: string | undefined): Promise<Session | undefined>
    /** The progress bit of the challenge `trigger` passes, asked for when a route is registered (unreachableChallenges notes it). */
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
    /** Records the challenge of `bit` (from fastify.bitFor) on this request's session, unless it was passed already. */
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

  // Made if no instance has made it yet: ifAbsent, so that instances starting together agree on one token.
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

  // The one lookup, before the method guard's 404, so that the journal keeps a learner's typo too.
  fastify.addHook('onRequest', async function findSession (request) {
    const guid = request.headers['x-challenger'] as string | undefined
    if (!single && (guid === undefined || guid === '')) return
    // The operators' probes (routes/health.ts) never wait on the store.
    if (request.routeOptions.config.probe !== undefined) return
    try {
      request.session = await fastify.findSession(guid) ?? null
    } catch (error) {
      // While the store is away (503), the heartbeat and an unknown path answer without the session.
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
