-- ARGV[4] the session's id, ARGV[5] the name ('' clears it); the session as it is then, as the
-- lookup (t in batch.lua) gives it, without touching it.
local s = load(ARGV[4])
if s == nil then return nil end
s.a = ARGV[5]
redis.call('HSET', sessions, ARGV[4], encode(s))
return found(s)
