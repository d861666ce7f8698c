// A session's id in Redis: its guid in 22 characters, the 128 bits of a UUID in an alphabet sorted as
// Redis sorts bytes, so that ids sort as their guids do; any other guid is '=' and itself.

/** base64url's characters, in the order Redis sorts bytes. */
const SORTED64 = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz'
const SORTED64_VALUE = new Map([...SORTED64].map((char, value) => [char, value]))
const PAIRS = Array.from({ length: 4096 }, (_, bits) => (SORTED64[bits >> 6] as string) + (SORTED64[bits & 63] as string))
/** Each character's hex digit (0-15) in a lowercase UUID, -2 for its dashes, -1 for anything else. */
const DIGIT = new Int8Array(128).fill(-1)
for (let code = 0x30; code <= 0x39; code++) DIGIT[code] = code - 0x30
for (let code = 0x61; code <= 0x66; code++) DIGIT[code] = code - 0x57
DIGIT[0x2d] = -2

/** A session's id in Redis: a lowercase UUID in 22 characters of SORTED64; any other guid, '=' and itself. */
export function sessionId (guid: string): string {
  if (guid.length !== 36) return `=${guid}`
  let id = ''
  let bits = 0
  let digits = 0
  for (let i = 0; i < 36; i++) {
    const code = guid.charCodeAt(i)
    const digit = code < 128 ? DIGIT[code] as number : -1
    // Dashes where a UUID has them, and only there.
    if ((digit === -2) !== (i === 8 || i === 13 || i === 18 || i === 23) || digit === -1) return `=${guid}`
    if (digit === -2) continue
    bits = (bits << 4) | digit
    if (++digits === 3) {
      id += PAIRS[bits] as string
      bits = 0
      digits = 0
    }
  }
  return id + (PAIRS[bits << 4] as string)
}

export function guidOf (id: string): string {
  if (id.startsWith('=')) return id.slice(1)
  let hex = ''
  for (let i = 0; i < 22; i += 2) {
    const bits = ((SORTED64_VALUE.get(id[i] as string) as number) << 6) | (SORTED64_VALUE.get(id[i + 1] as string) as number)
    hex += bits.toString(16).padStart(3, '0')
  }
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}
