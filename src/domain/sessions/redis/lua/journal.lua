-- A session's journal. ARGV[4] its id, ARGV[5] the journal's size (a list may hold more until trimmed).
if load(ARGV[4]) == nil then return false end
if ARGV[5] == '0' then return {} end
return redis.call('LRANGE', prefix .. 'j:' .. ARGV[4], 0, tonumber(ARGV[5]) - 1)
