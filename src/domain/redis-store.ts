// Sessions in Redis, so that several instances serve one class and a restart loses nobody.
// Every change is one Lua script, atomic in Redis and one round trip: no read-modify-write in Node.
// Keys, under a configurable prefix:
//   <prefix>sessions  hash: a session's id (below) -> its fields packed in one string (see SESSION):
//                     progress bits, pinned, made at (ms since 1970), token, the learner's name, note.
//                     One hash for every session, with no TTL of its own: a key per session (its
//                     name, its entry in the key space, its TTL) cost more than the session itself
//   <prefix>lru       sorted set of ids by last activity, and so the sessions' expiry: an unpinned
//                     session idle past the idle time is gone (every script treats it so), and is
//                     removed at the next sweep (a few per creation, up to a hundred per probe and per
//                     board read) or the next time its id is looked up. The score is Redis's own clock
//                     in ms (one clock for every instance) times 1024, made larger than the highest in
//                     it and in <prefix>new, so that no two entries tie. A pinned session is not in it:
//                     it never expires
//   <prefix>new       the same for the sessions no request has named since they were made (their last
//                     activity is their making): a session is in one of the two, and moves to lru at
//                     its first lookup. At capacity the oldest here makes room before any in lru, so
//                     strangers' unused sessions never push out a learner at work
//   <prefix>j:<id>    list: the session's journal, newest first, read up to the journal's size and
//                     trimmed to it once a quarter over (one trim per few entries, not one each);
//                     its TTL is its session's plus up to a minute (JOURNAL_SPARE_MS), renewed by a
//                     lookup only once it falls below the idle time (one TTL write a minute, not one
//                     per request): it is never read without its session, goes with it, and a
//                     session made again under its guid (a restore after expiry) starts without it
//   <prefix>rate:<client>  the sessions a client address made in its current window (countCreation),
//                     with the window's TTL: every instance counts in the same place; the wrong admin
//                     tokens of an address are counted as <prefix>rate:admin:<client>
// A session's id is its guid in 22 characters: the 128 bits of a UUID in an alphabet sorted as Redis
// sorts bytes, so that ids sort as their guids do (sessionId); any other guid is '=' and itself.
// Sessions of the layout before (a hash <prefix>s:<guid> each, with a TTL, indexed by guid, and a
// journal <prefix>j:<guid>) are moved to this one the first time they are looked up, and are shown on
// the board until then; a <prefix>seq key, where older versions kept the last score, is not read.
// The calls every request makes (the lookup, the note write, the challenge bit, the journal entry)
// are gathered for one turn of the event loop and sent as one script (BATCH): under load, one
// command for all the requests read in that turn, where each call was a command of its own. Each
// call's result is its own; a batch that fails (Redis away, or too slow) fails each of its calls.
// A probe about every second tells whether Redis still answers, so that the heartbeat says 503
// within about 2 s of a hang even when no request runs into it, and 204 again once it is over.
// No write goes past Redis's maxmemory: every script starts with a shebang (Redis 7), so that Redis
// refuses it up front while memory is over the limit (the request is answered 503), unless it only
// reads (flags=no-writes) or only reads and deletes (flags=allow-oom: the sweeps, which free memory).
// Without a shebang Redis checks a script's memory only at its first write, and a script whose first
// write was a delete (a creation's, of a journal that is not there) could then write past the limit.
import { Redis } from 'ioredis'
import { decodeEntry, encodeEntry, type JournalEntry } from './journal.js'
import type { ChallengerRecord, ChallengerStore, ClassSummary, CreationCount, CreationLimit, SessionPage, SessionSummary, StoreStatus } from './store.js'
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

type Outage = 'start' | 'lost' | 'hang' | 'old'
const DOWN: Record<Outage, string> = { start: 'cannot be reached', lost: 'is unreachable', hang: 'stopped answering', old: 'cannot run this service\'s scripts' }
const UP: Record<Outage, string> = { start: 'connected', lost: 'connected again', hang: 'answers again', old: 'connected' }
/** The oldest Redis the scripts run on: their shebang and flags (see the header) came with 7.0. */
const OLDEST_REDIS = 7

