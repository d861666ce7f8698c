// Session storage. The interface is asynchronous so that a networked store can stand
// behind it without touching a route; the in-memory store below is the default.
import { randomFillSync } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { WindowCounts } from './counts.js'
import { Journals, type JournalEntry } from './journal.js'

/** One learner's session, as the store hands it out. Change it only through the store. */
export interface ChallengerRecord {
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
  /** Milliseconds since 1970. */
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

/** A cursor as the board hands it out: opaque, URL-safe. */
export function encodeCursor (text: string): string {
  return Buffer.from(text, 'latin1').toString('base64url')
}

/** The text of a cursor ('' for one that is not base64url). */
export function decodeCursor (cursor: string): string {
  return /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('latin1') : ''
}

/** A cursor that this store did not make (or cannot read any more): the request is answered 400. */
export class BadCursorError extends Error {
  override name = 'BadCursorError'
  readonly statusCode = 400
  constructor () {
    super('The cursor is not one that GET /admin/sessions gave: start again without it')
  }
}

/** Creations allowed to a client (an address) in a window, for createCounted. */
export interface CreationLimit {
  client: string
  windowMs: number
  max: number
}

export interface ChallengerStore {
  /**
   * A new session with a fresh guid and token (and `name`, if given). At capacity one makes room: the
   * oldest that no request has named since it was made; only when every session has been named, the
   * least recently used. (So strangers' unused sessions never push out a learner at work.)
   */
  create (name?: string): Promise<ChallengerRecord>
  /** The session, as it is now; looking it up counts as activity and keeps it alive. */
  get (guid: string): Promise<ChallengerRecord | undefined>
  /**
   * Stores `note` as given and returns it, or undefined when the session is gone; with `bits`, sets
   * those progress bits in the same step (one round trip for a networked store). Like `pass`, it
   * is meant for a session that `get` has just found live in the same request.
   */
  setNote (guid: string, note: string, bits?: number): Promise<string | undefined>
  /**
   * Sets the progress bits in `bits`; a session that is gone is left gone. A store across the network
   * may resolve once the write is sent, in order ahead of any later call (as `record` does), rather
   * than once it is done.
   */
  pass (guid: string, bits: number): Promise<void>
  /**
   * `create`, with the progress bits `progress` and, in the same step (one round trip for a networked
   * store), one more creation counted for `limit.client` as `countCreation` counts it: the new
   * session; or, when that makes more than `limit.max` in the client's window, no session and the
   * window's time left. For a store across the network (one in this process answers at once without it).
   */
  createCounted? (name: string | undefined, progress: number, limit?: CreationLimit): Promise<ChallengerRecord | { msLeft: number }>
  /**
   * `get`, and in the same step (one round trip for a networked store) `setNote(guid, note, bits)` when
   * `token` is the session's: the session as it was found, before the write, and whether the note
   * was written; undefined when there is no session. For a store across the network (one in this
   * process answers at once without it).
   */
  getAndSetNote? (guid: string, token: string, note: string, bits: number): Promise<[ChallengerRecord, boolean] | undefined>
  /**
   * Puts `record` in place of the session with its guid: 'replaced' when that session was live,
   * 'created' when it was not. A pinned session never expires and does not count toward capacity.
   * With `ifAbsent`, a live session is left as it is (and 'replaced' says it was there).
   */
  restore (record: ChallengerRecord, options?: { pinned?: boolean, ifAbsent?: boolean }): Promise<'replaced' | 'created'>
  // The class board (GET /admin/…): without these, the board is empty and names cannot be changed.
  /** Sets (or with undefined, clears) the session's name; the session as it now is, or undefined when it is gone. Not activity. */
  setName? (guid: string, name: string | undefined): Promise<ChallengerRecord | undefined>
  /**
   * Live sessions, most recently active first, `limit` at a time: `cursor` is the `next` of the
   * page before. O(limit) per page, whatever the number of sessions. Not activity.
   */
  list? (limit: number, cursor?: string): Promise<SessionPage>
  /** Counts for the board: live sessions, those active within the last `activeMs`, passes by bit. */
  summary? (activeMs: number): Promise<ClassSummary>
  /** Live sessions, and those active within the last `activeMs`: summary() without reading every session. */
  counts? (activeMs: number): Promise<{ live: number, active: number }>

  /** Whether the store can be reached now (the heartbeat answers 503 while it cannot). */
  available (): boolean
  close (): Promise<void>

