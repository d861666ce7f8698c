-- The client's count KEYS[1] and its window's time left, read (0 and 0 without a window).
local left = redis.call('PTTL', KEYS[1])
if left == -2 then return { 0, 0 } end
return { tonumber(redis.call('GET', KEYS[1])), math.max(left, 0) }
