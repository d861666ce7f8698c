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
  /** A new session with a fresh guid and token. At capacity, the least recently used one makes room. */
  create (): Promise<ChallengerRecord>
  /** The session, as it is now; looking it up counts as activity and keeps it alive. */
  get (guid: string): Promise<ChallengerRecord | undefined>
  /** Stores `note` as given and returns it, or undefined when the session is gone. */
  setNote (guid: string, note: string): Promise<string | undefined>
  /** Sets the progress bits in `bits`; a session that is gone is left gone. */
  pass (guid: string, bits: number): Promise<void>
  /**
   * Puts `record` in place of the session with its guid: 'replaced' when that session was live,
   * 'created' when it was not. A pinned session never expires and does not count toward capacity.
   */
  restore (record: ChallengerRecord, options?: { pinned?: boolean }): Promise<'replaced' | 'created'>
  close (): Promise<void>
}

export interface MemoryStoreOptions {
  /** A session untouched for this long is gone. Default 10 minutes. */
  idleMs?: number
  /** At most this many live sessions (pinned ones aside). Default 100,000. */
  maxSessions?: number
  /** The clock, in milliseconds; tests pass their own. */
  now?: () => number
  /** Runs `task` every `ms` until the returned function is called; tests pass their own. */
  every?: (ms: number, task: () => void) => () => void
}

/** setInterval that keeps no process alive. */
function every (ms: number, task: () => void): () => void {
  const timer = setInterval(task, ms).unref()
  return () => { clearInterval(timer) }
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
  /** Last activity, in milliseconds since the store began (a small integer for V8). */
  seen: number
}

function snapshot (session: Session): ChallengerRecord {
  return { guid: session.guid, token: session.token, note: session.note, progress: session.progress }
}

/**
 * Every session in one Map, in this process. The Map's order is the order of last activity (a
 * touched session moves to the end), so the least recently used session is always first: eviction
 * takes the first, and expiry removes expired sessions from the front, a few on each call and all of
 * them on a timer. Each session is removed once, so expiry costs O(1) amortized per request.
 */
export class MemoryStore implements ChallengerStore {
  readonly #sessions = new Map<string, Session>()
  readonly #pinned = new Map<string, Session>()
  readonly #idleMs: number
  readonly #maxSessions: number
  readonly #now: () => number
  readonly #epoch: number
  readonly #stopSweeping: () => void

  constructor (options: MemoryStoreOptions = {}) {
    this.#idleMs = options.idleMs ?? 10 * 60 * 1000
    this.#maxSessions = options.maxSessions ?? 100_000
    this.#now = options.now ?? Date.now
    this.#epoch = this.#now()
    // Releases the memory of expired sessions that nobody asks for again.
    this.#stopSweeping = (options.every ?? every)(Math.min(this.#idleMs, 60_000), () => { this.#expire(Infinity) })
  }

  /** Live sessions, pinned ones aside. */
  get size (): number {
    return this.#sessions.size
  }

  #clock (): number {
    return this.#now() - this.#epoch
  }

  /** Removes up to `limit` expired sessions from the front. */
  #expire (limit: number): void {
    const now = this.#clock()
    for (const session of this.#sessions.values()) {
      if (limit-- <= 0 || now - session.seen < this.#idleMs) return
      this.#sessions.delete(session.guid)
    }
  }

  /** The live session, touched; an expired one is removed on sight. */
  #find (guid: string): Session | undefined {
    const pinned = this.#pinned.get(guid)
    if (pinned !== undefined) return pinned
    const session = this.#sessions.get(guid)
    if (session === undefined) return undefined
    const now = this.#clock()
    this.#sessions.delete(guid)
    if (now - session.seen >= this.#idleMs) return undefined
    session.seen = now
    this.#sessions.set(guid, session)
    return session
  }

  #add (session: Session): void {
    this.#expire(4)
    if (this.#sessions.size >= this.#maxSessions) {
      const oldest = this.#sessions.keys().next().value as string
      this.#sessions.delete(oldest)
    }
    this.#sessions.set(session.guid, session)
  }

  async create (): Promise<ChallengerRecord> {
    const session: Session = { guid: newGuid(), token: newToken(), note: '', progress: 0, seen: this.#clock() }
    this.#add(session)
    return snapshot(session)
  }

  async get (guid: string): Promise<ChallengerRecord | undefined> {
    this.#expire(2)
    const session = this.#find(guid)
    return session === undefined ? undefined : snapshot(session)
  }

  async setNote (guid: string, note: string): Promise<string | undefined> {
    const session = this.#pinned.get(guid) ?? this.#sessions.get(guid)
    if (session === undefined) return undefined
    session.note = detached(note)
    return session.note
  }

  async pass (guid: string, bits: number): Promise<void> {
    const session = this.#pinned.get(guid) ?? this.#sessions.get(guid)
    if (session !== undefined) session.progress |= bits
  }

  async restore (record: ChallengerRecord, options: { pinned?: boolean } = {}): Promise<'replaced' | 'created'> {
    const live = this.#find(record.guid) !== undefined
    const session: Session = {
      guid: detached(record.guid),
      token: detached(record.token),
      note: detached(record.note),
      progress: record.progress,
      seen: this.#clock()
    }
    if (options.pinned === true || this.#pinned.has(session.guid)) {
      this.#sessions.delete(session.guid)
      this.#pinned.set(session.guid, session)
    } else if (live) {
      this.#sessions.set(session.guid, session)
    } else {
      this.#add(session)
    }
    return live ? 'replaced' : 'created'
  }

  async close (): Promise<void> {
    this.#stopSweeping()
    this.#sessions.clear()
    this.#pinned.clear()
  }
}
