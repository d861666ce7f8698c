// The instructor's key: `fastify.adminOnly`, an onRequest hook for the class board's routes and
// /metrics, which `fastify.adminRoutes()` puts on every route of the plugin that calls it. It wants `Authorization: Bearer <adminToken>`: none (or another scheme) is 401 with
// WWW-Authenticate: Bearer, a wrong one 403. The token is compared in constant time and never
// logged or echoed. Wrong tokens are counted per client address (countCreation of the store, so
// every instance sharing a Redis counts together): past ADMIN_GUESSES in a window, every admin
// request from that address that carries a token is 429 until the window ends. Without an admin
// token the routes that use it are not registered at all (`fastify.adminEnabled` is false), so
// they answer 404 like any unknown path.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { performance } from 'node:perf_hooks'
import { clientKey } from '../src/domain/http/connections.js'
import { WindowCounts } from '../src/domain/sessions/counts.js'
import { bearerToken, safeEqual } from '../src/domain/sessions/secrets.js'
import type { CreationCount } from '../src/domain/sessions/store.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Whether an admin token is set: the admin routes exist only then. */
    adminEnabled: boolean
    /** Answers 401, 403 or 429 (and resolves with the reply) unless the request carries the admin token as a Bearer token. */
    adminOnly: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>
    /**
     * Makes every route that the calling plugin registers after it an admin route: the token is
     * checked before anything else about the request, and the route is left out of the learners'
     * OpenAPI document and of every journal (`request.journaled`, set in the same hook: the
     * journal's own onRoute hook has seen the route before this plugin's could mark it).
     */
    adminRoutes (): void
  }
}

export interface AdminOptions {
  adminToken?: string
}

/** The realm of the admin routes' WWW-Authenticate. */
export const ADMIN_REALM = 'api-challenges admin'

/**
 * Wrong admin tokens one client address may send in a window before its admin requests are
 * refused: enough for an instructor who mistypes or pastes the wrong line a few times, and at 10 a
 * minute (14,400 a day) no way through a token of 16 random characters or more.
 */
export const ADMIN_GUESSES = 10
/** The window of ADMIN_GUESSES: it opens with the first wrong token and closes a minute later. */
export const ADMIN_GUESS_WINDOW_MS = 60_000

async function admin (fastify: FastifyInstance, options: AdminOptions): Promise<void> {
  const token = options.adminToken
  fastify.decorate('adminEnabled', token !== undefined)
  // Never called without a token: the routes that use it are not registered then.
  const expected = token ?? ''

  // The counts live in the store (with Redis, where every instance counts); while it cannot be
  // reached, this process counts for itself, so that the board and /metrics keep answering the
  // right token and wrong ones stay limited.
  const store = fastify.sessions
  const local = new WindowCounts(() => Math.floor(performance.now()))
  const countGuesses = async (client: string, add: 0 | 1): Promise<CreationCount> =>
    await store.countCreation(client, ADMIN_GUESS_WINDOW_MS, add).catch(() => local.count(client, ADMIN_GUESS_WINDOW_MS, add))
  const refuse = (reply: FastifyReply, msLeft: number): FastifyReply => {
    const seconds = Math.max(1, Math.ceil(msLeft / 1000))
    return reply.header('retry-after', String(seconds))
      .fail(429, `Too many wrong admin tokens from this address: try again in ${seconds} s`)
  }

  fastify.decorate('adminOnly', async function adminOnly (request: FastifyRequest, reply: FastifyReply) {
    const given = bearerToken(request.headers.authorization)
    if (given === undefined) {
      return reply.header('www-authenticate', `Bearer realm="${ADMIN_REALM}"`)
        .fail(401, 'This is an admin route: send Authorization: Bearer <ADMIN_TOKEN>')
    }
    const address = clientKey(request.ip)
    const client = `admin:${address}`
    if (safeEqual(given, expected)) {
      // The right token is refused too while its address is: were it let through, the refusals
      // would tell a wrong guess from the right one, and the guessing could go on.
      const { count, msLeft } = await countGuesses(client, 0)
      return count >= ADMIN_GUESSES ? refuse(reply, msLeft) : undefined
    }
    const { count, msLeft } = await countGuesses(client, 1)
    // Once per window, at the guess that starts the refusals (never the token, which is never logged).
    if (count === ADMIN_GUESSES) {
      request.log.warn({ client: address }, `${count} wrong admin tokens from ${address} within a minute: its admin requests are refused (429) for ${Math.ceil(msLeft / 1000)} s`)
    }
    if (count > ADMIN_GUESSES) return refuse(reply, msLeft)
    return reply.header('www-authenticate', `Bearer realm="${ADMIN_REALM}", error="invalid_token"`)
      .fail(403, 'That is not the admin token')
  })

  fastify.decorate('adminRoutes', function (this: FastifyInstance) {
    const adminOnly = this.adminOnly
    this.addHook('onRequest', async function adminRoute (request, reply) {
      request.journaled = false
      return await adminOnly(request, reply)
    })
    this.addHook('onRoute', route => {
      route.schema = { ...route.schema, hide: true }
    })
  })
}

export default fp(admin, { name: 'admin', fastify: '5.x', dependencies: ['errors', 'journal', 'challenger-registry'] })
