-- A change to a session. ARGV[4] its id, ARGV[5] '1' when ARGV[6] is its new note, ARGV[7] progress
-- bits to set. Nothing for a session that is gone.
local s = load(ARGV[4])
if not s then return 0 end
if ARGV[5] == '1' then s.n = ARGV[6] end
s.p = tostring(bit.bor(tonumber(s.p), tonumber(ARGV[7])))
redis.call('HSET', sessions, ARGV[4], encode(s))
return 1
