// Sessions in Redis, so that several instances serve one class and a restart loses nobody.
// Every change is one Lua script, atomic in Redis and one round trip: no read-modify-write in Node.
// Keys, under a configurable prefix:
//   <prefix>s:<guid>  hash: t (token), n (note), p (progress bits), k ('1' when pinned),
//                     a (the learner's name, when given), c (made at, ms since 1970)
//                     with a TTL of the idle time (none when pinned): Redis expires idle sessions
//   <prefix>j:<guid>  list: the session's journal, newest first, read up to the journal's size and
//                     trimmed to it once a quarter over (one trim per few entries, not one each);
//                     its TTL is its session's plus up to a minute (JOURNAL_SPARE_MS), renewed by a
//                     lookup only once it falls below the idle time (one TTL write a minute, not one
//                     per request): it is never read without its session, is evicted with it, and a
//                     session made again under its guid (a restore after expiry) starts without it
//   <prefix>lru       sorted set of guids by last activity, for the capacity limit and the class
//                     board: the score is Redis's own clock in ms (one clock for every instance)
//                     times 1024, made larger than the highest in the set, so that no two entries tie;
//                     entries idle past the idle time (their sessions expired) are pruned by the board
//                     (a <prefix>seq key, where older versions kept the last score, is no longer read)
//   <prefix>rate:<client>  the sessions a client address made in its current window (countCreation),
//                     with the window's TTL: every instance counts in the same place
// The calls every request makes (the lookup, the note write, the challenge bit, the journal entry)
// are gathered for one turn of the event loop and sent as one script (BATCH): under load, one
// command for all the requests read in that turn, where each call was a command of its own. Each
// call's result is its own; a batch that fails (Redis away, or too slow) fails each of its calls.
// A probe about every second tells whether Redis still answers, so that the heartbeat says 503
// within about 2 s of a hang even when no request runs into it, and 204 again once it is over.
import { Redis } from 'ioredis'
import { decodeEntry, encodeEntry, type JournalEntry } from './journal.js'
import type { ChallengerRecord, ChallengerStore, ClassSummary, CreationCount, SessionPage, SessionSummary, StoreStatus } from './store.js'
import { BadCursorError, decodeCursor, encodeCursor, newGuid, newToken, StoreUnavailableError } from './store.js'

export { StoreUnavailableError } from './store.js'

export interface RedisStoreOptions {
  /** redis://host:port/db */
  url: string
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
}

/** host:port of a redis:// URL, for log lines: never its username or password. */
export function redisAddress (url: string): string {
  const { hostname, port } = new URL(url)
  return `${hostname === '' ? 'localhost' : hostname}:${port === '' ? '6379' : port}`
}

type Outage = 'start' | 'lost' | 'hang'
const DOWN: Record<Outage, string> = { start: 'cannot be reached', lost: 'is unreachable', hang: 'stopped answering' }
const UP: Record<Outage, string> = { start: 'connected', lost: 'connected again', hang: 'answers again' }

// The probe is a script, not a PING. Under `CLIENT PAUSE … WRITE` (what FAILOVER does, for one)
// Redis still answers PING while every script of this store waits; under `CLIENT PAUSE` (ALL)
// everything waits. Redis treats a script without the no-writes flag as one that may write, so it
// holds this one exactly when it would hold the session scripts: the probe hangs in both cases.
const PROBE = 'return 1'

// Now, in milliseconds, by Redis's clock (scripts may read it since Redis 5: their effects are
// replicated, not the script), and the activity score of a touch now (see <prefix>lru). Scores
// stay below 2^53, exact in a double; %.0f keeps Lua from writing them with an exponent.
// Reading the highest score, rather than keeping the last one given in a key of its own, spares a
// write (and its line in the AOF) per script.
const NOW = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function activity (lru, last)
  if not last then last = tonumber(redis.call('ZREVRANGE', lru, 0, 0, 'WITHSCORES')[2] or '0') end
  return math.max(now * 1024, last + 1)