// The probe is a script, not a PING. Under `CLIENT PAUSE … WRITE` (what FAILOVER does, for one)
// Redis still answers PING while every script of this store waits; under `CLIENT PAUSE` (ALL)
// everything waits. Redis treats a script without the no-writes flag as one that may write, so it
// holds this one exactly when it would hold the session scripts: the probe hangs in both cases.
// It also sweeps expired sessions, so that they go within seconds of their expiry without traffic.

/** How many activity scores a millisecond has (see <prefix>lru). */
const PER_MS = 1024
/**
 * How much longer than its session a journal may live (see <prefix>j:): a lookup renews the
 * journal's TTL to the idle time plus this once it has fallen below the idle time.
 */
export const JOURNAL_SPARE_MS = 60_000
/** Expired sessions removed by a creation, and by a probe or a board read (see <prefix>lru). */
const SWEEP_ON_CREATE = 2
const SWEEP_ON_READ = 100

// Every script but the rate count starts with this. KEYS[1] the activity index, KEYS[2] the sessions,
// KEYS[3] the unused sessions' index; ARGV[1] the idle time, ARGV[2] the key prefix.
// Now, in milliseconds, by Redis's clock (scripts may read it since Redis 5: their effects are
// replicated, not the script), and the activity score of a touch now (see <prefix>lru). Scores
// stay below 2^53, exact in a double; %.0f keeps Lua from writing them with an exponent. Reading
// the highest score, rather than keeping the last one given in a key of its own, spares a write
// (and its line in the AOF) per script. A session whose score is below `cutoff` is expired.
//
// A session packed: 'progress pinned made tokenLength nameLength ' then the token, the name and the
// note, which may hold any character (a name of length 0 is none; made is '' for a session made
// before times were kept). 64 bytes of Redis memory for a session with no name and no note.
const SESSION = `
local lru, sessions, fresh = KEYS[1], KEYS[2], KEYS[3]
local idleMs, prefix = tonumber(ARGV[1]), ARGV[2]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local cutoff = (now - idleMs) * ${PER_MS}
local function score (n) return string.format('%.0f', n) end
local function highest (index)
  return tonumber(redis.call('ZREVRANGE', index, 0, 0, 'WITHSCORES')[2] or '0')
end
local function activity (last)
  if not last then last = math.max(highest(lru), highest(fresh)) end
  return math.max(now * ${PER_MS}, last + 1)
end
local function decode (v)
  local p, k, c, tl, al, rest = string.match(v, '^(-?%d+) (%d) (%d*) (%d+) (%d+) (.*)$')
  tl, al = tonumber(tl), tonumber(al)
  return { p = p, k = k, c = c, t = string.sub(rest, 1, tl), a = string.sub(rest, tl + 1, tl + al), n = string.sub(rest, tl + al + 1) }
end
local function encode (s)
  return s.p .. ' ' .. s.k .. ' ' .. s.c .. ' ' .. #s.t .. ' ' .. #s.a .. ' ' .. s.t .. s.a .. s.n
end
-- What a lookup answers: token, note, progress, pinned, name (nil for none).
local function found (s)
  return { s.t, s.n, s.p, s.k, s.a ~= '' and s.a or false }
end
-- A session gone: its entry, its journal, and (a member of the layout before) its own key.
local function drop (id)
  redis.call('HDEL', sessions, id)
  redis.call('ZREM', lru, id)
  redis.call('ZREM', fresh, id)
  redis.call('DEL', prefix .. 'j:' .. id)
  if #id == 36 then redis.call('DEL', prefix .. 's:' .. id) end
end
local function sweep (limit)
  for _, index in ipairs({ lru, fresh }) do
    for _, id in ipairs(redis.call('ZRANGEBYSCORE', index, '-inf', '(' .. score(cutoff), 'LIMIT', 0, limit)) do drop(id) end
  end
end
-- The live session of an id, unpacked, with its score (none when pinned) and whether it is unused
-- (in fresh); nil, and dropped, when expired.
local function load (id)
  local v = redis.call('HGET', sessions, id)
  if not v then return nil end
  local s = decode(v)
  if s.k ~= '1' then
    local at = redis.call('ZSCORE', lru, id)
    if not at then
      at = redis.call('ZSCORE', fresh, id)
      s.fresh = at ~= false
    end
    s.score = tonumber(at or '0')
    if s.score < cutoff then
      drop(id)
      return nil
    end
  end
  return s
end
-- A session of the layout before, moved to this one (its last activity kept): true when there was one.
local function migrate (guid, id)
  local old = prefix .. 's:' .. guid
  local f = redis.call('HMGET', old, 't', 'n', 'p', 'k', 'a', 'c')
  if not f[1] then return false end
  local left = redis.call('PTTL', old)
  redis.call('DEL', old)
  redis.call('ZREM', lru, guid)
  local pinned = f[4] == '1'
  redis.call('HSET', sessions, id, encode({ p = f[3] or '0', k = pinned and '1' or '0', c = f[6] or '', t = f[1], a = f[5] or '', n = f[2] or '' }))
  if not pinned then
    local last = left > 0 and now - idleMs + left or now
    redis.call('ZADD', lru, score(last * ${PER_MS}), id)
  end
  if redis.call('EXISTS', prefix .. 'j:' .. guid) == 1 then redis.call('RENAME', prefix .. 'j:' .. guid, prefix .. 'j:' .. id) end
  return true
end
-- A session by id, moved from the layout before if it is there.
local function find (guid, id)
  local s = load(id)
  if s == nil and migrate(guid, id) then s = load(id) end
  return s
end
`

