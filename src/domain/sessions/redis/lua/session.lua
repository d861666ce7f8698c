-- What every session script starts with. KEYS: the activity index, the sessions, the unused sessions'
-- index; ARGV: the idle time, the key prefix, the deadline ('' for none). A session packed: 'progress
-- pinned made tokenLength nameLength ' then token, name and note (made '' from before times were kept).
local lru, sessions, fresh = KEYS[1], KEYS[2], KEYS[3]
local idleMs, prefix = tonumber(ARGV[1]), ARGV[2]
-- Used sessions not at work (atWork), by their activity score: at capacity the oldest makes room
-- after the unused ones. A subset of lru, so counted nowhere.
local light = prefix .. 'light'
-- A hunt's defects, beside its session: 'hidden|found', ids comma-separated. Not in the packed
-- session, whose note is its tail, so that an instance from before hunts reads a hunt's session whole.
local hunts = prefix .. 'hunts'
-- The defect a session made under a grading base carries (../grade-runs.ts), beside it as a hunt's is.
local graded = prefix .. 'graded'
-- Scripts may read TIME since Redis 5: their effects are replicated, not the scripts.
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local cutoff = (now - idleMs) * PER_MS
-- Past its deadline the sender has answered 503, so nothing may change (see ../clock.ts).
if ARGV[3] ~= '' and now > tonumber(ARGV[3]) then
  return redis.error_reply('LATE the script reached Redis after its deadline; nothing was done')
end
-- Scores stay below 2^53; %.0f keeps Lua from writing an exponent.
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
-- Whether a session is at work (../../worth.ts, whose constants these are): a note, a challenge that
-- needs its token, or AT_WORK_PASSES challenges passed. At capacity such a session never makes room.
local function atWork (s)
  if s.n ~= '' then return true end
  local bits = tonumber(s.p)
  if bit.band(bits, TOKEN_BITS) ~= 0 then return true end
  local passed = 0
  while bits ~= 0 and passed < AT_WORK_PASSES do
    bits = bit.band(bits, bits - 1)
    passed = passed + 1
  end
  return passed >= AT_WORK_PASSES
end
-- What a lookup answers: token, note, progress, pinned, name, hunt and graded defect (nil for none).
local function found (id, s)
  return { s.t, s.n, s.p, s.k, s.a ~= '' and s.a or false, redis.call('HGET', hunts, id), redis.call('HGET', graded, id) }
end
-- A session gone (expired, or making room): its entry, its hunt and its journal; its id is kept
-- among the last EXPIRED_KEPT to end (<prefix>ended, by when it ended), so that a request naming it
-- can be told it expired.
local function drop (id)
  local ended = prefix .. 'ended'
  redis.call('ZADD', ended, score(now), id)
  redis.call('ZREMRANGEBYRANK', ended, 0, -EXPIRED_KEPT - 1)
  redis.call('HDEL', sessions, id)
  redis.call('HDEL', hunts, id)
  redis.call('HDEL', graded, id)
  redis.call('ZREM', lru, id)
  redis.call('ZREM', fresh, id)
  redis.call('ZREM', light, id)
  redis.call('DEL', prefix .. 'j:' .. id)
end
local function sweep (limit)
  for _, index in ipairs({ lru, fresh }) do
    for _, id in ipairs(redis.call('ZRANGEBYSCORE', index, '-inf', '(' .. score(cutoff), 'LIMIT', 0, limit)) do drop(id) end
  end
end
-- The live session of an id, unpacked, with its score and whether it is unused; nil, and dropped, when expired.
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