  // A store in this process may answer at once, without a promise (a sixth of a light request's
  // cost); the service uses these when they are there, with the same meaning as get and pass.
  getNow? (guid: string): ChallengerRecord | undefined
  createNow? (name?: string): ChallengerRecord
  passNow? (guid: string, bits: number): void
  setNoteNow? (guid: string, note: string, bits?: number): string | undefined

  // A store that keeps journals (both of this package's do; without them the journal is empty).
  /**
   * Adds `entry` to the session's journal, which keeps the newest entries only (the store's
   * journal size); a session that is gone is left gone, and its journal goes with it. Resolves once
   * any later call, from any instance, will find the entry there (a store across the network may
   * resolve once the entry is sent, ahead of whatever comes after it, rather than once it is answered).
   */
  record? (guid: string, entry: JournalEntry): Promise<void>
  /** `record` at once, for a store in this process. It keeps nothing of `entry`, which the caller reuses. */
  recordNow? (guid: string, entry: JournalEntry): void
  /** The session's journal, newest first; undefined when the session is gone. Not activity. */
  journal? (guid: string): Promise<JournalEntry[] | undefined>

  // A store across the network may say more; the service uses what is there.
  /** What the store is, for log lines, never with credentials: `Redis at host:port`. */
  readonly description?: string
  /** Calls `listener` once per change of availability (and at once, when it is already known). */
  onStatus? (listener: (status: StoreStatus) => void): void
  /** Resolves once connected, or after the connect timeout; the app waits for it before it starts. */
  connected? (): Promise<void>
  /**
   * Counts one more session made by `client` (an address, see src/domain/connections.ts) in its
   * window of `windowMs`, which starts with its first count, where every instance sharing the store
   * counts too: the count so far and the milliseconds left in the window. The service counts wrong
   * admin tokens here too, under `admin:` and the address. With `add` 0 the count is only read
   * (0 and 0 when no window is open), and nothing is written. Absent, each process counts for itself.
   */
  countCreation? (client: string, windowMs: number, add?: 0 | 1): Promise<CreationCount>
}

/** See ChallengerStore.countCreation. */
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

/** The store cannot be reached: the request is answered 503 and may be retried. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError'
  readonly statusCode = 503
  constructor (cause: unknown) {
    super('The session store is unavailable; try again shortly', { cause })
  }
}

export interface MemoryStoreOptions {
  /** A session untouched for this long is gone. Default 10 minutes. */
  idleMs?: number
  /** At most this many live sessions (pinned ones aside). Default 100,000. */
  maxSessions?: number
  /** A monotonic clock, in milliseconds (default performance.now: wall-clock steps do not move it); tests pass their own. */
  now?: () => number
  /** Runs `task` every `ms` until the returned function is called; tests pass their own. */
  every?: (ms: number, task: () => void) => () => void
  /** Entries kept in each session's journal (0: none). Default 20. */
  journalSize?: number
  /** The wall clock, in milliseconds since 1970, for the board's times (default Date.now); tests pass their own. */
  wallClock?: () => number
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
  /**
   * When it was made, in whole seconds since the store began, times two; plus one once a request has
   * named it since (it is `used`, see #freshFrom). One small integer, kept in the object itself: a
   * field of its own would cost every session 8 bytes, a fraction of a millisecond a 16-byte number.
   */
  created: number
  /**
   * Its place in the order of activity: a number that only grows, given at each touch. Marks
   * (see #marks) find a place in the list from it, so that the board pages in O(page).
   */
  seq: number
  /** The number of its journal in the store's Journals; -1 until its first request (or with the journal off). */
  journal: number
  /** Last activity, in milliseconds since the store began (a small integer for V8). */
  seen: number
  /** Neighbours in the order of last activity: `older` is null for the least recently used. */
  older: Session | null
  newer: Session | null
}

/** The bit of Session.created that says a request has named the session since it was made. */
const USED = 1

/** One session in this many (by touch) is marked, for the board's cursor to find its place. */
const MARK_EVERY = 32
/** A memory-store cursor: `m` and the seq of the last session of the page before. */
const MEMORY_CURSOR = /^m([1-9]\d{0,15})$/

/**
 * Every session in one Map, in this process, and threaded on a list in the order of last activity:
 * a touch moves a session to the newest end, eviction takes the oldest session never named since it
 * was made (else the oldest), and expiry removes expired sessions from the oldest end, a few on each
 * call and all of them on a timer. Every step is O(1), amortized: each session is removed once, and
 * the search for an unused one passes each used session once per touch. (The Map's own order will
 * not do: deleting and re-adding leaves holes that iteration from the front walks over.)
 */