const PROBE = `${SESSION}
sweep(${SWEEP_ON_READ})
return 1`

// One more creation in a client's window (a key of its own, with the window's TTL), which the first one
// opens: the count and the window's time left. (The keys and counts are @fastify/rate-limit's Redis
// store's, which counted here before.)
const COUNT = `
local function count (key, window)
  local n = redis.call('INCR', key)
  local left = redis.call('PTTL', key)
  if n == 1 or left < 0 then
    redis.call('PEXPIRE', key, window)
    left = tonumber(window)
  end
  return n, left
end`

// ARGV[3] the guid, ARGV[4] its id, ARGV[5] token, ARGV[6] note, ARGV[7] progress, ARGV[8] the most
// sessions, ARGV[9] '1' to pin, ARGV[10] '1' to refuse a live one (-1), ARGV[11] the name; ARGV[12]
// a client's count to add one to ('' for none), ARGV[13] its window, ARGV[14] the most it may reach.
// 1 when it replaced a live session, 0 when it made one, {-2, the window's time left} when the
// client's count went over (nothing else done).
const PUT = `${SESSION}${COUNT}
if ARGV[12] ~= '' then
  local n, left = count(ARGV[12], ARGV[13])
  if n > tonumber(ARGV[14]) then return { -2, left } end
end
sweep(${SWEEP_ON_CREATE})
-- Room for one more: an expired session, else the oldest unused one, else the least recently used.
local function evict ()
  local oldest = redis.call('ZRANGE', lru, 0, 0, 'WITHSCORES')
  if oldest[1] and tonumber(oldest[2]) < cutoff then return drop(oldest[1]) end
  drop(redis.call('ZRANGE', fresh, 0, 0)[1] or oldest[1])
end
local id = ARGV[4]
local s = find(ARGV[3], id)
local live = s ~= nil
local pinned = ARGV[9] == '1' or (live and s.k == '1')
if ARGV[10] == '1' and live then return -1 end
-- A restored live session keeps when it began (and its journal); a journal outliving its session is no one's.
local journal = prefix .. 'j:' .. id
if not live then redis.call('DEL', journal) end
redis.call('HSET', sessions, id, encode({ p = ARGV[7], k = pinned and '1' or '0', c = live and s.c or score(now), t = ARGV[5], a = ARGV[11], n = ARGV[6] }))
if pinned then
  redis.call('ZREM', lru, id)
  redis.call('ZREM', fresh, id)
  redis.call('PERSIST', journal)
else
  if not live then
    -- A session gone but still listed must not evict itself.
    redis.call('ZREM', lru, id)
    redis.call('ZREM', fresh, id)
    while redis.call('ZCARD', lru) + redis.call('ZCARD', fresh) >= tonumber(ARGV[8]) do evict() end
  end
  redis.call('PEXPIRE', journal, idleMs + ${JOURNAL_SPARE_MS})
  -- A session made (or made again) is unused; a live one restored was named by the request.
  local at = score(activity())
  if live then
    if s.fresh then redis.call('ZREM', fresh, id) end
    redis.call('ZADD', lru, at, id)
  else
    redis.call('ZADD', fresh, at, id)
  end
end
if live then return 1 end
return 0`

