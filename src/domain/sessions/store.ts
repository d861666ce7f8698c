// Session storage: the one interface both stores implement (src/domain/sessions/memory-store.ts, in this
// process, and src/domain/sessions/redis-store.ts, shared by instances), and the types they share. Each
// method may answer at once or with a promise (Maybe): the memory store answers at once, Redis
// later, behind one name; the service calls one path for both, and goes on without a turn of the
// event loop when the answer is already there (see `then`).
import type { JournalEntry } from '../journal/journal.js'
// The store's errors, with their codes (src/domain/http/errors.ts).
export { BadCursorError, CreationRefusedError, StoreUnavailableError } from '../http/errors.js'

/** A value, or a promise of it. */
export type Maybe<T> = T | Promise<T>

/**
 * `next(value)`: at once when `value` is no promise (no microtask, no allocation), else once it
 * resolves. The way the service goes on after a store's answer on its hot paths.
 */
export function then<T, U> (value: Maybe<T>, next: (value: T) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(next) : next(value)
}

/** One learner's session, as the store hands it out. Change it only through the store. */
export interface Session {
  readonly guid: string
  /** The session's X-AUTH-TOKEN: 128 random bits as 32 lowercase hex digits, fixed for its life. */
  readonly token: string
  /** The secret note, already truncated; '' until one is written. */
  readonly note: string
  /** Passed challenges, one bit per index of the catalogue. */
  readonly progress: number
  /** The learner's display name (1 to 40 characters), if they gave one. */
  readonly name?: string | undefined
}

/** A session as the class board lists it. */
export interface SessionSummary {
  guid: string
  name: string | undefined
  /** Milliseconds since 1970, a whole second: when it was made, kept to the second. */
  createdAt: number
  /** Milliseconds since 1970. */
  lastSeen: number
  progress: number
}

/** One page of the class board: `next` is the cursor of the page after, or null at the end. */
export interface SessionPage {
  /** Live sessions in all (pinned ones aside). */
  total: number
  sessions: SessionSummary[]
  next: string | null
}

/** The class at a glance. */
export interface ClassSummary {
  /** Live sessions (pinned ones aside). */
  live: number
  /** Of them, those with a request in the window asked for. */
  active: number
  /** How many live sessions have passed each progress bit, by bit. */
  passedBy: number[]
}

/** Creations allowed to a client (an address) in a window: see SessionStore.create. */
export interface CreationLimit {
  client: string
  windowMs: number
  max: number
}

export interface SessionStore {
  /**
   * A new session with a fresh guid and token (and `name`, if given), with the progress bits
   * `progress`. At capacity one makes room: the oldest that no request has named since it was made;
   * only when every session has been named, the least recently used. (So strangers' unused sessions
   * never push out a learner at work.) With `limit`, one more creation is counted for
   * `limit.client` in the same step (one round trip for a networked store), as `countCreation`
   * counts it: when that makes more than `limit.max` in the client's window, no session is made and
   * it throws (or rejects with) a CreationRefusedError.
   */
  create (name?: string, progress?: number, limit?: CreationLimit): Maybe<Session>
  /** The session, as it is now; looking it up counts as activity and keeps it alive. */
  get (guid: string): Maybe<Session | undefined>
  /**
   * `get`, and in the same step (one round trip for a networked store), when `token` is the
   * session's: stores `note` as given and sets the progress bits `bits`. The session as it was
   * found, before the write (the note was written when its token is `token`); undefined when there
   * is no session.
   */
  writeNote (guid: string, token: string, note: string, bits: number): Maybe<Session | undefined>
  /**
   * Sets the progress bits in `bits`; a session that is gone is left gone. A store across the network
   * may resolve once the write is sent, in order ahead of any later call (as `record` does), rather
   * than once it is done.
   */
  pass (guid: string, bits: number): Maybe<void>
  /**
   * Puts `record` in place of the session with its guid: 'replaced' when that session was live,
   * 'created' when it was not. A pinned session never expires and does not count toward capacity.
   * With `ifAbsent`, a live session is left as it is (and 'replaced' says it was there).
   */
  restore (record: Session, options?: { pinned?: boolean, ifAbsent?: boolean }): Maybe<'replaced' | 'created'>
  // The class board (GET /admin/…): without these, the board is empty and names cannot be changed.
  /** Sets (or with undefined, clears) the session's name; the session as it now is, or undefined when it is gone. Not activity. */
  setName? (guid: string, name: string | undefined): Maybe<Session | undefined>
  /**
   * Live sessions, most recently active first, `limit` at a time: `cursor` is the `next` of the
   * page before. O(limit) per page, whatever the number of sessions. Not activity.
   */
  list? (limit: number, cursor?: string): Maybe<SessionPage>
  /** Counts for the board: live sessions, those active within the last `activeMs`, passes by bit. */
  summary? (activeMs: number): Maybe<ClassSummary>
  /** Live sessions, and those active within the last `activeMs`: summary() without reading every session. */
  counts? (activeMs: number): Maybe<{ live: number, active: number }>

  /** Whether the store can be reached now (the heartbeat answers 503 while it cannot). */
  available (): boolean
  close (): Promise<void>

  // A store that keeps journals (both of this package's do; without them the journal is empty).
  /**
   * Adds `entry` to the session's journal, which keeps the newest entries only (the store's
   * journal size); a session that is gone is left gone, and its journal goes with it. It keeps
   * nothing of `entry` once it returns (the caller reuses the object). Resolves once any later
   * call, from any instance, will find the entry there (a store across the network may resolve once
   * the entry is sent, ahead of whatever comes after it, rather than once it is answered).
   */
  record? (guid: string, entry: JournalEntry): Maybe<void>
  /** The session's journal, newest first; undefined when the session is gone. Not activity. */
  journal? (guid: string): Maybe<JournalEntry[] | undefined>

  // A store across the network may say more; the service uses what is there.
  /** What the store is, for log lines, never with credentials: `Redis at host:port`. */
  readonly description?: string
  /** Calls `listener` once per change of availability (and at once, when it is already known). */
  onStatus? (listener: (status: StoreStatus) => void): void
  /** Resolves once connected, or after the connect timeout; the app waits for it before it starts. */
  connected? (): Promise<void>
  /**
   * Counts one more session made by `client` (an address, see src/domain/http/connections.ts) in its
   * window of `windowMs`, which starts with its first count, where every instance sharing the store
   * counts too: the count so far and the milliseconds left in the window. The service counts wrong
   * admin tokens here too, under `admin:` and the address. With `add` 0 the count is only read
   * (0 and 0 when no window is open), and nothing is written. Absent, each process counts for itself.
   */
  countCreation? (client: string, windowMs: number, add?: 0 | 1): Maybe<CreationCount>
}

/** See SessionStore.countCreation. */
export interface CreationCount {
  count: number
  msLeft: number
}

/** A change in whether the store can serve requests: reported once per change, never per request. */
export interface StoreStatus {
  /** Connected, and answering. */
  available: boolean
  /** What happened, to follow the store's description: "connected", "cannot be reached (…)", … */
  reason: string
}
