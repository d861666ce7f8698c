-- A change to a session. ARGV[4] its id, ARGV[5] '1' when ARGV[6] is its new note, ARGV[7] progress
-- bits to set, ARGV[8] a defect found ('' for none). Nothing for a session that is gone.
local s = load(ARGV[4])
if not s then return 0 end
change(ARGV[4], s, ARGV[5], ARGV[6], ARGV[7], ARGV[8])
return 1
