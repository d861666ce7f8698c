// Session storage. The interface is asynchronous so that a networked store can stand
// behind it without touching a route; the in-memory store below is the default.
import { randomBytes, randomUUID } from 'node:crypto'

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

export function newToken (): string {
  return randomBytes(16).toString('hex')
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
    const session: Session = { guid: randomUUID(), token: newToken(), note: '', progress: 0 }
    this.#sessions.set(session.guid, session)
    return session
  }

  async get (guid: string): Promise<ChallengerRecord | undefined> {
    return this.#sessions.get(guid)
  }

  async setNote (guid: string, note: string): Promise<string | undefined> {
    const session = this.#sessions.get(guid)
    if (session === undefined) return undefined
    session.note = note
    return note
  }

  async pass (guid: string, bits: number): Promise<void> {
    const session = this.#sessions.get(guid)
    if (session !== undefined) session.progress |= bits
  }

  async close (): Promise<void> {
    this.#sessions.clear()
  }
}
