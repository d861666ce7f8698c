-- A session made or restored. ARGV[3] its id, ARGV[4] token, ARGV[5] note, ARGV[6] progress,
-- ARGV[7] the most sessions, ARGV[8] '1' to pin, ARGV[9] '1' to refuse a live one (-1), ARGV[10]
-- the name; ARGV[11] a client's count to add one to ('' for none), ARGV[12] its window, ARGV[13] the
-- most it may reach. 1 when it replaced a live session, 0 when it made one, {-2, the window's time
-- left} when the client's count went over (nothing else done).
if ARGV[11] ~= '' then
  local n, left = count(ARGV[11], ARGV[12])
  if n > tonumber(ARGV[13]) then return { -2, left } end
end
sweep(SWEEP_ON_CREATE)
-- Room for one more: an expired session, else the oldest unused one, else the least recently used.
local function evict ()
  local oldest = redis.call('ZRANGE', lru, 0, 0, 'WITHSCORES')
  if oldest[1] and tonumber(oldest[2]) < cutoff then return drop(oldest[1]) end
  drop(redis.call('ZRANGE', fresh, 0, 0)[1] or oldest[1])
end
local id = ARGV[3]
local s = load(id)
local live = s ~= nil
local pinned = ARGV[8] == '1' or (live and s.k == '1')
if ARGV[9] == '1' and live then return -1 end
-- A restored live session keeps when it began (and its journal); a journal outliving its session is no one's.
local journal = prefix .. 'j:' .. id
if not live then redis.call('DEL', journal) end
redis.call('HSET', sessions, id, encode({ p = ARGV[6], k = pinned and '1' or '0', c = live and s.c or score(now), t = ARGV[4], a = ARGV[10], n = ARGV[5] }))
if pinned then
  redis.call('ZREM', lru, id)
  redis.call('ZREM', fresh, id)
  redis.call('PERSIST', journal)
else
  if not live then
    -- A session gone but still listed must not evict itself.
    redis.call('ZREM', lru, id)
    redis.call('ZREM', fresh, id)
    while redis.call('ZCARD', lru) + redis.call('ZCARD', fresh) >= tonumber(ARGV[7]) do evict() end
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
