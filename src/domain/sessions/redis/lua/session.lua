-- What every session script starts with (src/domain/sessions/redis/scripts.ts puts it before the script, after
-- the constants PER_MS, JOURNAL_SPARE_MS, SWEEP_ON_CREATE and SWEEP_ON_READ).
-- KEYS[1] the activity index, KEYS[2] the sessions, KEYS[3] the unused sessions' index; ARGV[1] the
-- idle time, ARGV[2] the key prefix, ARGV[3] the deadline ('' for none: see below).
-- Now, in milliseconds, by Redis's clock (scripts may read it since Redis 5: their effects are
-- replicated, not the script), and the activity score of a touch now (see <prefix>lru in
-- src/domain/sessions/redis-store.ts). Scores stay below 2^53, exact in a double; %.0f keeps Lua from writing
-- them with an exponent. Reading the highest score, rather than keeping the last one given in a key of
-- its own, spares a write (and its line in the AOF) per script. A session whose score is below
-- `cutoff` is expired.
--
-- A session packed: 'progress pinned made tokenLength nameLength ' then the token, the name and the
-- note, which may hold any character (a name of length 0 is none; made is '' for a session made
-- before times were kept). 64 bytes of Redis memory for a session with no name and no note.
local lru, sessions, fresh = KEYS[1], KEYS[2], KEYS[3]
local idleMs, prefix = tonumber(ARGV[1]), ARGV[2]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local cutoff = (now - idleMs) * PER_MS
-- Past its deadline (ms, by this clock) the script does nothing: the instance that sent it has answered
-- 503 by now (its command timed out), and a refused request changes nothing, even when Redis, or the
-- network, held the script until after a newer write (src/domain/sessions/redis/clock.ts sets the deadline).
if ARGV[3] ~= '' and now > tonumber(ARGV[3]) then
  return redis.error_reply('LATE the script reached Redis after its deadline; nothing was done')
end
local function score (n) return string.format('%.0f', n) end
local function highest (index)
  return tonumber(redis.call('ZREVRANGE', index, 0, 0, 'WITHSCORES')[2] or '0')
end
local function activity (last)
  if not last then last = math.max(highest(lru), highest(fresh)) end
  return math.max(now * PER_MS, last + 1)
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
-- A session gone: its entry and its journal.
local function drop (id)
  redis.call('HDEL', sessions, id)
  redis.call('ZREM', lru, id)
  redis.call('ZREM', fresh, id)
  redis.call('DEL', prefix .. 'j:' .. id)
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
