// Comparison of secrets without a timing side channel.

/**
 * Whether `given` equals `expected`, in time that depends on the length of `expected` only: every
 * UTF-16 unit of `expected` is compared with the one at its place in `given` (none past its end),
 * the differences gathered without an early exit, then the lengths. No allocation.
 */
export function safeEqual (given: string, expected: string): boolean {
  let difference = given.length ^ expected.length
  for (let i = 0; i < expected.length; i++) {
    // Past the end of `given`, charCodeAt is NaN, and NaN ^ x is x: a unit that differs (the lengths already do).
    difference |= given.charCodeAt(i) ^ expected.charCodeAt(i)
  }
  return difference === 0
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
