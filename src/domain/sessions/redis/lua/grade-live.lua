-- Live runs in all. KEYS: every live run by its end.
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. string.format('%.0f', now), '+inf')
