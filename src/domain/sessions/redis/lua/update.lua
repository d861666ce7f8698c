-- A change to a session. ARGV[4] its id, ARGV[5] '1' when ARGV[6] is its new note, ARGV[7] progress
-- bits to set, ARGV[8] a defect found ('' for none: added once, when its hunt hides it). Nothing for a
-- session that is gone.
local s = load(ARGV[4])
if not s then return 0 end
local was = atWork(s)
if ARGV[5] == '1' then s.n = ARGV[6] end
s.p = tostring(bit.bor(tonumber(s.p), tonumber(ARGV[7])))
redis.call('HSET', sessions, ARGV[4], encode(s))
-- Not activity: a session at work from now on leaves light, and keeps its score.
if not was and atWork(s) then redis.call('ZREM', light, ARGV[4]) end
-- An id is never '' and has no ',' or '|' (the hunt's separators).
local hunt = string.find(ARGV[8], '^[^,|]+$') and redis.call('HGET', hunts, ARGV[4])
if hunt then
  local hidden, found = string.match(hunt, '^([^|]*)|(.*)$')
  local function has (ids) return string.find(',' .. ids .. ',', ',' .. ARGV[8] .. ',', 1, true) ~= nil end
  if has(hidden) and not has(found) then redis.call('HSET', hunts, ARGV[4], hunt .. (found == '' and '' or ',') .. ARGV[8]) end
end
return 1
