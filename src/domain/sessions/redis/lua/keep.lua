-- A journal entry `entry` kept for the loaded session `s` of id `id` (record.lua's, and write.lua's), in
-- a journal of `size`: trimmed once a quarter over its size, and kept while the session lives.
local function keep (id, s, entry, size)
  local journal = prefix .. 'j:' .. id
  -- Each entry's time is its own (a finding names an entry by it): past the newest's, as in memory.
  local newest = string.match(redis.call('LINDEX', journal, 0) or '', '^%[(%d+),')
  local at, rest = string.match(entry, '^%[(%d+)(,.*)$')
  if newest and at and tonumber(newest) >= tonumber(at) then entry = '[' .. score(tonumber(newest) + 1) .. rest end
  local length = redis.call('LPUSH', journal, entry)
  if length > size + math.ceil(size / 4) then redis.call('LTRIM', journal, 0, size - 1) end
  -- A new list takes its session's time left and the spare; after that, lookups and restores renew it.
  if length == 1 and s.k ~= '1' then
    redis.call('PEXPIRE', journal, math.max(1, math.floor(s.score / PER_MS) + idleMs + JOURNAL_SPARE_MS - now))
  end
end