// ARGV[3] the guid, ARGV[4] its id, ARGV[5] the journal's size: a list may hold up to a quarter more until its next trim.
const JOURNAL = `${SESSION}
if find(ARGV[3], ARGV[4]) == nil then return false end
if ARGV[5] == '0' then return {} end
return redis.call('LRANGE', prefix .. 'j:' .. ARGV[4], 0, tonumber(ARGV[5]) - 1)`

// ARGV[3] the guid, ARGV[4] its id, ARGV[5] the name ('' clears it); the session as it is then, as
// the lookup (t in BATCH) gives it, without touching it.
const SET_NAME = `${SESSION}
local s = find(ARGV[3], ARGV[4])
if s == nil then return nil end
s.a = ARGV[5]
redis.call('HSET', sessions, ARGV[4], encode(s))
return found(s)`

// ARGV[3] the guid, ARGV[4] its id: 1 when a session of the layout before was moved, for a lookup to try again.
const MIGRATE = `${SESSION}
if redis.call('HEXISTS', sessions, ARGV[4]) == 0 and migrate(ARGV[3], ARGV[4]) then return 1 end
return 0`

// One page of the board, newest activity first, from the cursor (its score and id; '' for the first
// page): id, name, made at, last seen, progress for each session, and the live count first. The two
// indexes (lru, fresh) are read side by side and merged. Among equal scores Redis orders by id
// (bytes), so those at the cursor's score up to its id were on the page before (compared byte by
// byte: Lua's < follows the locale). limit + 1 rows are read to know whether there is a page after.
// A session of the layout before is read where it is.
const LIST = `${SESSION}
sweep(${SWEEP_ON_READ})
local limit = tonumber(ARGV[3])
local after, afterId = ARGV[4], ARGV[5]
local function above (id, other)
  for i = 1, math.max(#id, #other) do
    local a, b = string.byte(id, i) or -1, string.byte(other, i) or -1
    if a ~= b then return a > b end
  end
  return false
end
local floor = score(cutoff)
local rows = { redis.call('ZCOUNT', lru, floor, '+inf') + redis.call('ZCOUNT', fresh, floor, '+inf') }
-- An index's live entries after the cursor, newest first, limit + 1 at a time: the next id and its score, or nil.
local function reader (index)
  local batch, i, offset = {}, 1, 0
  return function ()
    while true do
      if i > #batch then
        batch = redis.call('ZREVRANGEBYSCORE', index, after == '' and '+inf' or after, floor, 'WITHSCORES', 'LIMIT', offset, limit + 1)
        if #batch == 0 then return nil end
        offset = offset + #batch / 2
        i = 1
      end
      local id, at = batch[i], batch[i + 1]
      i = i + 2
      if at ~= after or above(afterId, id) then return id, at end
    end
  end
end
local nextUsed, nextFresh = reader(lru), reader(fresh)
local u, uAt = nextUsed()
local f, fAt = nextFresh()
local count = 0
while count <= limit and (u or f) do
  local id, at
  if not f or (u and (tonumber(uAt) > tonumber(fAt) or (uAt == fAt and above(u, f)))) then
    id, at = u, uAt
    u, uAt = nextUsed()
  else
    id, at = f, fAt
    f, fAt = nextFresh()
  end
  local v = redis.call('HGET', sessions, id)
  local a, c, p
  if v then
    local s = decode(v)
    a, c, p = s.a, s.c, s.p
  else
    local old = redis.call('HMGET', prefix .. 's:' .. id, 'a', 'c', 'p')
    a, c, p = old[1] or '', old[2] or '', old[3]
  end
  if p then
    count = count + 1
    rows[#rows + 1] = id
    rows[#rows + 1] = a
    rows[#rows + 1] = c
    rows[#rows + 1] = at
    rows[#rows + 1] = p
  end
end
return rows`

// The live count, the count active within ARGV[3] ms, and of the live ones those in lru (the used).
const COUNTS = `${SESSION}
sweep(${SWEEP_ON_READ})
local floor, active = score(cutoff), score((now - tonumber(ARGV[3])) * ${PER_MS})
local used = redis.call('ZCOUNT', lru, floor, '+inf')
return { used + redis.call('ZCOUNT', fresh, floor, '+inf'), redis.call('ZCOUNT', lru, active, '+inf') + redis.call('ZCOUNT', fresh, active, '+inf'), used }`

