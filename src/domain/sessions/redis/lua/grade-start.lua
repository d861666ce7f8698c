-- A grading run started (../grade-runs.ts), unless a limit refuses it. KEYS: every live run by its
-- end, the owner's live runs by their end, the new run. ARGV: its length in ms, the most per
-- session, the most in all, the run's id, its owner, its bases ('id=defect,…', '' for the correct one).
-- 'started' with its start and end, or the limit ('total', 'session') and the seconds to wait.
local all, own, key = KEYS[1], KEYS[2], KEYS[3]
local runMs, perSession, total = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function score (n) return string.format('%.0f', n) end
redis.call('ZREMRANGEBYSCORE', all, '-inf', score(now))
redis.call('ZREMRANGEBYSCORE', own, '-inf', score(now))
-- Until the oldest run of `index` ends (at least a second).
local function wait (index)
  local first = redis.call('ZRANGE', index, 0, 0, 'WITHSCORES')[2]
  if not first then return 1 end
  return math.max(1, math.ceil((tonumber(first) - now) / 1000))
end
if redis.call('ZCARD', all) >= total then return { 'total', wait(all) } end
if redis.call('ZCARD', own) >= perSession then return { 'session', wait(own) } end
local ends = score(now + runMs)
redis.call('HSET', key, 'o', ARGV[5], 'c', score(now), 'e', ends, 'b', ARGV[6])
redis.call('PEXPIREAT', key, ends)
redis.call('ZADD', all, ends, ARGV[4])
redis.call('ZADD', own, ends, ARGV[4])
redis.call('PEXPIREAT', own, ends)
return { 'started', score(now), ends }
