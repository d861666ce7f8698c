-- A session made or restored. ARGV[4] its id, ARGV[5] token, ARGV[6] note, ARGV[7] progress,
-- ARGV[8] the most sessions, ARGV[9] '1' to pin, ARGV[10] '1' to refuse a live one (-1), ARGV[11]
-- the name, ARGV[12] the hunt ('' for none). 1 when it replaced a live session, 0 when it made one.
sweep(SWEEP_ON_CREATE)
-- Room for one more: an expired session, else the oldest unused one, else the least recently used.
local function evict ()
  local oldest = redis.call('ZRANGE', lru, 0, 0, 'WITHSCORES')
  if oldest[1] and tonumber(oldest[2]) < cutoff then return drop(oldest[1]) end
  drop(redis.call('ZRANGE', fresh, 0, 0)[1] or oldest[1])
end
local id = ARGV[4]
local s = load(id)
local live = s ~= nil
local pinned = ARGV[9] == '1' or (live and s.k == '1')
if ARGV[10] == '1' and live then return -1 end
-- A restored live session keeps its start and journal; a journal outliving its session is no one's.
local journal = prefix .. 'j:' .. id
if not live then redis.call('DEL', journal) end
redis.call('HSET', sessions, id, encode({ p = ARGV[7], k = pinned and '1' or '0', c = live and s.c or score(now), t = ARGV[5], a = ARGV[11], n = ARGV[6] }))
if ARGV[12] == '' then redis.call('HDEL', hunts, id) else redis.call('HSET', hunts, id, ARGV[12]) end
if pinned then
  redis.call('ZREM', lru, id)
  redis.call('ZREM', fresh, id)
  redis.call('PERSIST', journal)
else
  if not live then
    redis.call('ZREM', lru, id)
    redis.call('ZREM', fresh, id)
    while redis.call('ZCARD', lru) + redis.call('ZCARD', fresh) >= tonumber(ARGV[8]) do evict() end
  end
  redis.call('PEXPIRE', journal, idleMs + JOURNAL_SPARE_MS)
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
return 0
