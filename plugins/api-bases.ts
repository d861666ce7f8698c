// What the API's routes share across their two bases, the service's root and /api (see src/app.ts):
// the service's own prefix, under which its pages are, for the Locations that point at them; and the
// one session-creation limit, which a client cannot double by creating at both bases.
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { clientKey } from '../src/domain/http/connections.js'
import { StoreUnavailableError, type SessionStore } from '../src/domain/sessions/store.js'

export { API_BASE } from '../src/domain/http/api-base.js'

/** The creation limit's window: creationRateLimit sessions per address per minute. */
export const CREATION_WINDOW_MS = 60_000

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The progress page of session `guid`, as POST /challenger and GET /challenges name it in
     * Location: /gui/challenges/{guid}, or /gui/challenges in single-player mode, under the prefix
     * the service was registered under (its pages are there, whatever base the API was asked at).
     */
    progressPage (guid: string): string
    /**
     * Counts one session creation by the request's client against the creation limit: resolves
     * undefined when it may create, else the seconds until it may again. Null without a limit.
     */
    creationWait: ((request: FastifyRequest) => Promise<number | undefined>) | null
  }
}

export interface ApiBasesOptions {
  mode: 'multi' | 'single'
  /** Sessions one client address may create per minute; 0: no limit. */
  creationRateLimit: number
}

/** @fastify/rate-limit's `store` option: the counts live in the session store, shared by every instance that shares it. */
function countingIn (sessions: SessionStore): FastifyRateLimitStoreCtor {
  return class Counts implements FastifyRateLimitStore {
    incr (key: string, callback: (error: Error | null, result?: { current: number, ttl: number }) => void, windowMs?: number): void {
      sessions.countCreation(key, windowMs as number).then(({ count, msLeft }) => { callback(null, { current: count, ttl: msLeft }) }, callback)
    }

    // The limiter made with its own options (below) counts in a child: the same counts.
    child (): FastifyRateLimitStore {
      return new Counts()
    }
  }
}

async function apiBases (fastify: FastifyInstance, options: ApiBasesOptions): Promise<void> {
  const prefix = fastify.prefix
  // As the reference does (ChallengerTrackingRoutes, ChallengesRoutes): the page, not the API's
  // base; in single-player mode the page without an id, which shows the one session.
  fastify.decorate('progressPage', options.mode === 'single'
    ? () => `${prefix}/gui/challenges`
    : (guid: string) => `${prefix}/gui/challenges/${guid}`)

  const most = options.creationRateLimit
  if (most === 0) {
    fastify.decorate('creationWait', null)
    return
  }
  // One limiter, made here once for both bases. @fastify/rate-limit is registered in a child of its
  // own, so that its decorators stay out of the app.
  let check: ReturnType<FastifyInstance['createRateLimit']> | undefined
  await fastify.register(async function creationLimit (child) {
    await child.register(rateLimit, { global: false, store: countingIn(fastify.sessions) })
    // Counted per client: an IPv4 address, or an IPv6 /64 (one host usually holds a whole /64).
    check = child.createRateLimit({ max: most, timeWindow: CREATION_WINDOW_MS, keyGenerator: request => clientKey(request.ip) })
  })
  const limit = check as NonNullable<typeof check>
  fastify.decorate('creationWait', async (request: FastifyRequest) => {
    const verdict = await limit(request).catch((error: unknown) => { throw new StoreUnavailableError(error) })
    return verdict.isAllowed || !verdict.isExceeded ? undefined : verdict.ttlInSeconds
  })
}

export default fp(apiBases, { name: 'api-bases', fastify: '5.x', dependencies: ['challenger-registry'] })
