// Authorization: the Basic credentials that earn a token (`fastify.checkCredentials`), and the
// preHandler that guards a resource with the session's token (`fastify.tokenAuth(resource)`).
// Secrets are compared in constant time.
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import type { Trigger } from '../src/domain/challenges/catalogue.js'
import { NAME_A_SESSION } from '../src/domain/challenges/messages.js'
import type { TokenVerdict } from '../src/domain/challenges/challenge-list.js'
import { presentedToken, safeEqual, type TokenSource } from '../src/domain/sessions/secrets.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Whether an Authorization header holds the accepted Basic credentials. */
    checkCredentials (authorization: string | undefined): boolean
    /** The `WWW-Authenticate` value that goes with a refused Basic login. */
    basicChallenge: string
    /**
     * A preHandler that lets a request through only with its session's token, and records the
     * challenge of a refusal (`missing` token, `wrong` token) for the methods named in `refusals`.
     */
    tokenAuth (refusals: Partial<Record<string, Refusals>>): preHandlerHookHandler
  }
  interface FastifyRequest {
    /** Set by `tokenAuth`: how the token came (when one did). */
    tokenSource: TokenSource | null
    /** Set by `tokenAuth`: whether a token came, and whether it was the session's. */
    tokenVerdict: TokenVerdict | null
  }
}

/** The challenges a refused request passes: no token, or a wrong X-AUTH-TOKEN. */
export interface Refusals {
  missing: Trigger
  wrong: Trigger
}

export interface AuthOptions {
  username: string
  password: string
  realm: string
}

const BASIC = /^basic +([a-z0-9+/]+=*) *$/i

/** Answers a refusal once its challenge is recorded (at once when there was nothing to wait for). */
function refuse (passing: Promise<void> | undefined, done: (error?: Error) => void, answer: () => void): void {
  if (passing === undefined) answer()
  else passing.then(answer, done)
}

async function auth (fastify: FastifyInstance, options: AuthOptions): Promise<void> {
  const { username, password, realm } = options

  fastify.decorate('basicChallenge', `Basic realm="${realm}"`)

  fastify.decorate('checkCredentials', function (authorization: string | undefined): boolean {
    const basic = BASIC.exec(authorization ?? '')
    if (basic === null) return false
    const decoded = Buffer.from(basic[1] as string, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon === -1) return false
    // Both halves are always compared, so the time taken does not say which one was wrong.
    const userOk = safeEqual(decoded.slice(0, colon), username)
    const passwordOk = safeEqual(decoded.slice(colon + 1), password)
    return userOk && passwordOk
  })

  fastify.decorateRequest('tokenSource', null)
  fastify.decorateRequest('tokenVerdict', null)

  fastify.decorate('tokenAuth', function (refusals: Partial<Record<string, Refusals>>): preHandlerHookHandler {
    // The challenge bits of each refusal, by method, worked out once.
    const bits = (outcome: keyof Refusals) => new Map(Object.entries(refusals).map(([method, triggers]) => [method, fastify.bitFor((triggers as Refusals)[outcome])]))
    const noToken = bits('missing')
    const wrongToken = bits('wrong')
    // A callback hook, not an async one: an accepted token, the common case, costs no promise.
    return function requireToken (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) {
      const challenger = request.practiceSession
      if (challenger === null) {
        reply.fail(401, NAME_A_SESSION)
        return
      }
      const found = presentedToken(request.headers.authorization, request.headers['x-auth-token'])
      if (found === undefined) {
        request.tokenVerdict = 'missing'
        refuse(request.pass(noToken.get(request.method) ?? 0), done, () => reply.fail(401, 'Send the token from POST /secret/token in the X-AUTH-TOKEN header'))
        return
      }
      const [token, source] = found
      request.tokenSource = source
      if (!safeEqual(token, challenger.token)) {
        request.tokenVerdict = 'wrong'
        // A wrong Bearer token passes nothing: challenges 31 and 36 are about X-AUTH-TOKEN.
        const passing = source === 'x-auth-token' ? request.pass(wrongToken.get(request.method) ?? 0) : undefined
        refuse(passing, done, () => reply.fail(403, 'The token is not the one issued to this session'))
        return
      }
      request.tokenVerdict = 'valid'
      done()
    }
  })
}

export default fp(auth, {
  name: 'auth',
  fastify: '5.x',
  dependencies: ['session', 'errors']
})
