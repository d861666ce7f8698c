-- ARGV[4] the session's id, ARGV[5] the name ('' clears it); the session as lookup.lua gives it, untouched.
local s = load(ARGV[4])
if s == nil then return nil end
s.a = ARGV[5]
redis.call('HSET', sessions, ARGV[4], encode(s))
return found(ARGV[4], s)
