-- A lookup's activity on the loaded session `s` of id `id` (lookup.lua's, and write.lua's, which looks
-- up too): an unpinned session's score (its expiry) moves up, it counts as used (in light too, while
-- not at work), and its journal's TTL is renewed.
local function touch (id, s)
  if s.k == '1' then return end
  local journal = prefix .. 'j:' .. id
  local left = redis.call('PTTL', journal)
  if left ~= -2 and left < idleMs then redis.call('PEXPIRE', journal, idleMs + JOURNAL_SPARE_MS) end
  if s.fresh then redis.call('ZREM', fresh, id) end
  local at = score(activity())
  redis.call('ZADD', lru, at, id)
  -- A session at work is never in light (update.lua takes it out when it gets there).
  if not atWork(s) then redis.call('ZADD', light, at, id) end
end
