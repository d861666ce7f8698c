// Comparison of secrets without a timing side channel.
import { timingSafeEqual } from 'node:crypto'

/**
 * Whether `given` equals `expected`, in time that depends on the length of `expected` only: `given`,
 * cut or padded with zeros to that length, is compared by timingSafeEqual, then the lengths.
 */
export function safeEqual (given: string, expected: string): boolean {
  // UTF-16 code units, as JavaScript compares strings (UTF-8 would make lone surrogates alike).
  const wanted = Buffer.from(expected, 'utf16le')
  const gotten = Buffer.alloc(wanted.length)
  gotten.write(given, 'utf16le')
  return timingSafeEqual(gotten, wanted) && given.length === expected.length
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
