-- Many calls in one script (src/domain/sessions/redis/batch.ts): ARGV[4] the journal's size, then each call as
-- its letter and its arguments, a session by its id (22 characters rather than its keys):
--   t id           the lookup: the session's t, n, p, k, a (false when there is none); an unpinned
--                  session's activity score moves up (and so its expiry), and its journal's TTL
--                  starts again once it is below the idle time (see <prefix>j: in src/domain/sessions/redis-store.ts)
--   w id token note bits  t, and, when the token is the session's (by Lua's string equality: strings
--                  are interned, so it compares two references, not the token's characters one by
--                  one), the note and the challenge it passes (bits, 0 for none) in the same step:
--                  what t gives, as it was before the write
--   p id bits      a challenge passed: 0
--   r id entry     a journal entry, kept only while the session lives and for as long as it does:
--                  1, or 0 when the session has gone
-- One result per call, in order. Of the writes (each a line in the AOF, when Redis keeps one), a
-- note write makes three: the activity score at the lookup, the note, the entry. A session is read
-- once per script however many of its calls are in it.
local size = tonumber(ARGV[4])
local spare = idleMs + JOURNAL_SPARE_MS
local last
local seen = {}
local function get (id)
  local s = seen[id]
  if s == nil then
    s = load(id) or false
    seen[id] = s
  end
  return s
end
-- The lookup's activity: an unpinned session's score moves up, its journal's TTL is renewed when low.
local function touch (id, s)
  if s.k == '1' then return end
  -- Even with no journal here (JOURNAL_SIZE=0): another instance may keep one.
  local journal = prefix .. 'j:' .. id
  local left = redis.call('PTTL', journal)
  if left ~= -2 and left < idleMs then redis.call('PEXPIRE', journal, spare) end
  last = activity(last)
  s.score = last
  -- Its first lookup: it is used from now on.
  if s.fresh then
    redis.call('ZREM', fresh, id)
    s.fresh = false
  end
  redis.call('ZADD', lru, score(last), id)
end
local out = {}
local i = 5
while i <= #ARGV do
  local op, id = ARGV[i], ARGV[i + 1]
  local s = get(id)
  if op == 't' then
    if not s then
      out[#out + 1] = false
    else
      touch(id, s)
      out[#out + 1] = found(s)
    end
    i = i + 2
  elseif op == 'w' then
    if not s then
      out[#out + 1] = false
    else
      touch(id, s)
      out[#out + 1] = found(s)
      if s.t == ARGV[i + 2] then
        s.n = ARGV[i + 3]
        if ARGV[i + 4] ~= '0' then s.p = tostring(bit.bor(tonumber(s.p), tonumber(ARGV[i + 4]))) end
        redis.call('HSET', sessions, id, encode(s))
      end
    end
    i = i + 5
  elseif op == 'p' then
    if s then
      s.p = tostring(bit.bor(tonumber(s.p), tonumber(ARGV[i + 2])))
      redis.call('HSET', sessions, id, encode(s))
    end
    out[#out + 1] = 0
    i = i + 3
  elseif op == 'r' then
    if not s then
      out[#out + 1] = 0
    else
      local journal = prefix .. 'j:' .. id
      local length = redis.call('LPUSH', journal, ARGV[i + 2])
      if length > size + math.ceil(size / 4) then redis.call('LTRIM', journal, 0, size - 1) end
      -- A new list takes its session's time left and the spare; after that, lookups and restores renew it.
      if length == 1 and s.k ~= '1' then
        redis.call('PEXPIRE', journal, math.max(1, math.floor(s.score / PER_MS) + spare - now))
      end
      out[#out + 1] = 1
    end
    i = i + 3
  else
    return redis.error_reply('unknown call ' .. tostring(op))
  end
end
return out
