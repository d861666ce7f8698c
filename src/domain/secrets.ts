// Comparison of secrets without a timing side channel.
import { timingSafeEqual } from 'node:crypto'

/**
 * Whether `given` equals `expected`, in time that depends only on the length of `expected`:
 * `given` is copied into a buffer of that length first, so no early exit reveals a prefix.
 */
export function safeEqual (given: string, expected: string): boolean {
  const want = Buffer.from(expected)
  const got = Buffer.alloc(want.length)
  got.write(given)
  return timingSafeEqual(got, want) && Buffer.byteLength(given) === want.length
}

const BEARER = /^bearer +(\S+) *$/i

/**
 * The session token a request carries, and how: `Authorization: Bearer` decides when both are
 * sent, as in the reference; an empty X-AUTH-TOKEN counts as none.
 */
export function presentedToken (authorization: string | undefined, xAuthToken: string | string[] | undefined): [token: string, source: 'bearer' | 'x-auth-token'] | undefined {
  const bearer = BEARER.exec(authorization ?? '')
  if (bearer !== null) return [bearer[1] as string, 'bearer']
  return typeof xAuthToken === 'string' && xAuthToken !== '' ? [xAuthToken, 'x-auth-token'] : undefined
}
