-- A change to the loaded session `s` of id `id` (update.lua's, and record.lua's when a request's
-- journal entry comes with one): `note` when `hasNote` is '1', progress `bits` to set, and a defect
-- `found` ('' for none: added once, when its hunt hides it).
local function change (id, s, hasNote, note, bits, found)
  local was = atWork(s)
  if hasNote == '1' then s.n = note end
  s.p = tostring(bit.bor(tonumber(s.p), tonumber(bits)))
  redis.call('HSET', sessions, id, encode(s))
  -- Not activity: a session at work from now on leaves light, and keeps its score.
  if not was and atWork(s) then redis.call('ZREM', light, id) end
  -- An id is never '' and has no ',' or '|' (the hunt's separators).
  local hunt = string.find(found, '^[^,|]+$') and redis.call('HGET', hunts, id)
  if hunt then
    local hidden, kept = string.match(hunt, '^([^|]*)|(.*)$')
    local function has (ids) return string.find(',' .. ids .. ',', ',' .. found .. ',', 1, true) ~= nil end
    if has(hidden) and not has(kept) then redis.call('HSET', hunts, id, hunt .. (kept == '' and '' or ',') .. found) end
  end
end