end`
/** How many activity scores a millisecond has (see <prefix>lru). */
const PER_MS = 1024
/**
 * How much longer than its session a journal may live (see <prefix>j:): a lookup renews the
 * journal's TTL to the idle time plus this once it has fallen below the idle time.
 */
export const JOURNAL_SPARE_MS = 60_000

const PUT = `${NOW}
local live = redis.call('EXISTS', KEYS[1]) == 1
local pinned = ARGV[7] == '1' or (live and redis.call('HGET', KEYS[1], 'k') == '1')
if ARGV[9] == '1' and live then return -1 end
-- A restored live session keeps when it began (and its journal); a journal outliving its session is no one's.
local made = live and redis.call('HGET', KEYS[1], 'c') or now
redis.call('DEL', KEYS[1])
if not live then redis.call('DEL', KEYS[3]) end
redis.call('HSET', KEYS[1], 't', ARGV[2], 'n', ARGV[3], 'p', ARGV[4], 'k', pinned and '1' or '0', 'c', made)
if ARGV[10] ~= '' then redis.call('HSET', KEYS[1], 'a', ARGV[10]) end
if pinned then
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('PERSIST', KEYS[3])
else
  if not live then
    -- An expired session being restored may still be listed: it must not evict itself.
    redis.call('ZREM', KEYS[2], ARGV[1])
    while redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) do
      local oldest = redis.call('ZPOPMIN', KEYS[2])
      redis.call('DEL', ARGV[8] .. 's:' .. oldest[1], ARGV[8] .. 'j:' .. oldest[1])
    end
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[5]) + ${JOURNAL_SPARE_MS})
  redis.call('ZADD', KEYS[2], string.format('%.0f', activity(KEYS[2])), ARGV[1])
end
if live then return 1 end
return 0`

// ARGV[1] the journal's size: a list may hold up to a quarter more until its next trim.
const JOURNAL = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if ARGV[1] == '0' then return {} end
return redis.call('LRANGE', KEYS[2], 0, tonumber(ARGV[1]) - 1)`

// The name ('' clears it); the session as it is then, as the lookup (t in BATCH) gives it, without touching it.
const SET_NAME = `
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
if ARGV[1] == '' then redis.call('HDEL', KEYS[1], 'a') else redis.call('HSET', KEYS[1], 'a', ARGV[1]) end
return redis.call('HMGET', KEYS[1], 't', 'n', 'p', 'k', 'a')`

