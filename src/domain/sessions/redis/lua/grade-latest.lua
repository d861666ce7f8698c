-- Each owner's latest live run, for the class board. ARGV: the key prefix, then the owners. For each
-- owner in turn, its run's id and fields (HGETALL's list), or an empty list for none.
local clock = redis.call('TIME')
local now = string.format('%.0f', tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000))
local prefix = ARGV[1]
local found = {}
for i = 2, #ARGV do
  local id = redis.call('ZREVRANGEBYSCORE', prefix .. 'grades:o:' .. ARGV[i], '+inf', '(' .. now, 'LIMIT', 0, 1)[1]
  found[#found + 1] = id and { id, redis.call('HGETALL', prefix .. 'grade:' .. id) } or {}
end
return found
