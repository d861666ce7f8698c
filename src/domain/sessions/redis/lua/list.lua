-- One page of the board, newest first: the live count, then id, name, made at, last seen, progress
-- and hunt ('' for none) per session, lru and fresh merged. ARGV[4] the limit (limit + 1 read, to
-- know of a next page), ARGV[5] and ARGV[6] the cursor's score and id. Ids compare byte by byte:
-- Lua's < follows the locale.
sweep(SWEEP_ON_READ)
local limit = tonumber(ARGV[4])
local after, afterId = ARGV[5], ARGV[6]
local function above (id, other)
  for i = 1, math.max(#id, #other) do
    local a, b = string.byte(id, i) or -1, string.byte(other, i) or -1
    if a ~= b then return a > b end
  end
  return false
end
local floor = score(cutoff)
local rows = { redis.call('ZCOUNT', lru, floor, '+inf') + redis.call('ZCOUNT', fresh, floor, '+inf') }
local function reader (index)
  local batch, i, offset = {}, 1, 0
  return function ()
    while true do
      if i > #batch then
        batch = redis.call('ZREVRANGEBYSCORE', index, after == '' and '+inf' or after, floor, 'WITHSCORES', 'LIMIT', offset, limit + 1)
        if #batch == 0 then return nil end
        offset = offset + #batch / 2
        i = 1
      end
      local id, at = batch[i], batch[i + 1]
      i = i + 2
      if at ~= after or above(afterId, id) then return id, at end
    end
  end
end
local nextUsed, nextFresh = reader(lru), reader(fresh)
local u, uAt = nextUsed()
local f, fAt = nextFresh()
local count = 0
while count <= limit and (u or f) do
  local id, at
  if not f or (u and (tonumber(uAt) > tonumber(fAt) or (uAt == fAt and above(u, f)))) then
    id, at = u, uAt
    u, uAt = nextUsed()
  else
    id, at = f, fAt
    f, fAt = nextFresh()
  end
  local v = redis.call('HGET', sessions, id)
  if v then
    local s = decode(v)
    count = count + 1
    rows[#rows + 1] = id
    rows[#rows + 1] = s.a
    rows[#rows + 1] = s.c
    rows[#rows + 1] = at
    rows[#rows + 1] = s.p
    rows[#rows + 1] = redis.call('HGET', hunts, id) or ''
  end
end
return rows