export class MemoryStore implements ChallengerStore {
  readonly #sessions = new Map<string, Session>()
  readonly #pinned = new Map<string, Session>()
  #oldest: Session | null = null
  #newest: Session | null = null
  /**
   * No unused session is older than this one (null: there is none). An unused session is never
   * touched, so unused ones keep the order they were made in; eviction looks for the oldest from
   * here, toward the newest, and leaves this at the one it found.
   */
  #freshFrom: Session | null = null
  readonly #idleMs: number
  readonly #maxSessions: number
  readonly #now: () => number
  readonly #epoch: number
  readonly #stopSweeping: () => void
  readonly #journals: Journals | null
  /** The counts of countCreation, by the store's clock. */
  readonly #counts = new WindowCounts(() => this.#clock())
  /** The names learners gave, by session: beside the sessions, so that an unnamed one pays nothing. */
  readonly #names = new Map<Session, string>()
  /** Date.now() when the store began, in the wall clock: the board's times are #wallStart + seen. */
  readonly #wallStart: number
  /** The seq of the last touch. */
  #seq = 0
  /**
   * Every MARK_EVERY-th session touched, with the seq it had then (parallel arrays, in seq order).
   * A mark whose session has been touched again or removed since no longer matches it and is
   * skipped; stale marks are dropped once they are half of them (O(1) amortized per touch).
   */
  #marks: Session[] = []
  #markSeqs: number[] = []
  #markLimit = 1024
  /**
   * The session #find found last, while it is live: the calls that follow in the same request
   * (setNoteNow, passNow, recordNow) name it again, and find it here rather than in a Map of up to a
   * million sessions, whose chains of entries are mostly out of the processor's caches (measured:
   * the Map's lookups cost a heartbeat 0.47 µs more at 1,000,000 sessions than at 1,000).
   */
  #last: Session | null = null

  constructor (options: MemoryStoreOptions = {}) {
    this.#idleMs = options.idleMs ?? 10 * 60 * 1000
    this.#maxSessions = options.maxSessions ?? 100_000
    const journalSize = options.journalSize ?? 20
    this.#journals = journalSize === 0 ? null : new Journals(journalSize)
    this.#now = options.now ?? (() => performance.now())
    this.#epoch = this.#now()
    this.#wallStart = (options.wallClock ?? Date.now)()
    // Releases the memory of expired sessions that nobody asks for again: every idle period, but
    // at least once a minute and at most once a second.
    const period = Math.min(Math.max(this.#idleMs, 1000), 60_000)
    this.#stopSweeping = (options.every ?? every)(period, () => {
      this.#expire(Infinity)
      this.#counts.sweep()
    })
  }

  /** Live sessions, pinned ones aside. */
  get size (): number {
    return this.#sessions.size
  }

  /** In this process: always. */
  available (): boolean {
    return true
  }

  /**
   * Milliseconds since the store began, whole: a small integer (for 24 days) is kept in the session
   * object itself, where performance.now()'s fraction would cost a 16-byte number of its own.
   */
  #clock (): number {
    return Math.floor(this.#now() - this.#epoch)
  }

  #unlink (session: Session): void {
    if (session === this.#freshFrom) this.#freshFrom = session.newer
    if (session.older === null) this.#oldest = session.newer
    else session.older.newer = session.newer
    if (session.newer === null) this.#newest = session.older
    else session.newer.older = session.older
    session.older = null
    session.newer = null
    // Its mark, if it had one, no longer tells its place.
    session.seq = 0
  }

  #append (session: Session): void {
    session.seq = ++this.#seq
    if (session.seq % MARK_EVERY === 0) this.#mark(session)
    session.older = this.#newest
    if (this.#newest === null) this.#oldest = session
    else this.#newest.newer = session
    this.#newest = session
  }

