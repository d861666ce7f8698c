// The in-memory session store, the default: every session in this process (see MemoryStore).
import { performance } from 'node:perf_hooks'
import { WindowCounts } from './counts.js'
import { decodeCursor, encodeCursor, newGuid, newToken } from './ids.js'
import { Journal, type JournalEntry } from '../journal/journal.js'
import { MemoryGradeRuns } from '../grades/memory-runs.js'
import { LastIds } from './last-ids.js'
import { Marks } from './marks.js'
import { SessionsFullError } from '../http/errors.js'
import { detached } from './truncate.js'
import { atWork } from './worth.js'
import { BadCursorError, EXPIRED_KEPT, type ClassSummary, type CreationCount, type Hunt, type Maybe, type Session, type SessionChange, type SessionPage, type SessionStore, type SessionSummary } from './store.js'

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

interface SessionState {
  guid: string
  token: string
  note: string
  progress: number
  name: string | undefined
  hunt: Hunt | undefined
  /** The defect a session made under a grading base carries (routes/grades.ts). */
  graded: string | undefined
  /** When it was made, in whole seconds since 1970 (a small integer, as `seen` is). */
  createdSecond: number
  /** Whether a request has named it since it was made (unused sessions are evicted first). */
  used: boolean
  /** Used, but not at work (worth.ts): next to make room after the unused ones (see #lightFrom). */
  light: boolean
  /** Its place in the order of activity, given at each touch: the board's cursor finds it by this (marks.ts). */
  seq: number
  /** Last activity, in whole milliseconds by the store's clock (#clock). */
  seen: number
  /** Made at its first recorded request. */
  journal: Journal | null
  /** Neighbours in the order of last activity: `older` is null for the least recently used. */
  older: SessionState | null
  newer: SessionState | null
}

/** A memory-store cursor: `m` and the seq of the last session of the page before. */
const MEMORY_CURSOR = /^m([1-9]\d{0,15})$/

/**
 * Every session in one Map, and threaded on a list in the order of last activity: a touch moves a
 * session to the newest end, and expiry removes expired sessions from the oldest end, a few on each
 * call and all of them on a timer. At capacity the oldest session never named since it was made
 * makes room, else the least recently active one not at work (worth.ts); when every session is at
 * work, none does, and the new one is refused (SessionsFullError). Every step is O(1), amortized.
 */
export class MemoryStore implements SessionStore {
  readonly #sessions = new Map<string, SessionState>()
  readonly #pinned = new Map<string, SessionState>()
  #oldest: SessionState | null = null
  #newest: SessionState | null = null
  /** No unused session is older than this one (null: none). Unused sessions are never touched, so they keep the order they were made in: eviction looks from here toward the newest. */
  #freshFrom: SessionState | null = null
  /** No light session is older than this one (null: none). A session turns light only as it moves to the newest end (#judge),
   * so the light ones keep the order of activity: eviction looks from here toward the newest, as from #freshFrom. */
  #lightFrom: SessionState | null = null
  readonly #idleMs: number
  readonly #maxSessions: number
  readonly #journalSize: number
  readonly #now: () => number
  /** The wall clock when the store began, and its own clock then: wall-clock times are read from its own. */
  readonly #wallStart: number
  readonly #epoch: number
  readonly #stopSweeping: () => void
  readonly #counts: WindowCounts
  #seq = 0
  readonly #marks = new Marks<SessionState>()
  /** The ids of the last EXPIRED_KEPT sessions to end. */
  readonly #ended = new LastIds(EXPIRED_KEPT)
  readonly grades: MemoryGradeRuns

