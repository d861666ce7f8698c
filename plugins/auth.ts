// Authorization: the Basic credentials that earn a token (`fastify.checkCredentials`), and the
// session's token, judged in one place (`fastify.judgeToken`): by the preHandler that guards the
// note (`fastify.tokenAuth`, which the pipeline attaches to a route whose config names its
// refusals: `config.token`), and by the journal for a request answered before it. Secrets are
// compared in constant time. Wrong Basic credentials are limited per client and per session
// (`fastify.judgeCredentials`), counted as the admin token's guesses are. A request whose session is
// not live is told why (`fastify.whyNoSession`): it expired, and how to restore it, when it did so recently.
import type { FastifyInstance, FastifyRequest, preHandlerHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import type { Trigger } from '../src/domain/challenges/catalogue.js'
import { BEARER, expiredMessage, missingTokenMessage, NAME_A_SESSION } from '../src/domain/challenges/messages.js'
import type { TokenVerdict } from '../src/domain/challenges/challenge-list.js'
import { authorizationOf } from '../src/domain/challenges/near-miss-rules.js'
import { clientKey } from '../src/domain/http/connections.js'
import { guessCounter, retryAfterSeconds } from '../src/domain/sessions/guesses.js'
import { presentedToken, safeEqual, type TokenSource } from '../src/domain/sessions/secrets.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes the session's token: the challenges its refusals pass, by method (the pipeline attaches tokenAuth). */
    token?: Partial<Record<string, Refusals>>
  }
  interface FastifyInstance {
    /** Whether an Authorization header holds the accepted Basic credentials. */
    checkCredentials (authorization: string | undefined): boolean
    /**
     * The Basic credentials of a request to POST /secret/token: accepted, refused, or, past the wrong
     * ones its client or its session may send in a minute, the seconds to wait (the right ones too).
     */
    judgeCredentials (request: FastifyRequest): Promise<CredentialsVerdict>
    /** The `WWW-Authenticate` value that goes with a refused Basic login. */
    basicChallenge: string
    /** The 401 of refused Basic credentials: it names the default credentials only when they are the server's. */
    basicRefusal: string
    /**
     * Whether a refused Basic login may say `WWW-Authenticate` (a browser then shows its login dialog): not for a
     * request with `X-API-Challenges-Live-Widget: true`, as the reference's in-page widgets send it.
     */
    challengesBasic (request: FastifyRequest): boolean
    /**
     * Whether the request's token is its session's: sets `request.tokenVerdict` and
     * `request.tokenSource`, once per request. The request must have a session.
     */
    judgeToken (request: FastifyRequest): TokenVerdict
    /**
     * A preHandler that lets a request through only with its session's token, and records the
     * challenge of a refusal (`missing` token, `wrong` token) for the methods named in `refusals`.
     */
    tokenAuth (refusals: Partial<Record<string, Refusals>>): preHandlerHookHandler
    /**
     * The refusal of a token that is not the session's, for the methods named in `refusals`: passes
     * its challenge and gives the 403's message (tokenAuth's, and the journal's for a note request
     * whose session the store judged, plugins/journal.ts).
     */
    wrongTokenFor (refusals: Partial<Record<string, Refusals>>): (request: FastifyRequest) => string
    /**
     * The message for a request that names `guid` but no live session: that it expired and how to
     * restore it (under this instance's prefix: the API's base) when it did so recently, else
     * `otherwise`. The store is asked only here, on the way to the refusal.
     */
    whyNoSession (guid: string | string[] | undefined, otherwise: string): Promise<string>
  }
  // On the routes that take the token only (tokenAuth declares them there).
  interface FastifyRequest {
    /** Set by `judgeToken`: how the token came (when one did). */
    tokenSource: TokenSource | null
    /** Set by `judgeToken`: whether a token came, and whether it was the session's. */
    tokenVerdict: TokenVerdict | null
  }
}

/** The challenges a refused request passes: no token, or a wrong X-AUTH-TOKEN. */
export interface Refusals {
  missing: Trigger
  wrong: Trigger
}

export type CredentialsVerdict = 'accepted' | 'refused' | { waitSeconds: number, by: 'client' | 'session' | 'no-session' }

/** Wrong Basic credentials one session may send in a minute: room for challenge 29's refusal, typos, and a
 * learner's suite with a few wrong-credential tests run again and again on one session. */
export const BASIC_GUESSES_PER_SESSION = 60
export const BASIC_GUESS_WINDOW_MS = 60_000

export interface AuthOptions {
  username: string
  password: string
  realm: string
  /** How long a session lasts without a request, for the message of one that expired. */
  sessionIdleMs: number
  /** Wrong Basic credentials one client may send in a minute, of those its sessions' own allowances let through; 0: no limit at all. */
  basicGuessLimit: number
}

const BASIC = /^basic +([a-z0-9+/]+=*) *$/i