// The progress of the sessions ranked ARGV[3] to ARGV[4] in the index KEYS[1] (lru or fresh), newest
// first (a slice of the live ones, which rank above the expired).
const PROGRESS = `
local out = {}
for _, id in ipairs(redis.call('ZREVRANGE', KEYS[1], ARGV[3], ARGV[4])) do
  local v = redis.call('HGET', KEYS[2], id)
  out[#out + 1] = v and string.match(v, '^(-?%d+)') or redis.call('HGET', ARGV[2] .. 's:' .. id, 'p') or '0'
end
return out`

// One more creation in the client's window (see COUNT).
const COUNT_CREATION = `${COUNT}
local n, left = count(KEYS[1], ARGV[1])
return { n, left }`

// The client's count and its window's time left, read (0 and 0 without a window).
const PEEK_COUNT = `
local left = redis.call('PTTL', KEYS[1])
if left == -2 then return { 0, 0 } end
return { tonumber(redis.call('GET', KEYS[1])), math.max(left, 0) }`

/**
 * A script as Redis 7 should run it (see the header): `flags` no-writes for one that only reads,
 * allow-oom for one that only reads and deletes, none for one that may add to Redis's memory.
 */
function script (lua: string, flags?: 'no-writes' | 'allow-oom'): string {
  return `#!lua${flags === undefined ? '' : ` flags=${flags}`}\n${lua}`
}

