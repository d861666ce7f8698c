// Session storage. The interface is asynchronous so that a networked store can stand
// behind it without touching a route; the in-memory store below is the default.
import { randomFillSync } from 'node:crypto'

/** One learner's session, as the store hands it out. Change it only through the store. */
export interface ChallengerRecord {
  readonly guid: string
  /** The session's X-AUTH-TOKEN: 128 random bits as 32 lowercase hex digits, fixed for its life. */
  readonly token: string
  /** The secret note, already truncated; '' until one is written. */
  readonly note: string
  /** Passed challenges, one bit per index of the catalogue. */
  readonly progress: number
}

export interface ChallengerStore {
  /** A new session with a fresh guid and token. */
  create (): Promise<ChallengerRecord>
  get (guid: string): Promise<ChallengerRecord | undefined>
  /** Stores `note` as given and returns it, or undefined when the session is gone. */
  setNote (guid: string, note: string): Promise<string | undefined>
  /** Sets the progress bits in `bits`; a session that is gone is left gone. */
  pass (guid: string, bits: number): Promise<void>
  close (): Promise<void>
}

/** The shape of the tokens this service issues. */
export const TOKEN_PATTERN = /^[0-9a-f]{32}$/

// Random bytes are drawn from the CSPRNG in batches (as Node's own randomUUID does): one call into
// C++ per 256 sessions rather than two per session.
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

// Strings are written into this buffer and read out with latin1, which yields flat one-byte
// strings. Node's randomUUID() returns a string that holds on to ~480 bytes of heap; this one 57.
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

/**
 * A copy of `text` that shares no memory with the string it was cut from. A note sliced out of a
 * 16 KiB body would otherwise keep the whole body alive for as long as the session lives.
 */
export function detached (text: string): string {
  return JSON.parse(JSON.stringify(text)) as string
}

interface Session {
  guid: string
  token: string
  note: string
  progress: number
}

/** Every session in one Map, in this process. */
export class MemoryStore implements ChallengerStore {
  readonly #sessions = new Map<string, Session>()

  get size (): number {
    return this.#sessions.size
  }

  async create (): Promise<ChallengerRecord> {
    const session: Session = { guid: newGuid(), token: newToken(), note: '', progress: 0 }
    this.#sessions.set(session.guid, session)
    return session
  }

  async get (guid: string): Promise<ChallengerRecord | undefined> {
    return this.#sessions.get(guid)
  }

  async setNote (guid: string, note: string): Promise<string | undefined> {
    const session = this.#sessions.get(guid)
    if (session === undefined) return undefined
    session.note = detached(note)
    return session.note
  }

  async pass (guid: string, bits: number): Promise<void> {
    const session = this.#sessions.get(guid)
    if (session !== undefined) session.progress |= bits
  }

  async close (): Promise<void> {
    this.#sessions.clear()
  }
}
