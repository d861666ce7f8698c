// The instructor's key: `fastify.adminOnly` wants `Authorization: Bearer <adminToken>` (compared in constant
// time, never logged); past ADMIN_GUESSES wrong ones an address gets 429. No admin token, no admin routes.
// The right token waits on nothing: a scrape of /metrics answers while Redis hangs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { clientKey } from '../src/domain/http/connections.js'
import { guessCounter, retryAfterSeconds } from '../src/domain/sessions/guesses.js'
import { bearerToken, safeEqual } from '../src/domain/sessions/secrets.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Whether an admin token is set: the admin routes exist only then. */
    adminEnabled: boolean
    /** Answers 401, 403 or 429 (and resolves with the reply) unless the request carries the admin token. */
    adminOnly: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>
    /** Leaves the calling plugin's later routes out of the OpenAPI document. Each admin route says
     * `config: { admin: true }`: the pipeline checks the token first (plugins/pipeline.ts). */
    adminRoutes (): void
  }
}

export interface AdminOptions {
  adminToken?: string
}

export const ADMIN_REALM = 'api-challenges admin'

/** Wrong admin tokens per address and window: room for typos, and no way through a token of 16 random characters. */
export const ADMIN_GUESSES = 10
export const ADMIN_GUESS_WINDOW_MS = 60_000

async function admin (fastify: FastifyInstance, options: AdminOptions): Promise<void> {
  const token = options.adminToken
  fastify.decorate('adminEnabled', token !== undefined)
  const expected = token ?? ''

  // Counted in the store (every instance together); while it is away, in this process.
  const countGuesses = guessCounter(fastify.sessions, ADMIN_GUESS_WINDOW_MS)
  const refuse = (reply: FastifyReply, msLeft: number): FastifyReply => {
    const seconds = retryAfterSeconds(msLeft)
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
      // The right token is refused too while its address is, or the refusals would tell it from wrong guesses;
      // only an address this process has seen at the limit is asked after in the store (its window may be over).
      if (countGuesses.known(client).count < ADMIN_GUESSES) return undefined
      const { count, msLeft } = await countGuesses(client, 0)
      return count >= ADMIN_GUESSES ? refuse(reply, msLeft) : undefined
    }
    const { count, msLeft } = await countGuesses(client, 1)
    if (count === ADMIN_GUESSES) {
      request.log.warn({ client: address }, `${count} wrong admin tokens from ${address} within a minute: its admin requests are refused (429) for ${Math.ceil(msLeft / 1000)} s`)
    }
    if (count > ADMIN_GUESSES) return refuse(reply, msLeft)
    return reply.header('www-authenticate', `Bearer realm="${ADMIN_REALM}", error="invalid_token"`)
      .fail(403, 'That is not the admin token')
  })

  fastify.decorate('adminRoutes', function (this: FastifyInstance) {
    this.addHook('onRoute', route => {
      route.schema = { ...route.schema, hide: true }
    })
  })
}

export default fp(admin, { name: 'admin', fastify: '5.x', dependencies: ['errors', 'challenger-registry'] })