// Entries of sessions idle past the idle time: their hashes have expired.
const PRUNE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. string.format('%.0f', (now - tonumber(ARGV[1])) * ${PER_MS}))`

// One page of the board, newest activity first, from the cursor (its score and guid; '' for the
// first page): guid, name, made at, last seen, progress for each session, and the live count first.
// Among equal scores Redis orders by guid, so those at the cursor's score up to its guid were on
// the page before. limit + 1 rows are read to know whether there is a page after.
const LIST = `${NOW}${PRUNE}
local limit = tonumber(ARGV[2])
local after = ARGV[3]
local rows = { redis.call('ZCARD', KEYS[1]) }
local offset = 0
local found = 0
while found <= limit do
  local batch = redis.call('ZREVRANGEBYSCORE', KEYS[1], after == '' and '+inf' or after, '-inf', 'WITHSCORES', 'LIMIT', offset, limit + 1)
  if #batch == 0 then break end
  offset = offset + #batch / 2
  for i = 1, #batch, 2 do
    local guid, score = batch[i], batch[i + 1]
    if found <= limit and not (score == after and guid >= ARGV[4]) then
      local v = redis.call('HMGET', ARGV[5] .. 's:' .. guid, 'a', 'c', 'p')
      if v[3] then
        found = found + 1
        rows[#rows + 1] = guid
        rows[#rows + 1] = v[1] or ''
        rows[#rows + 1] = v[2] or ''
        rows[#rows + 1] = score
        rows[#rows + 1] = v[3]
      end
    end
  end
end
return rows`

// The live count and the count active within ARGV[2] ms.
const COUNTS = `${NOW}${PRUNE}
return { redis.call('ZCARD', KEYS[1]), redis.call('ZCOUNT', KEYS[1], string.format('%.0f', (now - tonumber(ARGV[2])) * ${PER_MS}), '+inf') }`

// The progress of the sessions ranked ARGV[1] to ARGV[2] in the activity index (a slice of it).
const PROGRESS = `
local out = {}
for _, guid in ipairs(redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2])) do
  out[#out + 1] = redis.call('HGET', ARGV[3] .. 's:' .. guid, 'p') or '0'
end
return out`

// One more creation in the client's window, which the first one opens; the count and the window's
// time left. (The keys and counts are @fastify/rate-limit's Redis store's, which counted here before.)
const COUNT_CREATION = `
local n = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if n == 1 or left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {n, left}`

// Many calls in one script: ARGV[1] the idle time, ARGV[2] the key prefix, ARGV[3] the journal's size,
// then each call as its letter and its arguments (a session's keys are made here from its guid, so
// that a call sends 36 characters rather than its keys):
//   t guid         the lookup: the session's t, n, p, k, a (false when there is none); an unpinned
//                  session's TTL starts again (its journal's too, once it is below the idle time: see
//                  <prefix>j:), its activity score moves up
//   n guid note bits  the note and, in the same step, the challenge it passes (bits, 0 for none):
//                  1, or false when there is no session
//   p guid bits    a challenge passed: 0
//   r guid entry   a journal entry, kept only while the session lives and for as long as it does (see
//                  <prefix>j:): 1, or 0 when the session has gone
// KEYS[1] the activity index, whose highest score is read once for all the lookups.
// One result per call, in order. Of the writes (each a line in the AOF, when Redis keeps one), a
// note write makes four: the session's TTL and activity score at the lookup, the note, the entry.
const BATCH = `${NOW}
local last
local idle, prefix, size = ARGV[1], ARGV[2], tonumber(ARGV[3])
local idleMs = tonumber(idle)
local spare = idleMs + ${JOURNAL_SPARE_MS}
local out = {}
local i = 4
while i <= #ARGV do
  local op, guid = ARGV[i], ARGV[i + 1]
  local key = prefix .. 's:' .. guid
  if op == 't' then
    local v = redis.call('HMGET', key, 't', 'n', 'p', 'k', 'a')
    if not v[1] then
      out[#out + 1] = false
    else
      if v[4] ~= '1' then
        redis.call('PEXPIRE', key, idle)
        -- Even with no journal here (JOURNAL_SIZE=0): another instance may keep one.
        local journal = prefix .. 'j:' .. guid
        local left = redis.call('PTTL', journal)
        if left ~= -2 and left < idleMs then redis.call('PEXPIRE', journal, spare) end
        last = activity(KEYS[1], last)
        redis.call('ZADD', KEYS[1], string.format('%.0f', last), guid)
      end
      out[#out + 1] = v
    end
    i = i + 2
  elseif op == 'n' then
    local p = redis.call('HGET', key, 'p')
    if not p then
      out[#out + 1] = false
    else
      if ARGV[i + 3] ~= '0' then
        redis.call('HSET', key, 'n', ARGV[i + 2], 'p', bit.bor(tonumber(p), tonumber(ARGV[i + 3])))
      else
        redis.call('HSET', key, 'n', ARGV[i + 2])
      end
      out[#out + 1] = 1
    end
    i = i + 4
  elseif op == 'p' then
    local p = redis.call('HGET', key, 'p')
    if p then redis.call('HSET', key, 'p', bit.bor(tonumber(p), tonumber(ARGV[i + 2]))) end
    out[#out + 1] = 0
    i = i + 3
  elseif op == 'r' then
    local ttl = redis.call('PTTL', key)
    if ttl == -2 then
      out[#out + 1] = 0
    else
      local journal = prefix .. 'j:' .. guid
      local length = redis.call('LPUSH', journal, ARGV[i + 2])
      if length > size + math.ceil(size / 4) then redis.call('LTRIM', journal, 0, size - 1) end
      -- A new list takes the session's TTL and the spare; after that, lookups and restores renew it.
      if length == 1 and ttl > 0 then redis.call('PEXPIRE', journal, ttl + ${JOURNAL_SPARE_MS}) end
      out[#out + 1] = 1
    end
    i = i + 3
  else
    return redis.error_reply('unknown call ' .. tostring(op))
  end
end
return out`

type Found = [string, string, string, string | null, string | null]

/** A call in a batch: its promise's ends, and whether it resolves once sent (see #call). */
interface Caller { resolve: (result: unknown) => void, reject: (error: unknown) => void, sent: boolean }

interface Scripts {
  batch (lru: string, idleMs: number, prefix: string, journalSize: number, ...calls: Array<string | number>): Promise<Array<Found | number | null>>
  put (hash: string, lru: string, journal: string, guid: string, token: string, note: string, progress: number,
    idleMs: number, max: number, pinned: string, prefix: string, onlyNew: string, name: string): Promise<number>
  setName (hash: string, name: string): Promise<Found | null>
  list (lru: string, idleMs: number, limit: number, afterScore: string, afterGuid: string, prefix: string): Promise<Array<string | number>>
  counts (lru: string, idleMs: number, activeMs: number): Promise<[number, number]>
  progress (lru: string, from: number, to: number, prefix: string): Promise<string[]>
  journal (hash: string, journal: string, size: number): Promise<string[] | null>
  probe (): Promise<number>
  countCreation (key: string, windowMs: number): Promise<[number, number]>
}

/** A Redis-store cursor: `r`, the activity score and the guid of the last session of the page before. */
const REDIS_CURSOR = /^r(\d{1,17}):([0-9a-f-]{36})$/
/** Sessions read per script by summary(). */
const SUMMARY_SLICE = 1000

function recordOf (guid: string, [token, note, progress, , name]: Found): ChallengerRecord {
  return { guid, token, note, progress: Number(progress), name: name ?? undefined }
}

const timedOut = (error: unknown): boolean => /timed out/i.test((error as Error).message)

export class RedisStore implements ChallengerStore {
  readonly client: Redis
  readonly description: string
  readonly #prefix: string
  readonly #idleMs: number
  readonly #maxSessions: number
  readonly #journalSize: number
  /** How long a command, or a connection attempt, may take. */
  readonly #timeoutMs: number
  /** Where Redis is (host:port), without credentials: for log lines. */
  readonly address: string
  readonly #probeIntervalMs: number
  readonly #probeTimeoutMs: number

  constructor (options: RedisStoreOptions) {
    this.#prefix = options.prefix
    this.#idleMs = options.idleMs
    this.#maxSessions = options.maxSessions
    this.#journalSize = options.journalSize ?? 20
    const timeout = options.commandTimeoutMs ?? 1000
    this.#timeoutMs = timeout
    this.#probeIntervalMs = options.probeIntervalMs ?? 1000
    this.#probeTimeoutMs = Math.min(options.probeTimeoutMs ?? timeout, timeout)
    this.address = redisAddress(options.url)
    this.description = `Redis at ${this.address}`
    this.client = new Redis(options.url, {
      // Fail fast while Redis is away (the request gets 503) and reconnect on our own.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: timeout,
      connectTimeout: timeout,
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
      // The commands of concurrent requests go out together, one write and one read for a batch
      // rather than one each: under load, fewer system calls per request on both sides.
      enableAutoPipelining: true,
      // A batch is already all of a turn's calls: it goes out as soon as it is made, not a turn later.
      autoPipeliningIgnoredCommands: ['batch']
    })
    // A connection error is reported by the commands that fail, and by the status change it causes
    // (an unhandled 'error' would end the process). Every failed attempt repeats it: keep the last.
    this.client.on('error', (error: Error) => { this.#lastError = error.message })
    this.client.on('close', () => {
      this.#down('lost', this.#lastError ?? 'the connection closed')
    })
    this.client.on('ready', () => {
      this.#lastError = undefined
      // After a hang, connected is not yet answering: the probe decides.
      if (this.#responsive) this.#up()
      else this.probe()
    })
    this.client.defineCommand('batch', { numberOfKeys: 1, lua: BATCH })
    this.client.defineCommand('put', { numberOfKeys: 3, lua: PUT })
    this.client.defineCommand('setName', { numberOfKeys: 1, lua: SET_NAME })
    this.client.defineCommand('list', { numberOfKeys: 1, lua: LIST })
    this.client.defineCommand('counts', { numberOfKeys: 1, lua: COUNTS })
    this.client.defineCommand('progress', { numberOfKeys: 1, lua: PROGRESS })
    this.client.defineCommand('journal', { numberOfKeys: 2, lua: JOURNAL })
    this.client.defineCommand('probe', { numberOfKeys: 0, lua: PROBE })
    this.client.defineCommand('countCreation', { numberOfKeys: 1, lua: COUNT_CREATION })
    this.#scheduleProbe()
  }

  get #scripts (): Scripts {
    return this.client as unknown as Scripts
  }

  #key (guid: string): string {
    return `${this.#prefix}s:${guid}`
  }

  #journalKey (guid: string): string {
    return `${this.#prefix}j:${guid}`
  }

  // False after a command timed out on a connection that still looks fine (a Redis that hangs),
  // until a command (a probe, most likely) gets through again.
  #responsive = true
  #closing = false
  #lastError: string | undefined
  #state: 'starting' | 'up' | 'down' = 'starting'
  #outage: Outage = 'start'
  #status: StoreStatus | undefined
  readonly #listeners: Array<(status: StoreStatus) => void> = []
  #probeTimer: NodeJS.Timeout | undefined
  /** The probe under way; there is never a second. */
  #probing: Promise<void> | undefined
  /** The probe command Redis has not answered yet: it may outlive the probe that gave up on it. */
  #unanswered: Promise<void> | undefined

  /**
   * Calls `listener` once per change of availability (and at once with the current state, when
   * it is already known): for log lines, not for every request.
   */
  onStatus (listener: (status: StoreStatus) => void): void {
    this.#listeners.push(listener)
    if (this.#status !== undefined) listener(this.#status)
  }

  #report (status: StoreStatus): void {
    this.#status = status
    for (const listener of this.#listeners) listener(status)
  }

  #up (): void {
    if (this.#closing || this.#state === 'up') return
    this.#state = 'up'
    this.#report({ available: true, reason: UP[this.#outage] })
  }

  #down (outage: Outage, detail: string): void {
    if (this.#closing || this.#state === 'down') return
    // The first failure before Redis was ever reached is the one said at start.
    this.#outage = this.#state === 'starting' ? 'start' : outage
    this.#state = 'down'
    this.#report({ available: false, reason: `${DOWN[this.#outage]} (${detail})` })
  }

  #answered (): void {
    this.#responsive = true
    if (this.client.status === 'ready') this.#up()
  }

  #stalled (ms: number): void {
    this.#responsive = false
    this.#down('hang', `no answer within ${ms} ms`)
  }

  async #run<T> (command: () => Promise<T>): Promise<T> {
    try {
      const result = await command()
      this.#answered()
      return result
    } catch (error) {
      if (timedOut(error)) this.#stalled(this.#timeoutMs)
      throw new StoreUnavailableError(error)
    }
  }

  // The next probe starts an interval after the last one ended, so that probes never overlap.
  // The timer does not keep the process alive, and close() stops it.
  #scheduleProbe (): void {
    if (this.#closing) return
    this.#probeTimer = setTimeout(() => {
      this.probe().then(() => { this.#scheduleProbe() })
    }, this.#probeIntervalMs).unref()
  }

  /**
   * Asks Redis whether it runs scripts (see PROBE), or joins the probe already under way;
   * resolves either way, once answered or after the probe timeout.
   */
  async probe (): Promise<void> {
    this.#probing ??= this.#probeOnce().finally(() => { this.#probing = undefined })
    await this.#probing
  }

  async #probeOnce (): Promise<void> {
    // Not connected: the connection's own events tell, and a command would fail at once anyway.
    if (this.client.status !== 'ready') return
    // A probe command that Redis still holds is waited for again rather than joined by another, so
    // a long hang does not fill Redis's queue; its late answer is the sign that Redis is back.
    this.#unanswered ??= this.#scripts.probe().then(() => { this.#answered() }, (error: unknown) => {
      if (timedOut(error)) this.#stalled(this.#timeoutMs)
    }).finally(() => { this.#unanswered = undefined })
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<boolean>(resolve => { timer = setTimeout(resolve, this.#probeTimeoutMs, true).unref() })
    const gaveUp = await Promise.race([this.#unanswered.then(() => false), late])
    clearTimeout(timer)
    if (gaveUp) this.#stalled(this.#probeTimeoutMs)
  }

  /** Resolves once connected, or after the connect timeout (the store then answers 503 until Redis is there). */
  async connected (): Promise<void> {
    if (this.available()) return
    await new Promise<void>(resolve => {
      const done = (): void => { clearTimeout(timer); this.client.off('ready', done); resolve() }
      const timer = setTimeout(done, this.#timeoutMs)
      this.client.once('ready', done)
    })
  }

  /** Whether Redis is connected, ready and answering, as the last probe or command found it. No I/O. */
  available (): boolean {
    return this.client.status === 'ready' && this.#responsive
  }

  async #put (record: ChallengerRecord, pinned: boolean, onlyNew: boolean): Promise<number> {
    return await this.#run(() => this.#scripts.put(this.#key(record.guid), `${this.#prefix}lru`, this.#journalKey(record.guid), record.guid, record.token, record.note, record.progress, this.#idleMs, this.#maxSessions,
      pinned ? '1' : '0', this.#prefix, onlyNew ? '1' : '0', record.name ?? ''))
  }

  async create (name?: string): Promise<ChallengerRecord> {
    const record = { guid: newGuid(), token: newToken(), note: '', progress: 0, name }
    // A guid of 122 random bits is never taken; onlyNew makes sure of it all the same.
    await this.#put(record, false, true)
    return record
  }

  /** The calls of this turn of the event loop, and the callers waiting for their results. */
  #calls: Array<string | number> = []
  #waiting: Caller[] = []

  /**
   * Adds a call to this turn's batch (see BATCH). Resolves with its own result; or, `sent`, once the
   * batch has been written to Redis's connection, without waiting for Redis's answer (and never
   * rejects: what the call does may be lost with the batch).
   */
  #call<T> (sent: boolean, ...call: Array<string | number>): Promise<T> {
    if (this.#waiting.length === 0) setImmediate(this.#flush)
    for (const part of call) this.#calls.push(part)
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ resolve: resolve as (result: unknown) => void, reject, sent })
    })
  }

  readonly #flush = (): void => {
    const calls = this.#calls
    const waiting = this.#waiting
    this.#calls = []
    this.#waiting = []
    // The command is written to the connection before #run first awaits: the sent calls are out.
    this.#run(() => this.#scripts.batch(`${this.#prefix}lru`, this.#idleMs, this.#prefix, this.#journalSize, ...calls)).then(results => {
      for (let i = 0; i < waiting.length; i++) {
        const caller = waiting[i] as Caller
        if (!caller.sent) caller.resolve(results[i])
      }
    }, (error: unknown) => {
      for (const caller of waiting) if (!caller.sent) caller.reject(error)
    })
    for (const caller of waiting) if (caller.sent) caller.resolve(undefined)
  }

  async get (guid: string): Promise<ChallengerRecord | undefined> {
    const found = await this.#call<Found | null>(false, 't', guid)
    return found === null ? undefined : recordOf(guid, found)
  }

  async setName (guid: string, name: string | undefined): Promise<ChallengerRecord | undefined> {
    const found = await this.#run(() => this.#scripts.setName(this.#key(guid), name ?? ''))
    return found === null ? undefined : recordOf(guid, found)
  }

  async list (limit: number, cursor?: string): Promise<SessionPage> {
    let afterScore = ''
    let afterGuid = ''
    if (cursor !== undefined) {
      const parts = REDIS_CURSOR.exec(decodeCursor(cursor))
      if (parts === null) throw new BadCursorError()
      afterScore = parts[1] as string
      afterGuid = parts[2] as string
    }
    const rows = await this.#run(() => this.#scripts.list(`${this.#prefix}lru`, this.#idleMs, limit, afterScore, afterGuid, this.#prefix))
    const sessions: SessionSummary[] = []
    const scores: string[] = []
    for (let i = 1; i < rows.length; i += 5) {
      const [guid, name, made, score, progress] = rows.slice(i, i + 5) as [string, string, string, string, string]
      const lastSeen = Math.floor(Number(score) / PER_MS)
      // A session made before names and times were kept has no time of making: its last activity stands in.
      sessions.push({ guid, name: name === '' ? undefined : name, createdAt: made === '' ? lastSeen : Number(made), lastSeen, progress: Number(progress) })
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
    const [live, active] = await this.#run(() => this.#scripts.counts(`${this.#prefix}lru`, this.#idleMs, activeMs))
    return { live, active }
  }

  async summary (activeMs: number): Promise<ClassSummary> {
    const lru = `${this.#prefix}lru`
    const { live, active } = await this.counts(activeMs)
    const passedBy = new Array<number>(32).fill(0)
    // A slice of the index at a time, so that no one script holds Redis for long.
    for (let from = 0; from < live; from += SUMMARY_SLICE) {
      const slice = await this.#run(() => this.#scripts.progress(lru, from, from + SUMMARY_SLICE - 1, this.#prefix))
      for (const text of slice) {
        for (let bits = Number(text) | 0; bits !== 0; bits &= bits - 1) {
          const bit = 31 - Math.clz32(bits & -bits)
          passedBy[bit] = (passedBy[bit] as number) + 1
        }
      }
    }
    return { live, active, passedBy }
  }

  async setNote (guid: string, note: string, bits = 0): Promise<string | undefined> {
    return await this.#call<number | null>(false, 'n', guid, note, bits) === null ? undefined : note
  }

  async pass (guid: string, bits: number): Promise<void> {
    await this.#call(false, 'p', guid, bits)
  }

  /**
   * Resolves once the entry is on its way: written to Redis's connection, in this turn's batch, ahead
   * of anything the learner can ask any instance after the answer (which waits for this). Not for its
   * result: an entry lost with its batch fails nothing else.
   */
  async record (guid: string, entry: JournalEntry): Promise<void> {
    if (this.#journalSize === 0) return
    await this.#call(true, 'r', guid, encodeEntry(entry))
  }

  async journal (guid: string): Promise<JournalEntry[] | undefined> {
    const entries = await this.#run(() => this.#scripts.journal(this.#key(guid), this.#journalKey(guid), this.#journalSize))
    return entries?.map(decodeEntry)
  }

  async countCreation (client: string, windowMs: number): Promise<CreationCount> {
    const [count, msLeft] = await this.#run(() => this.#scripts.countCreation(`${this.#prefix}rate:${client}`, windowMs))
    return { count, msLeft }
  }

  async restore (record: ChallengerRecord, options: { pinned?: boolean, ifAbsent?: boolean } = {}): Promise<'replaced' | 'created'> {
    return await this.#put(record, options.pinned === true, options.ifAbsent === true) === 0 ? 'created' : 'replaced'
  }

  async close (): Promise<void> {
    // Closing is no outage: nothing more to report, and no more probes.
    this.#closing = true
    clearTimeout(this.#probeTimer)
    await this.client.quit().catch(() => this.client.disconnect())
  }
}
