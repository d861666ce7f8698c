-- The progress of the sessions ranked ARGV[4] to ARGV[5] in the index KEYS[1] (lru or fresh), newest first.
local out = {}
for _, id in ipairs(redis.call('ZREVRANGE', KEYS[1], ARGV[4], ARGV[5])) do
  local v = redis.call('HGET', KEYS[2], id)
  out[#out + 1] = v and string.match(v, '^(-?%d+)') or '0'
end
return out
