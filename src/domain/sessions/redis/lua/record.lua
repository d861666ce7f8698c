-- A journal entry. ARGV[4] the session's id, ARGV[5] the entry, ARGV[6] the journal's size (keep.lua).
-- With ARGV[7] '1', the request's change comes first, in the same step: ARGV[8] to ARGV[10] as
-- update.lua's ARGV[5] to ARGV[7]. Nothing for a session that is gone.
local id = ARGV[4]
local s = load(id)
if not s then return 0 end
if ARGV[7] == '1' then change(id, s, ARGV[8], ARGV[9], ARGV[10], '') end
keep(id, s, ARGV[5], tonumber(ARGV[6]))
return 1
