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
