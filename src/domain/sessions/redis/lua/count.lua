-- One more creation in a client's window (a key of its own, with the window's TTL), which the first
-- one opens: the count and the window's time left. (The keys and counts are @fastify/rate-limit's
-- Redis store's, which counted here before.)
local function count (key, window)
  local n = redis.call('INCR', key)
  local left = redis.call('PTTL', key)
  if n == 1 or left < 0 then
    redis.call('PEXPIRE', key, window)
    left = tonumber(window)
  end
  return n, left
end
