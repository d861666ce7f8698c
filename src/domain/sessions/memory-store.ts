// The in-memory session store, the default: every session in this process (see MemoryStore).
// It answers at once, without a promise, except for the board's reads.
import { performance } from 'node:perf_hooks'
import { WindowCounts } from './counts.js'
import { decodeCursor, encodeCursor, newGuid, newToken } from './ids.js'
import { Journals, type JournalEntry } from '../journal/journal.js'
import { Marks } from './marks.js'
import { BadCursorError, CreationRefusedError, type Session, type SessionStore, type ClassSummary, type CreationCount, type CreationLimit, type SessionPage, type SessionSummary } from './store.js'

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

/**
 * A copy of `text` that shares no memory with the string it was cut from. A note sliced out of a
 * 16 KiB body would otherwise keep the whole body alive for as long as the session lives.
 */
export function detached (text: string): string {
  return JSON.parse(JSON.stringify(text)) as string
}

interface SessionState {
  guid: string
  token: string
  note: string
  progress: number
  /**
   * When it was made, in whole seconds of the wall clock since the second the store began in, times two,
   * plus one once a request has named it since (`used`, see #freshFrom). One small integer in the object
   * itself: a field of its own would cost every session 8 bytes, a fraction of a millisecond 16.
   */
  created: number
  /**
   * Its place in the order of activity: a number that only grows, given at each touch. Marks
   * (src/domain/sessions/marks.ts) find a place in the list from it, so that the board pages in O(page).
   */
  seq: number
  /** The number of its journal in the store's Journals; -1 until its first request (or with the journal off). */
  journal: number
  /** Last activity, in milliseconds since the store began (a small integer for V8). */
  seen: number
  /** Neighbours in the order of last activity: `older` is null for the least recently used. */
  older: SessionState | null
  newer: SessionState | null
}

/** The bit of SessionState.created that says a request has named the session since it was made. */
const USED = 1

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
export class MemoryStore implements SessionStore {
  readonly #sessions = new Map<string, SessionState>()
  readonly #pinned = new Map<string, SessionState>()
  #oldest: SessionState | null = null
  #newest: SessionState | null = null
  /**
   * No unused session is older than this one (null: there is none). An unused session is never
   * touched, so unused ones keep the order they were made in; eviction looks for the oldest from
   * here, toward the newest, and leaves this at the one it found.
   */
  #freshFrom: SessionState | null = null
  readonly #idleMs: number
  readonly #maxSessions: number
  readonly #now: () => number
  readonly #epoch: number
  readonly #stopSweeping: () => void
  readonly #journals: Journals | null
  /** The counts of countCreation, by the store's clock. */
  readonly #counts = new WindowCounts(() => this.#clock())
  /** The names learners gave, by session: beside the sessions, so that an unnamed one pays nothing. */
  readonly #names = new Map<SessionState, string>()
  /** Date.now() when the store began (lastSeen is #wallStart + seen), and its second, whole seconds since 1970. */
  readonly #wallStart: number
  readonly #wallSecond: number
  /** The seq of the last touch. */
  #seq = 0
  /** Sessions marked for the board's cursor to find its place (src/domain/sessions/marks.ts). */
  readonly #marks = new Marks<SessionState>()
  /**
   * The session #find found last, while it is live: the calls that follow in the same request
   * (pass, record) name it again, and find it here rather than in a Map of up to a
   * million sessions, whose chains of entries are mostly out of the processor's caches (measured:
   * the Map's lookups cost a heartbeat 0.47 µs more at 1,000,000 sessions than at 1,000).
   */
  #last: SessionState | null = null

