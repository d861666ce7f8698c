-- ARGV[3] the session's id, ARGV[4] the name ('' clears it); the session as it is then, as the
-- lookup (t in batch.lua) gives it, without touching it.
local s = load(ARGV[3])
if s == nil then return nil end
s.a = ARGV[4]
redis.call('HSET', sessions, ARGV[3], encode(s))
return found(s)