  constructor (options: MemoryStoreOptions = {}) {
    this.#idleMs = options.idleMs ?? 10 * 60 * 1000
    this.#maxSessions = options.maxSessions ?? 100_000
    this.#journalSize = options.journalSize ?? 20
    this.#now = options.now ?? (() => performance.now())
    this.#epoch = this.#now()
    this.#wallStart = (options.wallClock ?? Date.now)()
    this.#counts = new WindowCounts(() => this.#clock())
    this.grades = new MemoryGradeRuns(() => this.#wall(this.#clock()))
    // Releases the memory of expired sessions nobody asks for again: every idle period, but at
    // least once a minute and at most once a second.
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

  /** Milliseconds since the store began, whole: a small integer in the session object itself. */
  #clock (): number {
    return Math.floor(this.#now() - this.#epoch)
  }

  #unlink (session: SessionState): void {
    if (session === this.#freshFrom) this.#freshFrom = session.newer
    if (session === this.#lightFrom) this.#lightFrom = session.newer
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
    this.#unlink(session)
    this.#sessions.delete(session.guid)
  }

  /** Removes a session that expired or makes room, and remembers that it ended. */
  #end (session: SessionState): void {
    this.#remove(session)
    this.#ended.add(session.guid)
  }

  /** Removes up to `limit` expired sessions, oldest first. */
  #expire (limit: number): void {
    const now = this.#clock()
    while (limit-- > 0 && this.#oldest !== null && now - this.#oldest.seen >= this.#idleMs) {
      this.#end(this.#oldest)
    }
  }

  /** The live session, touched; an expired one is removed on sight. */
  #find (guid: string): SessionState | undefined {
    const pinned = this.#pinned.get(guid)
    if (pinned !== undefined) return pinned
    const session = this.#sessions.get(guid)
    if (session === undefined) return undefined
    const now = this.#clock()
    if (now - session.seen >= this.#idleMs) {
      this.#end(session)
      return undefined
    }
    session.seen = now
    session.used = true
    this.#unlink(session)
    this.#append(session)
    this.#judge(session)
    return session
  }

