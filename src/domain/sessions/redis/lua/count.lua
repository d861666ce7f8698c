-- One more creation in a client's window (a key with the window's TTL): the count and the time left.
-- The keys are those of @fastify/rate-limit's Redis store, which counted here before.
local function count (key, window)
  local n = redis.call('INCR', key)
  local left = redis.call('PTTL', key)
  if n == 1 or left < 0 then
    redis.call('PEXPIRE', key, window)
    left = tonumber(window)
  end
  return n, left
end
