-- A request to the note judged and kept in one step (issue 56): the lookup (touch.lua), the token, the
-- request's change and its journal entry. ARGV[4] the session's id, ARGV[5] the SHA-1 of the token the
-- request presented (the session's own is hashed here: digests are compared, so the time a comparison
-- takes says nothing about the token), ARGV[6] the journal's size (0: none), ARGV[7] and ARGV[8] the
-- entry before and after its progress and hint (../../journal/wire.ts), ARGV[9] the progress bits the
-- request asks for, ARGV[10] '1' when ARGV[11] is the new note, ARGV[12] the bits of the route's
-- challenges, ARGV[13] its near misses that recognise the request, in order ('bit:hint,…').
-- False for no session; {0, the session as a lookup finds it} for a token that is not its own (nothing
-- is written); else {1, the bits passed}.
local id = ARGV[4]
local s = load(id)
if not s then return false end
touch(id, s)
if redis.sha1hex(s.t) ~= ARGV[5] then return { 0, found(id, s) } end
-- As the service judges it (plugins/session.ts's pass, the catalogue's nearMiss): what the session had not passed.
local progress, asked, route = tonumber(s.p), tonumber(ARGV[9]), tonumber(ARGV[12])
local passed = bit.band(asked, bit.bnot(progress))
if ARGV[10] == '1' or passed ~= 0 then change(id, s, ARGV[10], ARGV[11], tostring(passed), '') end
local size = tonumber(ARGV[6])
if size > 0 then
  local hint = -1
  if passed == 0 and bit.band(progress, route) ~= route then
    for challenge, code in string.gmatch(ARGV[13], '(-?%d+):(%d+)') do
      if bit.band(progress, tonumber(challenge)) == 0 then
        hint = tonumber(code)
        break
      end
    end
  end
  keep(id, s, ARGV[7] .. passed .. ',' .. hint .. ARGV[8], size)
end
return { 1, passed }
