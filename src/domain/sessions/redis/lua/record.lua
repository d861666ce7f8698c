-- A journal entry. ARGV[4] the session's id, ARGV[5] the entry, ARGV[6] the journal's size; kept while
-- the session lives (the list is trimmed once a quarter over its size). With ARGV[7] '1', the request's
-- change comes first, in the same step: ARGV[8] to ARGV[10] as update.lua's ARGV[5] to ARGV[7].
-- Nothing for a session that is gone.
local id, size, entry = ARGV[4], tonumber(ARGV[6]), ARGV[5]
local s = load(id)
if not s then return 0 end
if ARGV[7] == '1' then change(id, s, ARGV[8], ARGV[9], ARGV[10], '') end
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
return 1
