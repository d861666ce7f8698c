-- The progress of the sessions ranked ARGV[3] to ARGV[4] in the index KEYS[1] (lru or fresh), newest
-- first (a slice of the live ones, which rank above the expired).
local out = {}
for _, id in ipairs(redis.call('ZREVRANGE', KEYS[1], ARGV[3], ARGV[4])) do
  local v = redis.call('HGET', KEYS[2], id)
  out[#out + 1] = v and string.match(v, '^(-?%d+)') or '0'
end
return out
