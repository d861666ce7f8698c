-- The lookup. ARGV[4] the session's id; the session, or false. A lookup is activity (touch.lua).
local id = ARGV[4]
local s = load(id)
if not s then return false end
touch(id, s)
return found(id, s)
