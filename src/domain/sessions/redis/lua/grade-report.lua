-- A base's exit code, kept once: the first report stands. KEYS: the run. ARGV: the base's id (12 hex
-- digits), the exit code. 'recorded', 'already', 'no-base', or 'gone' (the run expired, or never was).
local bases = redis.call('HGET', KEYS[1], 'b')
if not bases then return 'gone' end
if not string.find(',' .. bases, ',' .. ARGV[1] .. '=', 1, true) then return 'no-base' end
if redis.call('HSETNX', KEYS[1], 'r:' .. ARGV[1], ARGV[2]) == 0 then return 'already' end
return 'recorded'
