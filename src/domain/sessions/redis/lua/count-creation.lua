-- One more creation in the client's window KEYS[1] of ARGV[1] ms (see count.lua).
local n, left = count(KEYS[1], ARGV[1])
return { n, left }
