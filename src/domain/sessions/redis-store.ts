// Sessions in Redis, so that several instances serve one class and a restart loses nobody. Each
// operation is one Lua script (./redis/lua), atomic in Redis; ioredis pipelines the scripts of
// concurrent requests. A probe tells whether Redis still answers (./redis/availability.ts).
// Keys, under a configurable prefix:
//   <prefix>sessions  hash: session id (./redis/ids.ts) -> its fields packed in one string
//                     (lua/session.lua); one hash for all, with no TTL of its own
//   <prefix>lru       sorted set of ids by last activity (Redis's clock in ms × 1024, unique), and so
//                     the expiry: an unpinned session idle past the idle time is gone, and swept
//                     later; a pinned session is not in it
//   <prefix>new       the same for sessions no request has named since they were made: at capacity
//                     the oldest of these makes room first, so strangers never push out a learner
//   <prefix>light     sorted set, a subset of lru: the used sessions not at work (../worth.ts), by
//                     activity; at capacity the oldest makes room next. None left: the new one is
//                     refused (SessionsFullError), as no session at work makes room
//   <prefix>hunts     hash: a hunt's session id -> its defects, hidden and found (see huntText)
//   <prefix>graded    hash: a session id -> the defect of the grading base it was made under
//   <prefix>grade…    grading runs (./redis/grade-runs.ts)
//   <prefix>j:<id>    list: the session's journal, newest first, trimmed once a quarter over its
//                     size; it lives up to a minute longer than its session (JOURNAL_SPARE_MS)
//   <prefix>ended     sorted set: the ids of the last EXPIRED_KEPT sessions to end (expired, or made
//                     room), by when they ended; the oldest are trimmed as each is added (drop)
//   <prefix>rate:<client>  a client's count in its current window (countCreation), with the
//                     window's TTL; wrong admin tokens are counted as <prefix>rate:admin:<client>
import { Redis } from 'ioredis'
import { hash } from 'node:crypto'
import { decodeCursor, encodeCursor, newGuid, newToken } from './ids.js'
import { decodeEntry, encodeEntry, type JournalEntry } from '../journal/journal.js'
import { Availability } from './redis/availability.js'
import { connection, type ConnectionSettings } from './redis/connection.js'
import { Replicas, ReplicaShortfall } from './redis/replicas.js'
import { SentinelWatch } from './redis/sentinel-watch.js'
import { guidOf, sessionId } from './redis/ids.js'
import { RedisGradeRuns } from './redis/grade-runs.js'
import { defineScripts, loadScripts, PER_MS, type Common, type Found, type Head, type Scripts } from './redis/scripts.js'
import { SessionsFullError } from '../http/errors.js'
import { BadCursorError, type ClassSummary, type CreationCount, type Hunt, type NoteWrite, type NoteWritten, type Session, type SessionChange, type SessionPage, type SessionStore, type SessionSummary, type StoreStatus } from './store.js'

export { StoreUnavailableError } from './store.js'
export { guidOf, sessionId } from './redis/ids.js'
export { JOURNAL_SPARE_MS } from './redis/scripts.js'
export { redisAddress } from './redis/connection.js'

/** Where Redis is: `url`, or `sentinels` (and their master's name and passwords); TLS (see ./redis/connection.ts). */
export interface RedisStoreOptions extends ConnectionSettings {
  /** Put before every key, so that several deployments can share one Redis. */
  prefix: string
  idleMs: number
  maxSessions: number
  /** Entries kept in each session's journal (0: none). Default 20. */
  journalSize?: number
  /** How long a command may take before the request is answered 503. Default 1000 ms. */
  commandTimeoutMs?: number
  /** Time between the end of one probe and the start of the next. Default 1000 ms. */
  probeIntervalMs?: number
  /**
   * How long a probe waits for its answer before Redis counts as hanging. Default: commandTimeoutMs,
   * so that the heartbeat says 503 exactly when requests would; never longer than commandTimeoutMs.
   */
  probeTimeoutMs?: number
  /**
   * Replicas that must confirm each write at least (Redis's WAIT, for up to half the command timeout) before
   * it is acknowledged; from 1, every replica the primary has (see ./redis/replicas.ts). Fewer: 503, and
   * the store counts as down until they confirm again. Default 0: no WAIT.
   */
  waitReplicas?: number
  /** With Sentinel: how long writes wait for the switch once Sentinel chose a replica to promote. Default 30 s. */
  failoverMaxMs?: number
}

