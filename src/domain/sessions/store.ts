// The one interface both session stores implement (memory-store.ts in this process, redis-store.ts
// shared by instances), and the types they share. The methods of a request's own path (get, update,
// record) answer with a value or a promise of one (`Maybe`): the memory store at once, a store across
// the network later; only plugins/session.ts and plugins/journal.ts, the pipeline's steps, tell
// them apart. Every other method answers with a promise.
import type { JournalEntry } from '../journal/journal.js'
import type { GradeRuns } from '../grades/runs.js'
export { BadCursorError, StoreUnavailableError } from '../http/errors.js'

/**
 * How many ended sessions a store remembers (expiredRecently): the ids of the last sessions to end,
 * the oldest forgotten first. Only ids of the store's own sessions go in, so no request can grow it.
 */
export const EXPIRED_KEPT = 10_000

/** A value now, or a promise of it. */
export type Maybe<T> = T | Promise<T>

/** Whether a store's answer is still to come (a promise, or another thenable of a host's store). */
export function isPending<T> (value: Maybe<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function'
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
  /** A hunt's hidden defects and those found so far (docs/bug-hunt.md); none for a plain session. */
  readonly hunt?: Hunt | undefined
  /** The defect every request of a session made under a grading run's base meets (docs/bug-hunt.md); none for the correct base. Never shown. */
  readonly graded?: string | undefined
}

/** A bug hunt: the ids of the defects hidden in the session's answers, and of those found, in the order found. */
export interface Hunt {
  readonly hidden: readonly string[]
  readonly found: readonly string[]
}

/** What a write changes: the note (when given), and progress bits to set. */
export interface SessionChange {
  note?: string
  passed?: number
  /** A hidden defect found: added to the hunt's found ones (once). */
  found?: string
}

/** A session as the class board lists it. */
export interface SessionSummary {
  guid: string
  name: string | undefined
  /** Milliseconds since 1970, a whole second. */
  createdAt: number
  /** Milliseconds since 1970. */
  lastSeen: number
  progress: number
  /** For a hunt: its defects, and how many are found. */
  hunt?: { hidden: number, found: number }
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
  /** Said at warn though the store serves (a store with too few replicas for its settings). */
  warn?: boolean
  /** The log line's fields, from a store across the network (docs/operations.md lists the events). */
  fields?: StoreFields
}

/** What a log line about the store carries beside its message. */
export interface StoreFields {
  /** What happened: `connected`, `unreachable`, `switch-master`, … */
  event: string
  /** Why, in short: Redis's error, the old and new primary, … */
  reason?: string
  /** host:port of the Redis this is about (with Sentinel, the primary it found). */
  redis?: string
  /** That Redis's role as last seen: `primary` or `replica`. */
  role?: string
  /** How long the store was down, on its return. */
  outageMs?: number
}

/** What the class board (GET /admin/…) asks of a store. None of it counts as activity. */
export interface ClassBoard {
  /** Sets (or with undefined, clears) the session's name; the session as it now is, or undefined when it is gone. */
  setName (guid: string, name: string | undefined): Promise<Session | undefined>
  /** Live sessions, most recently active first: `cursor` is the `next` of the page before. */
  list (limit: number, cursor?: string): Promise<SessionPage>
  /** Live sessions, those active within the last `activeMs`, and passes by bit. */
  summary (activeMs: number): Promise<ClassSummary>
  /** Live sessions, and those active within the last `activeMs`. */
  counts (activeMs: number): Promise<{ live: number, active: number }>
}

export interface SessionStore extends ClassBoard {
  /**
   * A new session. At capacity it makes room: the oldest session never named since it was made, else
   * the least recently active one not at work (worth.ts); with every session at work, SessionsFullError (503).
   */
  create (name?: string, progress?: number, hunt?: Hunt, graded?: string): Promise<Session>
  /** The live session, as it is now; looking it up counts as activity and keeps it alive. */
  get (guid: string): Maybe<Session | undefined>
  /** Applies `change` to the session: false when it is gone (and it stays gone). */
  update (guid: string, change: SessionChange): Maybe<boolean>
  /** Puts `session` in place of the one with its guid (`ifAbsent`: only if there is none); making one, as create. A pinned session never expires. */
  restore (session: Session, options?: { pinned?: boolean, ifAbsent?: boolean }): Promise<'replaced' | 'created'>
  /**
   * Adds `entry` to the session's journal, which keeps the newest entries, and applies `change` (the
   * request's: its note and progress, never `found`) with it, in the same step: false when the
   * session is gone. Done once any instance would find both.
   */
  record (guid: string, entry: JournalEntry, change?: SessionChange): Maybe<boolean>
  /** The session's journal, newest first; undefined when the session is gone. Not activity. */
  journal (guid: string): Promise<JournalEntry[] | undefined>
  /**
   * Whether `guid` names a session that ended (expired, or made room at capacity) among the last
   * EXPIRED_KEPT to end: asked only for a request whose session was not found, to say why.
   */
  expiredRecently (guid: string): Promise<boolean>
  /** Counts one more event of `client` (a session made, a wrong admin token) in its window; `add` 0 only reads. */
  countCreation (client: string, windowMs: number, add?: 0 | 1): Promise<CreationCount>
  /** Whether the store can be reached now (the heartbeat answers 503 while it cannot). */
  available (): boolean
  close (): Promise<void>

  // A store across the network says more; the service uses what is there.
  /** What the store is, for log lines, never with credentials: `Redis at host:port`. */
  readonly description?: string
  /** Calls `listener` once per change of availability (and at once, when it is already known). */
  onStatus? (listener: (status: StoreStatus) => void): void
  /** Resolves once connected, or after the connect timeout; the app waits for it before it starts. */
  connected? (): Promise<void>
  /** Grading runs, kept beside the sessions (routes/grades.ts); a store without them offers none (/grades is 404). */
  readonly grades?: GradeRuns
  /**
   * Whether `guid` is known to name a session without defects (neither a hunt's nor a grading base's):
   * learnt from the sessions this instance made or found. A session never gets defects after it is made.
   */
  plain? (guid: string): boolean
  /**
   * A note request judged and kept in one step (issue 56: with Redis, one round trip): the lookup, the
   * token (by digest), then the change and the journal entry, whose progress and hint the store works
   * out from the session's progress as the service would. Nothing is written for a token not its own.
   */
  judgeAndRecord? (guid: string, write: NoteWrite): Promise<NoteWritten>
}

/** A request to the note, for judgeAndRecord: everything it writes, but what depends on the session. */
export interface NoteWrite {
  /** The token the request presented (a store across the network sends only a digest of it). */
  token: string
  /** The journal entry before and after its progress and hint (../journal/wire.ts's entryAround); null for none. */
  entry: [head: string, tail: string] | null
  /** The progress bits the request asks for, and its note (undefined for none). */
  asked: number
  note: string | undefined
  /** The bits of the route's challenges, and its near misses that recognise the request, in order: [challenge's bit, hint]. */
  missable: number
  misses: ReadonlyArray<readonly [number, number]>
}

/** What judgeAndRecord found: no session; a token not the session's (nothing written); or the bits the request passed. */
export type NoteWritten = { found: false } | { found: true, own: false, session: Session } | { found: true, own: true, passed: number }
