-- The live count, the count active within ARGV[4] ms, and of the live ones those in lru (the used).
sweep(SWEEP_ON_READ)
local floor, active = score(cutoff), score((now - tonumber(ARGV[4])) * PER_MS)
local used = redis.call('ZCOUNT', lru, floor, '+inf')
return { used + redis.call('ZCOUNT', fresh, floor, '+inf'), redis.call('ZCOUNT', lru, active, '+inf') + redis.call('ZCOUNT', fresh, active, '+inf'), used }