/** A Redis-store cursor: `r`, the activity score and the guid of the last session of the page before. */
const REDIS_CURSOR = /^r(\d{1,17}):([0-9a-f-]{36})$/
/** Sessions read per script by summary(). */
const SUMMARY_SLICE = 1000

/** A hunt as Redis keeps it: the hidden ids, '|', the found ones, each comma-separated (a defect's id has neither); '' for none. */
function huntText (hunt: Hunt | undefined): string {
  return hunt === undefined ? '' : `${hunt.hidden.join(',')}|${hunt.found.join(',')}`
}

function huntOf (text: string | null): Hunt | undefined {
  if (text === null || text === '') return undefined
  const ids = (list: string): string[] => list === '' ? [] : list.split(',')
  const [hidden, found] = text.split('|') as [string, string]
  return { hidden: ids(hidden), found: ids(found) }
}

function sessionOf (guid: string, [token, note, progress, , name, hunt, graded]: Found): Session {
  return { guid, token, note, progress: Number(progress), name: name ?? undefined, hunt: huntOf(hunt), graded: graded ?? undefined }
}

export class RedisStore implements SessionStore {
  readonly client: Redis
  readonly description: string
  readonly #prefix: string
  readonly #maxSessions: number
  readonly #journalSize: number
  /** Where Redis is (host:port, or its sentinels), without credentials: for log lines. */
  readonly address: string
  readonly #scripts: Scripts
  /** What every script takes first (see Common). */
  readonly #common: Common
  readonly #availability: Availability
  /** With Sentinel: its news of failovers. */
  readonly #watch: SentinelWatch | undefined
  /** Replicas each write waits for (WAIT), at least, and for how long. */
  readonly #waitReplicas: number
  readonly #waitMs: number
  readonly #replicas: Replicas
  readonly grades: RedisGradeRuns
  /** The sessions this instance made or found without defects, which never get any (see plain()); at most #maxSessions. */
  readonly #plain = new Set<string>()