  #mark (session: Session): void {
    if (this.#marks.length >= this.#markLimit) {
      const kept = this.#marks.map((marked, i) => [marked, this.#markSeqs[i] as number] as const).filter(([marked, seq]) => marked.seq === seq)
      this.#marks = kept.map(([marked]) => marked)
      this.#markSeqs = kept.map(([, seq]) => seq)
      this.#markLimit = Math.max(1024, 2 * kept.length)
    }
    this.#marks.push(session)
    this.#markSeqs.push(session.seq)
  }

  /** The most recently touched session touched before `seq`, or null when there is none. */
  #before (seq: number): Session | null {
    // The last mark before seq whose session is still where it was marked...
    let low = 0
    let high = this.#markSeqs.length
    while (low < high) {
      const middle = (low + high) >> 1
      if ((this.#markSeqs[middle] as number) < seq) low = middle + 1
      else high = middle
    }
    let start = this.#oldest
    for (let i = low - 1; i >= 0; i--) {
      const marked = this.#marks[i] as Session
      if (marked.seq === this.#markSeqs[i]) {
        start = marked
        break
      }
    }
    // ...then forward, over fewer than MARK_EVERY touches' worth of sessions (more only if marks went stale).
    if (start === null || start.seq >= seq) return null
    while (start.newer !== null && start.newer.seq < seq) start = start.newer
    return start
  }

  #remove (session: Session): void {
    if (this.#last === session) this.#last = null
    this.#unlink(session)
    this.#names.delete(session)
    this.#sessions.delete(session.guid)
    this.#closeJournal(session)
  }

  #closeJournal (session: Session): void {
    if (session.journal === -1) return
    (this.#journals as Journals).close(session.journal)
    session.journal = -1
  }

  /** Removes up to `limit` expired sessions, oldest first. */
  #expire (limit: number): void {
    const now = this.#clock()
    while (limit-- > 0 && this.#oldest !== null && now - this.#oldest.seen >= this.#idleMs) {
      this.#remove(this.#oldest)
    }
  }

  /** The live session, touched; an expired one is removed on sight. */
  #find (guid: string): Session | undefined {
    const pinned = this.#pinned.get(guid)
    if (pinned !== undefined) {
      this.#last = pinned
      return pinned
    }
    const session = this.#sessions.get(guid)
    if (session === undefined) return undefined
    const now = this.#clock()
    if (now - session.seen >= this.#idleMs) {
      this.#remove(session)
      return undefined
    }
    session.seen = now
    session.created |= USED
    this.#unlink(session)
    this.#append(session)
    this.#last = session
    return session
  }

  /** The live session by `guid` (pinned or not), not touched: #last when it is the one. */
  #named (guid: string): Session | undefined {
    const last = this.#last
    if (last !== null && last.guid === guid) return last
    return this.#pinned.get(guid) ?? this.#sessions.get(guid)
  }

  #add (session: Session): void {
    // Expired sessions go first: when four are removed here, the store is no longer full.
    this.#expire(4)
    if (this.#sessions.size >= this.#maxSessions) this.#remove(this.#evictable())
    this.#sessions.set(session.guid, session)
    this.#append(session)
    this.#freshFrom ??= session
  }

  /** The session to make room (none has expired): the oldest unused one, else the least recently used. */
  #evictable (): Session {
    let fresh = this.#freshFrom
    while (fresh !== null && (fresh.created & USED) !== 0) fresh = fresh.newer
    this.#freshFrom = fresh
    return fresh ?? this.#oldest as Session
  }

  /** The session as the store hands it out: a copy. */
  #snapshot (session: Session): ChallengerRecord {
    return { guid: session.guid, token: session.token, note: session.note, progress: session.progress, name: this.#nameOf(session) }
  }

  #nameOf (session: Session): string | undefined {
    // Most classes name nobody: then no lookup at all.
    return this.#names.size === 0 ? undefined : this.#names.get(session)
  }

  #setName (session: Session, name: string | undefined): void {
    if (name === undefined) this.#names.delete(session)
    else this.#names.set(session, detached(name))
  }

  #session (guid: string, token: string, note: string, progress: number): Session {
    const now = this.#clock()
    return { guid, token, note, progress, created: Math.floor(now / 1000) * 2, seq: 0, journal: -1, seen: now, older: null, newer: null }
  }

  async create (name?: string): Promise<ChallengerRecord> {
    return this.createNow(name)
  }

  createNow (name?: string): ChallengerRecord {
    const session = this.#session(newGuid(), newToken(), '', 0)
    this.#setName(session, name)
    this.#add(session)
    return this.#snapshot(session)
  }

  async get (guid: string): Promise<ChallengerRecord | undefined> {
    return this.getNow(guid)
  }

  getNow (guid: string): ChallengerRecord | undefined {
    this.#expire(2)
    const session = this.#find(guid)
    return session === undefined ? undefined : this.#snapshot(session)
  }

  async setNote (guid: string, note: string, bits = 0): Promise<string | undefined> {
    return this.setNoteNow(guid, note, bits)
  }

  setNoteNow (guid: string, note: string, bits = 0): string | undefined {
    const session = this.#named(guid)
    if (session === undefined) return undefined
    session.note = detached(note)
    session.progress |= bits
    return session.note
  }

  async pass (guid: string, bits: number): Promise<void> {
    this.passNow(guid, bits)
  }

  passNow (guid: string, bits: number): void {
    const session = this.#named(guid)
    if (session !== undefined) session.progress |= bits
  }

  async record (guid: string, entry: JournalEntry): Promise<void> {
    this.recordNow(guid, entry)
  }

  recordNow (guid: string, entry: JournalEntry): void {
    const journals = this.#journals
    const session = this.#named(guid)
    if (session === undefined || journals === null) return
    if (session.journal === -1) session.journal = journals.open()
    journals.add(session.journal, entry, session.guid)
  }

  async journal (guid: string): Promise<JournalEntry[] | undefined> {
    const session = this.#named(guid)
    if (session === undefined) return undefined
    return session.journal === -1 ? [] : (this.#journals as Journals).entries(session.journal, session.guid)
  }

  async restore (record: ChallengerRecord, options: { pinned?: boolean, ifAbsent?: boolean } = {}): Promise<'replaced' | 'created'> {
    const live = this.#find(record.guid)
    if (live !== undefined && options.ifAbsent === true) return 'replaced'
    const session = this.#session(detached(record.guid), detached(record.token), detached(record.note), record.progress)
    this.#setName(session, record.name)
    // A restored session keeps the requests seen before, and when it began: they move to the new record.
    if (live !== undefined) {
      session.journal = live.journal
      live.journal = -1
      session.created = live.created
      this.#names.delete(live)
    }
    // #find made the session it found #last; it may be replaced below.
    this.#last = null
    if (options.pinned === true || this.#pinned.has(session.guid)) {
      if (live !== undefined && !this.#pinned.has(session.guid)) this.#remove(live)
      this.#pinned.set(session.guid, session)
    } else {
      if (live !== undefined) this.#remove(live)
      this.#add(session)
    }
    return live === undefined ? 'created' : 'replaced'
  }

  async setName (guid: string, name: string | undefined): Promise<ChallengerRecord | undefined> {
    const session = this.#named(guid)
    if (session === undefined) return undefined
    this.#setName(session, name)
    return this.#snapshot(session)
  }

  #summary (session: Session): SessionSummary {
    return {
      guid: session.guid,
      name: this.#nameOf(session),
      createdAt: Math.round(this.#wallStart + (session.created >> 1) * 1000),
      lastSeen: Math.round(this.#wallStart + session.seen),
      progress: session.progress
    }
  }

  async list (limit: number, cursor?: string): Promise<SessionPage> {
    this.#expire(Infinity)
    let from = this.#newest
    if (cursor !== undefined) {
      const seq = MEMORY_CURSOR.exec(decodeCursor(cursor))?.[1]
      if (seq === undefined || Number(seq) > this.#seq) throw new BadCursorError()
      from = this.#before(Number(seq))
    }
    const sessions: SessionSummary[] = []
    let last: Session | null = null
    for (let session = from; session !== null && sessions.length < limit; session = session.older) {
      sessions.push(this.#summary(session))
      last = session
    }
    return { total: this.#sessions.size, sessions, next: last === null || last.older === null ? null : encodeCursor(`m${last.seq}`) }
  }

  async counts (activeMs: number): Promise<{ live: number, active: number }> {
    this.#expire(Infinity)
    const now = this.#clock()
    let active = 0
    for (let session = this.#newest; session !== null && now - session.seen < activeMs; session = session.older) active++
    return { live: this.#sessions.size, active }
  }

  async summary (activeMs: number): Promise<ClassSummary> {
    const { active } = await this.counts(activeMs)
    const passedBy = new Array<number>(32).fill(0)
    for (const session of this.#sessions.values()) {
      for (let bits = session.progress; bits !== 0; bits &= bits - 1) {
        const bit = 31 - Math.clz32(bits & -bits)
        passedBy[bit] = (passedBy[bit] as number) + 1
      }
    }
    return { live: this.#sessions.size, active, passedBy }
  }

  async countCreation (client: string, windowMs: number, add: 0 | 1 = 1): Promise<CreationCount> {
    return this.#counts.count(client, windowMs, add)
  }

  async close (): Promise<void> {
    this.#stopSweeping()
    this.#last = null
    this.#sessions.clear()
    this.#oldest = null
    this.#newest = null
    this.#freshFrom = null
    this.#pinned.clear()
    this.#names.clear()
  }
}
