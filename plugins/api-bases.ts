// What the API's routes share across their two bases (the root and /api): the progress page's address,
// and one session-creation limit, which a client cannot double by using both bases.
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { clientKey } from '../src/domain/http/connections.js'
import { StoreUnavailableError, type SessionStore } from '../src/domain/sessions/store.js'

export { API_BASE } from '../src/domain/http/api-base.js'

export const CREATION_WINDOW_MS = 60_000

declare module 'fastify' {
  interface FastifyInstance {
    /** The progress page of session `guid` for Location headers, under the service's prefix, not the API's base. */
    progressPage (guid: string): string
    /** Counts a creation by the request's client: undefined when allowed, else the seconds to wait. Null without a limit. */
    creationWait: ((request: FastifyRequest) => Promise<number | undefined>) | null
  }
}

export interface ApiBasesOptions {
  mode: 'multi' | 'single'
  /** Sessions one client address may create per minute; 0: no limit. */
  creationRateLimit: number
}

// @fastify/rate-limit's `store`: the counts live in the session store, shared by every instance.
function countingIn (sessions: SessionStore): FastifyRateLimitStoreCtor {
  return class Counts implements FastifyRateLimitStore {
    incr (key: string, callback: (error: Error | null, result?: { current: number, ttl: number }) => void, windowMs?: number): void {
      sessions.countCreation(key, windowMs as number).then(({ count, msLeft }) => { callback(null, { current: count, ttl: msLeft }) }, callback)
    }

    child (): FastifyRateLimitStore {
      return new Counts()
    }
  }
}

async function apiBases (fastify: FastifyInstance, options: ApiBasesOptions): Promise<void> {
  const prefix = fastify.prefix
  // As the reference does; in single-player mode the page without an id shows the one session.
  fastify.decorate('progressPage', options.mode === 'single'
    ? () => `${prefix}/gui/challenges`
    : (guid: string) => `${prefix}/gui/challenges/${guid}`)

  const most = options.creationRateLimit
  if (most === 0) {
    fastify.decorate('creationWait', null)
    return
  }
  // One limiter for both bases, in a child so that @fastify/rate-limit's decorators stay out of the app.
  let check: ReturnType<FastifyInstance['createRateLimit']> | undefined
  await fastify.register(async function creationLimit (child) {
    await child.register(rateLimit, { global: false, store: countingIn(fastify.sessions) })
    check = child.createRateLimit({ max: most, timeWindow: CREATION_WINDOW_MS, keyGenerator: request => clientKey(request.ip) })
  })
  const limit = check as NonNullable<typeof check>
  fastify.decorate('creationWait', async (request: FastifyRequest) => {
    const verdict = await limit(request).catch((error: unknown) => { throw new StoreUnavailableError(error) })
    return verdict.isAllowed || !verdict.isExceeded ? undefined : verdict.ttlInSeconds
  })
}

export default fp(apiBases, { name: 'api-bases', fastify: '5.x', dependencies: ['challenger-registry'] })
