// Sessions in Redis, so that several instances serve one class and a restart loses nobody.
// Every change is one Lua script, atomic in Redis and one round trip: no read-modify-write in Node.
// Keys, under a configurable prefix:
//   <prefix>s:<guid>  hash: t (token), n (note), p (progress bits), k ('1' when pinned)
//                     with a TTL of the idle time (none when pinned): Redis expires idle sessions
//   <prefix>lru       sorted set of guids by last activity, for the capacity limit
//   <prefix>seq       the activity counter that orders it
import { Redis } from 'ioredis'
import type { ChallengerRecord, ChallengerStore } from './store.js'
import { newGuid, newToken } from './store.js'

/** The store cannot be reached: the request is answered 503 and may be retried. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError'
  readonly statusCode = 503
  constructor (cause: unknown) {
    super('The session store is unavailable; try again shortly', { cause })
  }
}

export interface RedisStoreOptions {
  /** redis://host:port/db */
  url: string
  /** Put before every key, so that several deployments can share one Redis. */
  prefix: string
  idleMs: number
  maxSessions: number
  /** How long a command may take before the request is answered 503. Default 1000 ms. */
  commandTimeoutMs?: number
}

const TOUCH = `
local v = redis.call('HMGET', KEYS[1], 't', 'n', 'p', 'k')
if not v[1] then return nil end
if v[4] ~= '1' then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[1])
end
return v`

const PUT = `
local live = redis.call('EXISTS', KEYS[1]) == 1
local pinned = ARGV[7] == '1' or (live and redis.call('HGET', KEYS[1], 'k') == '1')
if ARGV[9] == '1' and live then return -1 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 't', ARGV[2], 'n', ARGV[3], 'p', ARGV[4], 'k', pinned and '1' or '0')
if pinned then
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  if not live then
    -- An expired session being restored may still be listed: it must not evict itself.
    redis.call('ZREM', KEYS[2], ARGV[1])
    while redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) do
      local oldest = redis.call('ZPOPMIN', KEYS[2])
      redis.call('DEL', ARGV[8] .. 's:' .. oldest[1])
    end
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[1])
end
if live then return 1 end
return 0`

const SET_NOTE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
redis.call('HSET', KEYS[1], 'n', ARGV[1])
return ARGV[1]`

const PASS = `
local p = redis.call('HGET', KEYS[1], 'p')
if p then redis.call('HSET', KEYS[1], 'p', bit.bor(tonumber(p), tonumber(ARGV[1]))) end
return 0`

interface Scripts {
  touch (hash: string, lru: string, seq: string, guid: string, idleMs: number): Promise<[string, string, string, string] | null>
  put (hash: string, lru: string, seq: string, guid: string, token: string, note: string, progress: number,
    idleMs: number, max: number, pinned: string, prefix: string, onlyNew: string): Promise<number>
  setNote (hash: string, note: string): Promise<string | null>
  pass (hash: string, bits: number): Promise<number>
}

export class RedisStore implements ChallengerStore {
  /** The connection, shared with the creation rate limit so that its counts hold across instances. */
  readonly client: Redis
  readonly #prefix: string
  readonly #idleMs: number
  readonly #maxSessions: number
  readonly #connectTimeout: number

  constructor (options: RedisStoreOptions) {
    this.#prefix = options.prefix
    this.#idleMs = options.idleMs
    this.#maxSessions = options.maxSessions
    const timeout = options.commandTimeoutMs ?? 1000
    this.#connectTimeout = timeout
    this.client = new Redis(options.url, {
      // Fail fast while Redis is away (the request gets 503) and reconnect on our own.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: timeout,
      connectTimeout: timeout,
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000)
    })
    // A connection error is reported by the commands that fail; an unhandled 'error' would end the process.
    this.client.on('error', () => {})
    this.client.defineCommand('touch', { numberOfKeys: 3, lua: TOUCH })
    this.client.defineCommand('put', { numberOfKeys: 3, lua: PUT })
    this.client.defineCommand('setNote', { numberOfKeys: 1, lua: SET_NOTE })
    this.client.defineCommand('pass', { numberOfKeys: 1, lua: PASS })
  }

  get #scripts (): Scripts {
    return this.client as unknown as Scripts
  }

  #key (guid: string): string {
    return `${this.#prefix}s:${guid}`
  }

  // False after a command timed out on a connection that still looks fine (a Redis that hangs),
  // until a PING gets through again.
  #responsive = true
  #probing: Promise<void> = Promise.resolve()

  async #run<T> (command: () => Promise<T>): Promise<T> {
    try {
      const result = await command()
      this.#responsive = true
      return result
    } catch (error) {
      if (/timed out/i.test((error as Error).message)) this.#responsive = false
      throw new StoreUnavailableError(error)
    }
  }

  /**
   * Asks Redis whether it runs scripts again (a PING would pass where writes hang), after any probe
   * already under way; resolves either way.
   */
  async probe (): Promise<void> {
    await this.#probing
    if (this.#responsive) return
    this.#probing = this.get('probe').then(() => {}, () => {})
    await this.#probing
  }

  /** Resolves once connected, or after the connect timeout (the store then answers 503 until Redis is there). */
  async connected (): Promise<void> {
    if (this.available()) return
    await new Promise<void>(resolve => {
      const done = (): void => { clearTimeout(timer); this.client.off('ready', done); resolve() }
      const timer = setTimeout(done, this.#connectTimeout)
      this.client.once('ready', done)
    })
  }

  /** Whether Redis is connected, ready and answering. While it is not answering, each call sends a probe. */
  available (): boolean {
    if (this.client.status !== 'ready') return false
    if (!this.#responsive) this.probe().catch(() => {})
    return this.#responsive
  }

  async #put (record: ChallengerRecord, pinned: boolean, onlyNew: boolean): Promise<number> {
    return await this.#run(() => this.#scripts.put(this.#key(record.guid), `${this.#prefix}lru`, `${this.#prefix}seq`,
      record.guid, record.token, record.note, record.progress, this.#idleMs, this.#maxSessions,
      pinned ? '1' : '0', this.#prefix, onlyNew ? '1' : '0'))
  }

  async create (): Promise<ChallengerRecord> {
    const record = { guid: newGuid(), token: newToken(), note: '', progress: 0 }
    // A guid of 122 random bits is never taken; onlyNew makes sure of it all the same.
    await this.#put(record, false, true)
    return record
  }

  async get (guid: string): Promise<ChallengerRecord | undefined> {
    const found = await this.#run(() => this.#scripts.touch(this.#key(guid), `${this.#prefix}lru`, `${this.#prefix}seq`, guid, this.#idleMs))
    if (found === null) return undefined
    const [token, note, progress] = found
    return { guid, token, note, progress: Number(progress) }
  }

  async setNote (guid: string, note: string): Promise<string | undefined> {
    return (await this.#run(() => this.#scripts.setNote(this.#key(guid), note))) ?? undefined
  }

  async pass (guid: string, bits: number): Promise<void> {
    await this.#run(() => this.#scripts.pass(this.#key(guid), bits))
  }

  async restore (record: ChallengerRecord, options: { pinned?: boolean, ifAbsent?: boolean } = {}): Promise<'replaced' | 'created'> {
    return await this.#put(record, options.pinned === true, options.ifAbsent === true) === 0 ? 'created' : 'replaced'
  }

  async close (): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect())
  }
}