  /** Whether a used session, just moved to the newest end, is light. */
  #judge (session: SessionState): void {
    session.light = !atWork(session.progress, session.note)
    if (session.light) this.#lightFrom ??= session
  }

  /** The live session by `guid` (pinned or not), not touched. */
  #named (guid: string): SessionState | undefined {
    return this.#pinned.get(guid) ?? this.#sessions.get(guid)
  }

  #add (session: SessionState): void {
    // Expired sessions go first: when four are removed here, the store is no longer full.
    this.#expire(4)
    if (this.#sessions.size >= this.#maxSessions) {
      const room = this.#evictable()
      if (room === undefined) throw new SessionsFullError()
      this.#end(room)
    }
    this.#sessions.set(session.guid, session)
    this.#append(session)
    if (session.used) this.#judge(session)
    else this.#freshFrom ??= session
  }

  /** The session to make room (none has expired): the oldest unused one, else the least recently active not at work. */
  #evictable (): SessionState | undefined {
    let fresh = this.#freshFrom
    while (fresh !== null && fresh.used) fresh = fresh.newer
    this.#freshFrom = fresh
    if (fresh !== null) return fresh
    let light = this.#lightFrom
    while (light !== null && !light.light) light = light.newer
    this.#lightFrom = light
    return light ?? undefined
  }

  /** The session as the store hands it out: a copy. */
  #snapshot (session: SessionState): Session {
    return { guid: session.guid, token: session.token, note: session.note, progress: session.progress, name: session.name, hunt: session.hunt, graded: session.graded }
  }

  /** The wall clock's time, in milliseconds since 1970, at `at` by #clock. */
  #wall (at: number): number {
    return this.#wallStart + at
  }

  #session (guid: string, token: string, note: string, progress: number, name: string | undefined, hunt: Hunt | undefined, graded?: string): SessionState {
    const now = this.#clock()
    return {
      guid,
      token,
      note,
      progress,
      name: name === undefined ? undefined : detached(name),
      hunt: hunt === undefined ? undefined : { hidden: hunt.hidden.map(detached), found: hunt.found.map(detached) },
      graded,
      createdSecond: Math.floor(this.#wall(now) / 1000),
      used: false,
      light: false,
      seq: 0,
      seen: now,
      journal: null,
      older: null,
      newer: null
    }
  }

  async create (name?: string, progress = 0, hunt?: Hunt, graded?: string): Promise<Session> {
    const session = this.#session(newGuid(), newToken(), '', progress, name, hunt, graded)
    this.#add(session)
    return this.#snapshot(session)
  }

  // The request's own path answers at once (a Maybe, so that a test's store may answer later).
  get (guid: string): Maybe<Session | undefined> {
    this.#expire(2)
    const session = this.#find(guid)
    return session === undefined ? undefined : this.#snapshot(session)
  }

  update (guid: string, change: SessionChange): Maybe<boolean> {
    const session = this.#named(guid)
    if (session === undefined) return false
    this.#change(session, change)
    return true
  }

  #change (session: SessionState, change: SessionChange): void {
    // A note comes truncate()d: a string of its own, not a slice of the body (see detached).
    if (change.note !== undefined) session.note = change.note
    session.progress |= change.passed ?? 0
    // Not activity: a session at work now is light no more, and keeps its place in the order.
    if (session.light && atWork(session.progress, session.note)) session.light = false
    const hunt = session.hunt
    if (change.found !== undefined && hunt !== undefined && hunt.hidden.includes(change.found) && !hunt.found.includes(change.found)) {
      session.hunt = { hidden: hunt.hidden, found: [...hunt.found, change.found] }
    }
  }

  record (guid: string, entry: JournalEntry, change?: SessionChange): Maybe<boolean> {
    const session = this.#named(guid)
    if (session === undefined) return false
    if (change !== undefined) this.#change(session, change)
    if (this.#journalSize === 0) return true
    session.journal ??= new Journal(this.#journalSize, session.guid)
    session.journal.add(entry)
    return true
  }

  async journal (guid: string): Promise<JournalEntry[] | undefined> {
    const session = this.#named(guid)
    if (session === undefined) return undefined
    return session.journal?.entries() ?? []
  }

  async restore (given: Session, options: { pinned?: boolean, ifAbsent?: boolean } = {}): Promise<'replaced' | 'created'> {
    const live = this.#find(given.guid)
    if (live !== undefined && options.ifAbsent === true) return 'replaced'
    const session = this.#session(detached(given.guid), detached(given.token), detached(given.note), given.progress, given.name, given.hunt, given.graded ?? live?.graded)
    // A restored session keeps the requests seen before, when it began, and a grading base's defect.
    if (live !== undefined) {
      session.journal = live.journal
      session.createdSecond = live.createdSecond
      session.used = true
    }
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
    session.name = name === undefined ? undefined : detached(name)
    return this.#snapshot(session)
  }

  #summary (session: SessionState): SessionSummary {
    return {
      guid: session.guid,
      name: session.name,
      createdAt: session.createdSecond * 1000,
      lastSeen: Math.round(this.#wall(session.seen)),
      progress: session.progress,
      ...(session.hunt === undefined ? {} : { hunt: { hidden: session.hunt.hidden.length, found: session.hunt.found.length } })
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
    const { live, active } = await this.counts(activeMs)
    const passedBy = new Array<number>(32).fill(0)
    for (const session of this.#sessions.values()) {
      for (let bits = session.progress; bits !== 0; bits &= bits - 1) {
        const bit = 31 - Math.clz32(bits & -bits)
        passedBy[bit] = (passedBy[bit] as number) + 1
      }
    }
    return { live, active, passedBy }
  }

  async expiredRecently (guid: string): Promise<boolean> {
    return this.#ended.has(guid)
  }

  async countCreation (client: string, windowMs: number, add: 0 | 1 = 1): Promise<CreationCount> {
    return this.#counts.count(client, windowMs, add)
  }

  async close (): Promise<void> {
    this.#stopSweeping()
    this.#sessions.clear()
    this.#pinned.clear()
    this.#ended.clear()
    this.#oldest = null
    this.#newest = null
    this.#freshFrom = null
    this.#lightFrom = null
  }
}