  constructor (options: RedisStoreOptions) {
    const scripts = loadScripts()
    this.#prefix = options.prefix
    this.#maxSessions = options.maxSessions
    this.#journalSize = options.journalSize ?? 20
    const timeout = options.commandTimeoutMs ?? 1000
    this.#waitReplicas = options.waitReplicas ?? 0
    this.#waitMs = Math.max(1, Math.floor(timeout / 2))
    this.#replicas = new Replicas(this.#waitReplicas)
    const { url, options: redisOptions, address, description, sentinels } = connection(options, {
      // Fail fast while Redis is away (the request gets 503) and reconnect on our own.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: timeout,
      connectTimeout: timeout,
      // Back within a quarter of a second of Redis; at once after Sentinel's switch.
      retryStrategy: (attempt: number) => this.#availability.retryDelay(attempt),
      // With Sentinel, after a switch: the new primary, even from a sentinel that names the old one.
      natMap: (address: string) => this.#availability.redirect(address),
      // A primary demoted to a replica (a managed Redis's failover, behind one name) answers READONLY:
      // a new connection finds the new primary, without a restart.
      reconnectOnError: (error: Error) => error.message.startsWith('READONLY'),
      enableAutoPipelining: true
    })
    this.address = address
    this.description = description
    this.client = url === undefined ? new Redis(redisOptions) : new Redis(url, redisOptions)
    this.#scripts = defineScripts(this.client, scripts)
    this.grades = new RedisGradeRuns(this.client, this.#prefix, { write: async command => await this.#run(command), read: async command => await this.#read(command) })
    this.#common = [`${this.#prefix}lru`, `${this.#prefix}sessions`, `${this.#prefix}new`, options.idleMs, this.#prefix]
    this.#availability = new Availability(this.client, {
      address: url === undefined ? undefined : address,
      waitReplicas: this.#waitReplicas,
      replicas: this.#replicas,
      failoverMaxMs: options.failoverMaxMs,
      timeoutMs: timeout,
      probeIntervalMs: options.probeIntervalMs ?? 1000,
      probeTimeoutMs: Math.min(options.probeTimeoutMs ?? timeout, timeout),
      probe: () => {
        // Beside each probe, a sweep of expired sessions: it runs at maxmemory too, where the probe is refused.
        this.#scripts.sweep(...this.#common, '').catch(() => {})
        return this.#replicated(this.#scripts.probe(...this.#common, ''))
      }
    })
    this.#watch = sentinels === undefined
      ? undefined
      : new SentinelWatch({ ...sentinels, connectTimeoutMs: timeout }, news => {
        if (news.news === 'replica') this.#replicas.heard(news.replica, news.down)
        else this.#availability.failover(news)
      })
  }

  /** What a script that may write takes first: its deadline, past which it does nothing (see ./redis/clock.ts). */
  #writing (): Head {
    return [...this.#common, this.#availability.deadline()]
  }

  /** Calls `listener` once per change of availability (and at once with the current state, when it is already known). */
  onStatus (listener: (status: StoreStatus) => void): void {
    this.#availability.onStatus(listener)
  }

  /** Asks Redis whether it runs scripts, or joins the probe under way (see ./redis/availability.ts). */
  async probe (): Promise<void> {
    await this.#availability.probe()
  }

  /** Resolves once connected, or after the connect timeout (the store then answers 503 until Redis is there). */
  async connected (): Promise<void> {
    await this.#availability.connected()
  }

  /** Whether Redis is connected, ready and answering, as the last probe or command found it. No I/O. */
  available (): boolean {
    return this.#availability.available()
  }

  /** Runs a script that Redis treats as one that may write (one without flags: see ./redis/scripts.ts). */
  async #run<T> (command: () => Promise<T>): Promise<T> {
    return await this.#availability.run(() => this.#replicated(command()), true)
  }

  /**
   * `written`, once every replica waited for has it (./redis/replicas.ts): WAIT goes right behind the script on
   * the connection (one round trip), and answers once they confirm, or after #waitMs with how many did.
   */
  async #replicated<T> (written: Promise<T>): Promise<T> {
    if (this.#waitReplicas === 0) return await written
    let wanted = this.#replicas.wanted()
    let [result, confirmed, role] = await Promise.all([written, this.client.wait(wanted, this.#waitMs), this.client.role()])
    // A replica that came since the last probe is waited for too, this write's WAIT again.
    if (this.#replicas.joined(role) && confirmed >= wanted) {
      wanted = this.#replicas.wanted()
      confirmed = await this.client.wait(wanted, this.#waitMs)
    }
    if (confirmed < wanted) throw new ReplicaShortfall(confirmed, wanted, this.#waitMs)
    return result
  }

  /** Runs a script that only reads, or only reads and deletes (flags no-writes or allow-oom). */
  async #read<T> (command: () => Promise<T>): Promise<T> {
    return await this.#availability.run(command, false)
  }

  async #put (session: Session, pinned: boolean, onlyNew: boolean): Promise<number> {
    const outcome = await this.#run(() => this.#scripts.put(...this.#writing(), sessionId(session.guid), session.token, session.note, session.progress,
      this.#maxSessions, pinned ? '1' : '0', onlyNew ? '1' : '0', session.name ?? '', huntText(session.hunt), session.graded ?? ''))
    if (outcome === -2) throw new SessionsFullError()
    return outcome
  }

  async create (name?: string, progress = 0, hunt?: Hunt, graded?: string): Promise<Session> {
    // The hunt handed out is a copy, as a lookup's would be.
    const session = { guid: newGuid(), token: newToken(), note: '', progress, name, hunt: huntOf(huntText(hunt)), graded }
    // A guid of 122 random bits is never taken; onlyNew makes sure of it all the same.
    await this.#put(session, false, true)
    return this.#learnt(session)
  }

  async get (guid: string): Promise<Session | undefined> {
    const found = await this.#run(() => this.#scripts.lookup(...this.#writing(), sessionId(guid)))
    return found === null ? undefined : this.#learnt(sessionOf(guid, found))
  }

  /** `session`, noted as plain when it carries no defects. */
  #learnt (session: Session): Session {
    if (session.hunt !== undefined || session.graded !== undefined) {
      this.#plain.delete(session.guid)
    } else if (!this.#plain.has(session.guid)) {
      if (this.#plain.size >= this.#maxSessions) this.#plain.clear()
      this.#plain.add(session.guid)
    }
    return session
  }

  plain (guid: string): boolean {
    return this.#plain.has(guid)
  }

  /** The lookup, the token, the change and the entry: one script, one round trip (./redis/lua/write.lua). */
  async judgeAndRecord (guid: string, write: NoteWrite): Promise<NoteWritten> {
    // No entry: a journal of size 0 for this write, which keeps none.
    const [head, tail, size] = write.entry === null ? ['', '', 0] : [...write.entry, this.#journalSize]
    const misses = write.misses.map(([bit, hint]) => `${bit}:${hint}`).join(',')
    const result = await this.#run(() => this.#scripts.write(...this.#writing(), sessionId(guid), hash('sha1', write.token), size,
      head, tail, write.asked, write.note === undefined ? '0' : '1', write.note ?? '', write.missable, misses))
    if (result === null) return { found: false }
    if (result[0] === 0) return { found: true, own: false, session: this.#learnt(sessionOf(guid, result[1])) }
    return { found: true, own: true, passed: result[1] }
  }

  async update (guid: string, change: SessionChange): Promise<boolean> {
    const note = change.note === undefined ? ['0', ''] : ['1', change.note]
    return await this.#run(() => this.#scripts.update(...this.#writing(), sessionId(guid), note[0] as string, note[1] as string, change.passed ?? 0, change.found ?? '')) === 1
  }

  /** The entry, and the request's change with it: one script, one round trip. */
  async record (guid: string, entry: JournalEntry, change?: SessionChange): Promise<boolean> {
    if (this.#journalSize === 0) return change === undefined ? true : await this.update(guid, change)
    const id = sessionId(guid)
    const text = encodeEntry(entry)
    return await this.#run(() => change === undefined
      ? this.#scripts.record(...this.#writing(), id, text, this.#journalSize)
      : this.#scripts.record(...this.#writing(), id, text, this.#journalSize, '1', change.note === undefined ? '0' : '1', change.note ?? '', change.passed ?? 0)) === 1
  }

  #rateKey (client: string): string {
    return `${this.#prefix}rate:${client}`
  }

  async journal (guid: string): Promise<JournalEntry[] | undefined> {
    const entries = await this.#run(() => this.#scripts.journal(...this.#common, '', sessionId(guid), this.#journalSize))
    return entries?.map(decodeEntry)
  }

  async setName (guid: string, name: string | undefined): Promise<Session | undefined> {
    const found = await this.#run(() => this.#scripts.setName(...this.#writing(), sessionId(guid), name ?? ''))
    return found === null ? undefined : sessionOf(guid, found)
  }

  async list (limit: number, cursor?: string): Promise<SessionPage> {
    let afterScore = ''
    let afterId = ''
    if (cursor !== undefined) {
      const parts = REDIS_CURSOR.exec(decodeCursor(cursor))
      if (parts === null) throw new BadCursorError()
      afterScore = parts[1] as string
      afterId = sessionId(parts[2] as string)
    }
    const rows = await this.#read(() => this.#scripts.list(...this.#common, '', limit, afterScore, afterId))
    const sessions: SessionSummary[] = []
    const scores: string[] = []
    for (let i = 1; i < rows.length; i += 6) {
      const [id, name, made, score, progress, huntRow] = rows.slice(i, i + 6) as [string, string, string, string, string, string]
      const guid = guidOf(id)
      const lastSeen = Math.floor(Number(score) / PER_MS)
      // A session made before names and times were kept has no time of making: its last activity stands in.
      // Made at, in whole seconds (as the memory store keeps it): the board says it so, in both stores.
      const createdAt = Math.floor((made === '' ? lastSeen : Number(made)) / 1000) * 1000
      const hunt = huntOf(huntRow)
      sessions.push({
        guid,
        name: name === '' ? undefined : name,
        createdAt,
        lastSeen,
        progress: Number(progress),
        ...(hunt === undefined ? {} : { hunt: { hidden: hunt.hidden.length, found: hunt.found.length } })
      })
      scores.push(score)
    }
    // limit + 1 rows came when there is a page after: the extra one is its first.
    const more = sessions.length > limit
    return {
      total: rows[0] as number,
      sessions: sessions.slice(0, limit),
      next: more ? encodeCursor(`r${scores[limit - 1] as string}:${(sessions[limit - 1] as SessionSummary).guid}`) : null
    }
  }

  async counts (activeMs: number): Promise<{ live: number, active: number }> {
    const [live, active] = await this.#read(() => this.#scripts.counts(...this.#common, '', activeMs))
    return { live, active }
  }

  async summary (activeMs: number): Promise<ClassSummary> {
    const [live, active, used] = await this.#read(() => this.#scripts.counts(...this.#common, '', activeMs))
    const passedBy = new Array<number>(32).fill(0)
    const [lru, sessions, fresh, ...rest] = this.#common
    // A slice of an index at a time (the used sessions', then the unused ones'), so that no one script holds Redis for long.
    for (const [index, size] of [[lru, used], [fresh, live - used]] as const) {
      for (let from = 0; from < size; from += SUMMARY_SLICE) {
        const slice = await this.#read(() => this.#scripts.progress(index, sessions, fresh, ...rest, '', from, from + SUMMARY_SLICE - 1))
        for (const text of slice) {
          for (let bits = Number(text) | 0; bits !== 0; bits &= bits - 1) {
            const bit = 31 - Math.clz32(bits & -bits)
            passedBy[bit] = (passedBy[bit] as number) + 1
          }
        }
      }
    }
    return { live, active, passedBy }
  }

  async expiredRecently (guid: string): Promise<boolean> {
    return await this.#read(() => this.client.zscore(`${this.#prefix}ended`, sessionId(guid))) !== null
  }

  async countCreation (client: string, windowMs: number, add: 0 | 1 = 1): Promise<CreationCount> {
    const key = this.#rateKey(client)
    const [count, msLeft] = add === 0
      ? await this.#read(() => this.#scripts.peekCount(key))
      : await this.#run(() => this.#scripts.countCreation(key, windowMs))
    return { count, msLeft }
  }

  async restore (session: Session, options: { pinned?: boolean, ifAbsent?: boolean } = {}): Promise<'replaced' | 'created'> {
    if (session.hunt !== undefined || session.graded !== undefined) this.#plain.delete(session.guid)
    return await this.#put(session, options.pinned === true, options.ifAbsent === true) === 0 ? 'created' : 'replaced'
  }

  async close (): Promise<void> {
    // Closing is no outage: nothing more to report, and no more probes.
    this.#availability.close()
    this.#watch?.close()
    await this.client.quit().catch(() => this.client.disconnect())
  }
}
