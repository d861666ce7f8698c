// The ids the stores hand out: session guids, tokens, and the board's cursors.
import { randomFillSync } from 'node:crypto'

export const TOKEN_PATTERN = /^[0-9a-f]{32}$/

const entropy = Buffer.alloc(16 * 256)
let entropyOffset = entropy.length

function random16 (): number {
  if (entropyOffset === entropy.length) {
    randomFillSync(entropy)
    entropyOffset = 0
  }
  entropyOffset += 16
  return entropyOffset - 16
}

// Read out with latin1, a guid is a flat one-byte string: randomUUID()'s holds on to far more heap.
const scratch = Buffer.alloc(36)
const HEX = Buffer.from('0123456789abcdef', 'latin1')

function hex (into: number, byte: number): number {
  scratch[into] = HEX[byte >> 4] as number
  scratch[into + 1] = HEX[byte & 15] as number
  return into + 2
}

/** A random version 4 UUID (RFC 9562), 122 random bits. */
export function newGuid (): string {
  const at = random16()
  let out = 0
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) scratch[out++] = 0x2d // '-'
    let byte = entropy[at + i] as number
    if (i === 6) byte = (byte & 0x0f) | 0x40 // version 4
    if (i === 8) byte = (byte & 0x3f) | 0x80 // variant 10
    out = hex(out, byte)
  }
  return scratch.toString('latin1', 0, 36)
}

/** A new token: 128 random bits as 32 lowercase hex digits. */
export function newToken (): string {
  const at = random16()
  return entropy.toString('hex', at, at + 16)
}

/** A cursor as the board hands it out: opaque, URL-safe. */
export function encodeCursor (text: string): string {
  return Buffer.from(text, 'latin1').toString('base64url')
}

/** The text of a cursor ('' for one that is not base64url). */
export function decodeCursor (cursor: string): string {
  return /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('latin1') : ''
}