async function auth (fastify: FastifyInstance, options: AuthOptions): Promise<void> {
  const { username, password, realm, sessionIdleMs, basicGuessLimit } = options

  fastify.decorate('basicChallenge', `Basic realm="${realm}"`)
  const byDefault = username === 'admin' && password === 'password'
  fastify.decorate('basicRefusal', byDefault
    ? 'Send Basic credentials that the server accepts (by default admin:password) in the Authorization header'
    : `Send the Basic credentials this server was given (its username is ${JSON.stringify(username)}; ask whoever runs it for the password) in the Authorization header`)
  fastify.decorate('challengesBasic', (request: FastifyRequest) => request.headers['x-api-challenges-live-widget']?.toString().trim().toLowerCase() !== 'true')

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

  const countGuesses = guessCounter(fastify.sessions, BASIC_GUESS_WINDOW_MS)
  /** The warning, once per burst, when a key's count reaches its limit. */
  const warnAt = (request: FastifyRequest, count: number, limit: number, who: string, msLeft: number): void => {
    if (count === limit) request.log.warn({ client: clientKey(request.ip) }, `${count} wrong Basic credentials ${who} within a minute: its POST /secret/token requests are refused (429) for ${retryAfterSeconds(msLeft)} s`)
  }
  fastify.decorate('judgeCredentials', async function (request: FastifyRequest): Promise<CredentialsVerdict> {
    const authorization = request.headers.authorization
    const accepted = fastify.checkCredentials(authorization)
    // Only Basic credentials are guesses: none, or another scheme, is a mistake of form.
    if (basicGuessLimit === 0 || authorization === undefined || !/^basic\b/i.test(authorization)) return accepted ? 'accepted' : 'refused'
    const address = clientKey(request.ip)
    // The right credentials are refused too while their session or client is: else the refusals would tell them apart.
    const add = accepted ? 0 : 1
    const over = (count: number, limit: number): boolean => accepted ? count >= limit : count > limit
    // The session's own allowance first (requests without a live session share one per address): only the guesses
    // it lets through count against the address, so one learner's loop never holds a classroom behind one NAT.
    const session = request.session
    const own = await countGuesses(session === null ? `basic-none:${address}` : `basic-session:${session.guid}`, add)
    if (over(own.count, BASIC_GUESSES_PER_SESSION)) {
      if (add === 1 && session === null) warnAt(request, own.count - 1, BASIC_GUESSES_PER_SESSION, `without a session from ${address}`, own.msLeft)
      return { waitSeconds: retryAfterSeconds(own.msLeft), by: session === null ? 'no-session' : 'session' }
    }
    const client = await countGuesses(`basic:${address}`, add)
    if (add === 1) warnAt(request, client.count, basicGuessLimit, `from ${address}`, client.msLeft)
    if (over(client.count, basicGuessLimit)) return { waitSeconds: retryAfterSeconds(client.msLeft), by: 'client' }
    return accepted ? 'accepted' : 'refused'
  })

  fastify.decorate('judgeToken', function (request: FastifyRequest): TokenVerdict {
    if (request.tokenVerdict !== null) return request.tokenVerdict
    const found = presentedToken(request.headers.authorization, request.headers['x-auth-token'])
    if (found === undefined) {
      request.tokenVerdict = 'missing'
    } else {
      request.tokenSource = found[1]
      request.tokenVerdict = safeEqual(found[0], (request.session as { token: string }).token) ? 'valid' : 'wrong'
    }
    return request.tokenVerdict
  })

  fastify.decorate('whyNoSession', async function (this: FastifyInstance, named: string | string[] | undefined, otherwise: string): Promise<string> {
    // Session ids are issued in lowercase; the same UUID in capitals names the same session.
    const guid = String(named ?? '').toLowerCase()
    if (guid === '' || !await fastify.sessions.expiredRecently(guid)) return otherwise
    return expiredMessage({ guid, idleMs: sessionIdleMs, base: this.prefix, page: fastify.progressPage(guid) })
  })

  /** The challenge bits of each refusal, by method, worked out once. */
  const bits = (refusals: Partial<Record<string, Refusals>>, outcome: keyof Refusals): Map<string, number> =>
    new Map(Object.entries(refusals).map(([method, triggers]) => [method, fastify.bitFor((triggers as Refusals)[outcome])]))

  fastify.decorate('wrongTokenFor', function (refusals: Partial<Record<string, Refusals>>) {
    const wrongToken = bits(refusals, 'wrong')
    return function refuseWrongToken (request: FastifyRequest): string {
      // A wrong Bearer token passes nothing: challenges 31 and 36 are about X-AUTH-TOKEN.
      if (request.tokenSource === 'x-auth-token') request.pass(wrongToken.get(request.method) ?? 0)
      return 'The token is not the one issued to this session'
    }
  })

  fastify.decorate('tokenAuth', function (this: FastifyInstance, refusals: Partial<Record<string, Refusals>>) {
    // The instance of the route that asked: its prefix is the API's base, for the restore command. Its
    // requests, and no others, carry the token's verdict (the journal reads it only on a token's route).
    const routes = this
    if (!routes.hasRequestDecorator('tokenVerdict')) {
      routes.decorateRequest('tokenSource', null)
      routes.decorateRequest('tokenVerdict', null)
    }
    const noToken = bits(refusals, 'missing')
    const wrongToken = fastify.wrongTokenFor(refusals)
    // An answer sent here ends the request: the hooks and the handler after it do not run.
    return function requireToken (request, reply, done) {
      // Every 401 of the note says which scheme it takes, as the reference's (a browser shows no dialog for Bearer).
      if (request.session === null) {
        routes.whyNoSession(request.headers['x-challenger'], NAME_A_SESSION).then(message => { reply.header('www-authenticate', BEARER).fail(401, message) }, done)
        return
      }
      const verdict = fastify.judgeToken(request)
      if (verdict === 'missing') {
        request.pass(noToken.get(request.method) ?? 0)
        reply.header('www-authenticate', BEARER).fail(401, missingTokenMessage(authorizationOf(request.headers.authorization) === 'bare'))
        return
      }
      if (verdict === 'wrong') {
        reply.fail(403, wrongToken(request))
        return
      }
      done()
    } as preHandlerHookHandler
  })
}

export default fp(auth, {
  name: 'auth',
  fastify: '5.x',
  dependencies: ['session', 'errors']
})