// Many calls in one script: ARGV[3] the journal's size, then each call as its letter and its
// arguments, a session by its id (22 characters rather than its keys):
//   t id           the lookup: the session's t, n, p, k, a (false when there is none); an unpinned
//                  session's activity score moves up (and so its expiry), and its journal's TTL
//                  starts again once it is below the idle time (see <prefix>j:)
//   n id note bits  the note and, in the same step, the challenge it passes (bits, 0 for none):
//                  1, or false when there is no session
//   w id token note bits  t, and n when the token is the session's (by Lua's string equality: strings are
//                  interned, so it compares two references, not the token's characters one by one):
//                  1 or 0 (written or not) then what t gives, or false when there is no session
//   p id bits      a challenge passed: 0
//   r id entry     a journal entry, kept only while the session lives and for as long as it does (see
//                  <prefix>j:): 1, or 0 when the session has gone
// One result per call, in order. Of the writes (each a line in the AOF, when Redis keeps one), a
// note write makes three: the activity score at the lookup, the note, the entry. A session is read
// once per script however many of its calls are in it.
const BATCH = `${SESSION}
local size = tonumber(ARGV[3])
local spare = idleMs + ${JOURNAL_SPARE_MS}
local last
local seen = {}
local function get (id)
  local s = seen[id]
  if s == nil then
    s = load(id) or false
    seen[id] = s
  end
  return s
end
-- The lookup's activity: an unpinned session's score moves up, its journal's TTL is renewed when low.
local function touch (id, s)
  if s.k == '1' then return end
  -- Even with no journal here (JOURNAL_SIZE=0): another instance may keep one.
  local journal = prefix .. 'j:' .. id
  local left = redis.call('PTTL', journal)
  if left ~= -2 and left < idleMs then redis.call('PEXPIRE', journal, spare) end
  last = activity(last)
  s.score = last
  -- Its first lookup: it is used from now on.
  if s.fresh then
    redis.call('ZREM', fresh, id)
    s.fresh = false
  end
  redis.call('ZADD', lru, score(last), id)
end
local function write (id, s, note, bits)
  s.n = note
  if bits ~= '0' then s.p = tostring(bit.bor(tonumber(s.p), tonumber(bits))) end
  redis.call('HSET', sessions, id, encode(s))
end
local out = {}
local i = 4
while i <= #ARGV do
  local op, id = ARGV[i], ARGV[i + 1]
  local s = get(id)
  if op == 't' then
    if not s then
      out[#out + 1] = false
    else
      touch(id, s)
      out[#out + 1] = found(s)
    end
    i = i + 2
  elseif op == 'w' then
    if not s then
      out[#out + 1] = false
    else
      touch(id, s)
      local was = found(s)
      local written = s.t == ARGV[i + 2]
      if written then write(id, s, ARGV[i + 3], ARGV[i + 4]) end
      table.insert(was, 1, written and 1 or 0)
      out[#out + 1] = was
    end
    i = i + 5
  elseif op == 'n' then
    if not s then
      out[#out + 1] = false
    else
      write(id, s, ARGV[i + 2], ARGV[i + 3])
      out[#out + 1] = 1
    end
    i = i + 4
  elseif op == 'p' then
    if s then
      s.p = tostring(bit.bor(tonumber(s.p), tonumber(ARGV[i + 2])))
      redis.call('HSET', sessions, id, encode(s))
    end
    out[#out + 1] = 0
    i = i + 3
  elseif op == 'r' then
    if not s then
      out[#out + 1] = 0
    else
      local journal = prefix .. 'j:' .. id
      local length = redis.call('LPUSH', journal, ARGV[i + 2])
      if length > size + math.ceil(size / 4) then redis.call('LTRIM', journal, 0, size - 1) end
      -- A new list takes its session's time left and the spare; after that, lookups and restores renew it.
      if length == 1 and s.k ~= '1' then
        redis.call('PEXPIRE', journal, math.max(1, math.floor(s.score / ${PER_MS}) + spare - now))
      end
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

// Every script but the counts takes the activity index, the sessions, the unused sessions' index, the idle time and the prefix first.
type Common = [lru: string, sessions: string, fresh: string, idleMs: number, prefix: string]

interface Scripts {
  batch (...args: [...Common, journalSize: number, ...calls: Array<string | number>]): Promise<Array<Found | number | null>>
  put (...args: [...Common, guid: string, id: string, token: string, note: string, progress: number, max: number, pinned: string, onlyNew: string, name: string,
    counted: string, windowMs: number, most: number]): Promise<number | [number, number]>
  setName (...args: [...Common, guid: string, id: string, name: string]): Promise<Found | null>
  migrate (...args: [...Common, guid: string, id: string]): Promise<number>
  list (...args: [...Common, limit: number, afterScore: string, afterId: string]): Promise<Array<string | number>>
  counts (...args: [...Common, activeMs: number]): Promise<[live: number, active: number, used: number]>
  progress (...args: [...Common, from: number, to: number]): Promise<string[]>
  journal (...args: [...Common, guid: string, id: string, size: number]): Promise<string[] | null>
  probe (...args: Common): Promise<number>
  countCreation (key: string, windowMs: number): Promise<[number, number]>
  peekCount (key: string): Promise<[number, number]>
}

/** The 64 characters of base64url, in the order Redis sorts bytes: ids sort as their guids do. */
const SORTED64 = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz'
const SORTED64_VALUE = new Map([...SORTED64].map((char, value) => [char, value]))
/** The two characters of each 12-bit value. */
const PAIRS = Array.from({ length: 4096 }, (_, bits) => (SORTED64[bits >> 6] as string) + (SORTED64[bits & 63] as string))
/** Each character's hex digit (0-15) in a lowercase UUID, -2 for its dashes, -1 for anything else. */
const DIGIT = new Int8Array(128).fill(-1)
for (let code = 0x30; code <= 0x39; code++) DIGIT[code] = code - 0x30
for (let code = 0x61; code <= 0x66; code++) DIGIT[code] = code - 0x57
DIGIT[0x2d] = -2

/**
 * A session's id in Redis: a lowercase UUID's 128 bits in 22 characters of SORTED64, three hex
 * digits to two characters (the last two digits padded); any other guid, '=' and itself.
 */
export function sessionId (guid: string): string {
  if (guid.length !== 36) return `=${guid}`
  let id = ''
  let bits = 0
  let digits = 0
  for (let i = 0; i < 36; i++) {
    const code = guid.charCodeAt(i)
    const digit = code < 128 ? DIGIT[code] as number : -1
    // Dashes where a UUID has them, and only there.
    if ((digit === -2) !== (i === 8 || i === 13 || i === 18 || i === 23) || digit === -1) return `=${guid}`
    if (digit === -2) continue
    bits = (bits << 4) | digit
    if (++digits === 3) {
      id += PAIRS[bits] as string
      bits = 0
      digits = 0
    }
  }
  return id + (PAIRS[bits << 4] as string)
}

/** The guid of an id (see sessionId); a member of the index of the layout before is its guid already. */
export function guidOf (id: string): string {
  if (id.startsWith('=')) return id.slice(1)
  if (id.length !== 22) return id
  let hex = ''
  for (let i = 0; i < 22; i += 2) {
    const bits = ((SORTED64_VALUE.get(id[i] as string) as number) << 6) | (SORTED64_VALUE.get(id[i + 1] as string) as number)
    hex += bits.toString(16).padStart(3, '0')
  }
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
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
      this.#tooOld = undefined
      // After a hang, connected is not yet answering: the probe decides.
      if (this.#responsive) this.#up()
      else this.probe()
      // Then its version (without INFO, as for a user not allowed it, the scripts' errors will tell).
      this.client.info('server').then(info => {
        // A server that gives no version (a Redis-compatible proxy) is left to its scripts' errors.
        const version = /^redis_version:(\S+)/m.exec(info)?.[1]
        if (!(Number(version?.split('.')[0]) < OLDEST_REDIS)) return
        this.#tooOld = version
        this.#down('old', `Redis ${version}; version ${OLDEST_REDIS}.0 or later is needed`)
      }, () => {})
    })
    const scripts = {
      batch: script(BATCH),
      put: script(PUT),
      setName: script(SET_NAME),
      migrate: script(MIGRATE),
      journal: script(JOURNAL),
      // The board's reads and the probe sweep (delete) and read: they run at maxmemory too.
      list: script(LIST, 'allow-oom'),
      counts: script(COUNTS, 'allow-oom'),
      probe: script(PROBE, 'allow-oom'),
      progress: script(PROGRESS, 'no-writes')
    }
    for (const [name, lua] of Object.entries(scripts)) this.client.defineCommand(name, { numberOfKeys: 3, lua })
    this.client.defineCommand('countCreation', { numberOfKeys: 1, lua: script(COUNT_CREATION) })
    this.client.defineCommand('peekCount', { numberOfKeys: 1, lua: script(PEEK_COUNT, 'no-writes') })
    this.#common = [`${this.#prefix}lru`, `${this.#prefix}sessions`, `${this.#prefix}new`, this.#idleMs, this.#prefix]
    this.#scheduleProbe()
  }

  get #scripts (): Scripts {
    return this.client as unknown as Scripts
  }

  /** What every script takes first (see Common). */
  readonly #common: Common

  // False after a command timed out on a connection that still looks fine (a Redis that hangs),
  // until a command (a probe, most likely) gets through again.
  #responsive = true
  #closing = false
  #lastError: string | undefined
  /** The version of a Redis too old for the scripts, while connected to one. */
  #tooOld: string | undefined
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
    if (this.#closing || this.#state === 'up' || this.#tooOld !== undefined) return
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
    this.#unanswered ??= this.#scripts.probe(...this.#common).then(() => { this.#answered() }, (error: unknown) => {
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
    return this.client.status === 'ready' && this.#responsive && this.#tooOld === undefined
  }

  async #put (record: ChallengerRecord, pinned: boolean, onlyNew: boolean, limit?: CreationLimit): Promise<number | [number, number]> {
    return await this.#run(() => this.#scripts.put(...this.#common, record.guid, sessionId(record.guid), record.token, record.note, record.progress,
      this.#maxSessions, pinned ? '1' : '0', onlyNew ? '1' : '0', record.name ?? '',
      limit === undefined ? '' : this.#rateKey(limit.client), limit?.windowMs ?? 0, limit?.max ?? 0))
  }

  #rateKey (client: string): string {
    return `${this.#prefix}rate:${client}`
  }

  async create (name?: string): Promise<ChallengerRecord> {
    return await this.createCounted(name, 0) as ChallengerRecord
  }

  async createCounted (name: string | undefined, progress: number, limit?: CreationLimit): Promise<ChallengerRecord | { msLeft: number }> {
    const record = { guid: newGuid(), token: newToken(), note: '', progress, name }
    // A guid of 122 random bits is never taken; onlyNew makes sure of it all the same.
    const result = await this.#put(record, false, true, limit)
    return Array.isArray(result) ? { msLeft: result[1] } : record
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
    this.#run(() => this.#scripts.batch(...this.#common, this.#journalSize, ...calls)).then(results => {
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
    const id = sessionId(guid)
    let found = await this.#call<Found | null>(false, 't', id)
    // Not there: perhaps a session of the layout before, which is moved and looked up again.
    if (found === null && await this.#run(() => this.#scripts.migrate(...this.#common, guid, id)) === 1) found = await this.#call<Found | null>(false, 't', id)
    return found === null ? undefined : recordOf(guid, found)
  }

  async setName (guid: string, name: string | undefined): Promise<ChallengerRecord | undefined> {
    const found = await this.#run(() => this.#scripts.setName(...this.#common, guid, sessionId(guid), name ?? ''))
    return found === null ? undefined : recordOf(guid, found)
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
    const rows = await this.#run(() => this.#scripts.list(...this.#common, limit, afterScore, afterId))
    const sessions: SessionSummary[] = []
    const scores: string[] = []
    for (let i = 1; i < rows.length; i += 5) {
      const [id, name, made, score, progress] = rows.slice(i, i + 5) as [string, string, string, string, string]
      const guid = guidOf(id)
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
    const [live, active] = await this.#run(() => this.#scripts.counts(...this.#common, activeMs))
    return { live, active }
  }

  async summary (activeMs: number): Promise<ClassSummary> {
    const [live, active, used] = await this.#run(() => this.#scripts.counts(...this.#common, activeMs))
    const passedBy = new Array<number>(32).fill(0)
    const [lru, sessions, fresh, ...rest] = this.#common
    // A slice of an index at a time (the used sessions', then the unused ones'), so that no one script holds Redis for long.
    for (const [index, size] of [[lru, used], [fresh, live - used]] as const) {
      for (let from = 0; from < size; from += SUMMARY_SLICE) {
        const slice = await this.#run(() => this.#scripts.progress(index, sessions, fresh, ...rest, from, from + SUMMARY_SLICE - 1))
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

  async getAndSetNote (guid: string, token: string, note: string, bits: number): Promise<[ChallengerRecord, boolean] | undefined> {
    const found = await this.#call<[number, ...Found] | null>(false, 'w', sessionId(guid), token, note, bits)
    if (found === null) {
      // Perhaps a session of the layout before (see get): moved, then looked up again.
      if (await this.#run(() => this.#scripts.migrate(...this.#common, guid, sessionId(guid))) === 0) return undefined
      return await this.getAndSetNote(guid, token, note, bits)
    }
    const [written, ...session] = found
    return [recordOf(guid, session), written === 1]
  }

  async setNote (guid: string, note: string, bits = 0): Promise<string | undefined> {
    return await this.#call<number | null>(false, 'n', sessionId(guid), note, bits) === null ? undefined : note
  }

  /**
   * Resolves once the bits are on their way, as record() does: written to Redis's connection, in this
   * turn's batch, ahead of anything the learner can ask any instance after the answer; so a request
   * that passes a challenge after its lookup waits for one round trip, not two. Never rejects: bits
   * lost with their batch (Redis gone at that very moment, after it answered the lookup) fail nothing.
   */
  async pass (guid: string, bits: number): Promise<void> {
    await this.#call(true, 'p', sessionId(guid), bits)
  }

  /**
   * Resolves once the entry is on its way: written to Redis's connection, in this turn's batch, ahead
   * of anything the learner can ask any instance after the answer (which waits for this). Not for its
   * result: an entry lost with its batch fails nothing else.
   */
  async record (guid: string, entry: JournalEntry): Promise<void> {
    if (this.#journalSize === 0) return
    await this.#call(true, 'r', sessionId(guid), encodeEntry(entry))
  }

  async journal (guid: string): Promise<JournalEntry[] | undefined> {
    const entries = await this.#run(() => this.#scripts.journal(...this.#common, guid, sessionId(guid), this.#journalSize))
    return entries?.map(decodeEntry)
  }

  async countCreation (client: string, windowMs: number, add: 0 | 1 = 1): Promise<CreationCount> {
    const key = this.#rateKey(client)
    const [count, msLeft] = await this.#run(() => add === 0 ? this.#scripts.peekCount(key) : this.#scripts.countCreation(key, windowMs))
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
