-- A session's journal. ARGV[3] its id, ARGV[4] the journal's size: a list may hold up to a quarter
-- more until its next trim.
if load(ARGV[3]) == nil then return false end
if ARGV[4] == '0' then return {} end
return redis.call('LRANGE', prefix .. 'j:' .. ARGV[3], 0, tonumber(ARGV[4]) - 1)