  constructor (options: MemoryStoreOptions = {}) {
    this.#idleMs = options.idleMs ?? 10 * 60 * 1000
    this.#maxSessions = options.maxSessions ?? 100_000
    const journalSize = options.journalSize ?? 20
    this.#journals = journalSize === 0 ? null : new Journals(journalSize)
    this.#now = options.now ?? (() => performance.now())
    this.#epoch = this.#now()
    this.#wallStart = (options.wallClock ?? Date.now)()
    this.#wallSecond = Math.floor(this.#wallStart / 1000)
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

  #unlink (session: SessionState): void {
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

  #append (session: SessionState): void {
    session.seq = ++this.#seq
    this.#marks.add(session)
    session.older = this.#newest
    if (this.#newest === null) this.#oldest = session
    else this.#newest.newer = session
    this.#newest = session
  }

  #remove (session: SessionState): void {
    if (this.#last === session) this.#last = null
    this.#unlink(session)
    this.#names.delete(session)
    this.#sessions.delete(session.guid)
    this.#closeJournal(session)
  }

  #closeJournal (session: SessionState): void {
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
  #find (guid: string): SessionState | undefined {
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
  #named (guid: string): SessionState | undefined {
    const last = this.#last
    if (last !== null && last.guid === guid) return last
    return this.#pinned.get(guid) ?? this.#sessions.get(guid)
  }

  #add (session: SessionState): void {
    // Expired sessions go first: when four are removed here, the store is no longer full.
    this.#expire(4)
    if (this.#sessions.size >= this.#maxSessions) this.#remove(this.#evictable())
    this.#sessions.set(session.guid, session)
    this.#append(session)
    this.#freshFrom ??= session
  }

  /** The session to make room (none has expired): the oldest unused one, else the least recently used. */
  #evictable (): SessionState {
    let fresh = this.#freshFrom
    while (fresh !== null && (fresh.created & USED) !== 0) fresh = fresh.newer
    this.#freshFrom = fresh
    return fresh ?? this.#oldest as SessionState
  }

  /** The session as the store hands it out: a copy. */
  #snapshot (session: SessionState): Session {
    return { guid: session.guid, token: session.token, note: session.note, progress: session.progress, name: this.#nameOf(session) }
  }

  #nameOf (session: SessionState): string | undefined {
    // Most classes name nobody: then no lookup at all.
    return this.#names.size === 0 ? undefined : this.#names.get(session)
  }

  #setName (session: SessionState, name: string | undefined): void {
    if (name === undefined) this.#names.delete(session)
    else this.#names.set(session, detached(name))
  }

  #session (guid: string, token: string, note: string, progress: number): SessionState {
    const now = this.#clock()
    return { guid, token, note, progress, created: Math.floor((this.#wallStart - this.#wallSecond * 1000 + now) / 1000) * 2, seq: 0, journal: -1, seen: now, older: null, newer: null }
  }

  create (name?: string, progress = 0, limit?: CreationLimit): Session {
    if (limit !== undefined) {
      const { count, msLeft } = this.#counts.count(limit.client, limit.windowMs, 1)
      if (count > limit.max) throw new CreationRefusedError(msLeft)
    }
    const session = this.#session(newGuid(), newToken(), '', progress)
    this.#setName(session, name)
    this.#add(session)
    return this.#snapshot(session)
  }

  get (guid: string): Session | undefined {
    this.#expire(2)
    const session = this.#find(guid)
    return session === undefined ? undefined : this.#snapshot(session)
  }

  writeNote (guid: string, token: string, note: string, bits: number): Session | undefined {
    this.#expire(2)
    const session = this.#find(guid)
    if (session === undefined) return undefined
    const found = this.#snapshot(session)
    if (session.token === token) {
      session.note = detached(note)
      session.progress |= bits
    }
    return found
  }

  pass (guid: string, bits: number): void {
    const session = this.#named(guid)
    if (session !== undefined) session.progress |= bits
  }

  record (guid: string, entry: JournalEntry): void {
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

  async restore (record: Session, options: { pinned?: boolean, ifAbsent?: boolean } = {}): Promise<'replaced' | 'created'> {
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

  async setName (guid: string, name: string | undefined): Promise<Session | undefined> {
    const session = this.#named(guid)
    if (session === undefined) return undefined
    this.#setName(session, name)
    return this.#snapshot(session)
  }

  #summary (session: SessionState): SessionSummary {
    return {
      guid: session.guid,
      name: this.#nameOf(session),
      createdAt: (this.#wallSecond + (session.created >> 1)) * 1000, // the wall clock's second it was made in
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
      from = this.#marks.before(Number(seq), this.#oldest)
    }
    const sessions: SessionSummary[] = []
    let last: SessionState | null = null
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
