// The instructor's key: `fastify.adminOnly`, an onRequest hook for the class board's routes and
// /metrics, which `fastify.adminRoutes()` puts on every route of the plugin that calls it. It wants `Authorization: Bearer <adminToken>`: none (or another scheme) is 401 with
// WWW-Authenticate: Bearer, a wrong one 403. The token is compared in constant time and never
// logged or echoed. Without an admin token the routes that use it are not registered at all
// (`fastify.adminEnabled` is false), so they answer 404 like any unknown path.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { safeEqual } from '../src/domain/secrets.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Whether an admin token is set: the admin routes exist only then. */
    adminEnabled: boolean
    /** Answers 401 or 403 unless the request carries the admin token as a Bearer token. */
    adminOnly: onRequestHookHandler
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

/** The token of `Authorization: Bearer <token>` (the scheme in any case, RFC 9110), else undefined. */
export function bearerToken (authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined
  const match = /^bearer +([^\s]+) *$/i.exec(authorization)
  return match?.[1]
}

async function admin (fastify: FastifyInstance, options: AdminOptions): Promise<void> {
  const token = options.adminToken
  fastify.decorate('adminEnabled', token !== undefined)
  // Never called without a token: the routes that use it are not registered then.
  const expected = token ?? ''
  fastify.decorate('adminOnly', function adminOnly (request: FastifyRequest, reply: FastifyReply, done: () => void) {
    const given = bearerToken(request.headers.authorization)
    if (given === undefined) {
      reply.header('www-authenticate', `Bearer realm="${ADMIN_REALM}"`)
        .fail(401, 'This is an admin route: send Authorization: Bearer <ADMIN_TOKEN>')
      return
    }
    if (!safeEqual(given, expected)) {
      reply.header('www-authenticate', `Bearer realm="${ADMIN_REALM}", error="invalid_token"`)
        .fail(403, 'That is not the admin token')
      return
    }
    done()
  })

  fastify.decorate('adminRoutes', function (this: FastifyInstance) {
    const adminOnly = this.adminOnly
    this.addHook('onRequest', function adminRoute (request, reply, done) {
      request.journaled = false
      adminOnly.call(this, request, reply, done)
    })
    this.addHook('onRoute', route => {
      route.schema = { ...route.schema, hide: true }
    })
  })
}

export default fp(admin, { name: 'admin', fastify: '5.x', dependencies: ['errors', 'journal'] })
