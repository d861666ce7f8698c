-- A session made or restored. ARGV[4] its id, ARGV[5] token, ARGV[6] note, ARGV[7] progress,
-- ARGV[8] the most sessions, ARGV[9] '1' to pin, ARGV[10] '1' to refuse a live one (-1), ARGV[11]
-- the name, ARGV[12] the hunt ('' for none), ARGV[13] the graded defect ('' for none: a live session keeps its own). 1 when it replaced a live session, 0 when it made one,
-- -2 when it would make one but every session is at work (nothing is written).
sweep(SWEEP_ON_CREATE)
-- Room for one more: an expired session, else the oldest unused one, else the least recently active
-- one not at work (an entry of light that is no longer so, left by an instance that does not keep
-- light, is cleared on the way). False when there is none: every session is at work.
local function evict ()
  local oldest = redis.call('ZRANGE', lru, 0, 0, 'WITHSCORES')
  if oldest[1] and tonumber(oldest[2]) < cutoff then
    drop(oldest[1])
    return true
  end
  local unused = redis.call('ZRANGE', fresh, 0, 0)[1]
  if unused then
    drop(unused)
    return true
  end
  while true do
    local id = redis.call('ZRANGE', light, 0, 0)[1]
    if not id then return false end
    local v = redis.call('HGET', sessions, id)
    if v and redis.call('ZSCORE', lru, id) and not atWork(decode(v)) then
      drop(id)
      return true
    end
    redis.call('ZREM', light, id)
  end
end
local id = ARGV[4]
local s = load(id)
local live = s ~= nil
local pinned = ARGV[9] == '1' or (live and s.k == '1')
if ARGV[10] == '1' and live then return -1 end
if not live and not pinned then
  redis.call('ZREM', lru, id)
  redis.call('ZREM', fresh, id)
  while redis.call('ZCARD', lru) + redis.call('ZCARD', fresh) >= tonumber(ARGV[8]) do
    if not evict() then return -2 end
  end
end
-- A restored live session keeps its start and journal; a journal outliving its session is no one's.
local journal = prefix .. 'j:' .. id
if not live then redis.call('DEL', journal) end
local made = { p = ARGV[7], k = pinned and '1' or '0', c = live and s.c or score(now), t = ARGV[5], a = ARGV[11], n = ARGV[6] }
redis.call('HSET', sessions, id, encode(made))
if ARGV[12] == '' then redis.call('HDEL', hunts, id) else redis.call('HSET', hunts, id, ARGV[12]) end
if ARGV[13] ~= '' then redis.call('HSET', graded, id, ARGV[13]) elseif not live then redis.call('HDEL', graded, id) end
if pinned then
  redis.call('ZREM', lru, id)
  redis.call('ZREM', fresh, id)
  redis.call('ZREM', light, id)
  redis.call('PERSIST', journal)
else
  redis.call('PEXPIRE', journal, idleMs + JOURNAL_SPARE_MS)
  -- A session made (or made again) is unused; a live one restored was named by the request.
  local at = score(activity())
  if live then
    if s.fresh then redis.call('ZREM', fresh, id) end
    redis.call('ZADD', lru, at, id)
    if atWork(made) then redis.call('ZREM', light, id) else redis.call('ZADD', light, at, id) end
  else
    redis.call('ZREM', light, id)
    redis.call('ZADD', fresh, at, id)
  end
end
if live then return 1 end
return 0
