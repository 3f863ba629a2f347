-- uses: buckets
-- One tick of a recurring schedule: stores its message unless the schedule's cursor (the latest tick stored, kept in
-- the topic's 'recurring' hash) is at or past this tick, and moves the cursor. However many instances compute the
-- same tick, one stores it: the cursor, not the message id, decides, so a tick whose message was delivered and
-- acknowledged already is not stored again. The cursor is at or past every tick of the schedule whose message was
-- stored (rewind.lua keeps it so), so an id that exists here while the cursor is before the tick belongs to another
-- message (a caller's own id that happens to read '<name>@<millis>'): the tick is then stored under '<id>~<n>', the
-- first n from 1 to 8 that is free, and the alias is remembered in the field '<name>@' (space-separated aliases of
-- ticks not due yet) so that a change of the definition can withdraw it.
-- ARGV: name, tick (epoch ms), id, envelope, digest of the definition the tick was computed from
-- Returns 1 (stored under the id), 1 + n (stored under '<id>~<n>'), 0 (the cursor was at or past the tick, or the
-- definition has changed since it was read: nothing changed) or -1 (the id and its eight aliases are all taken:
-- nothing changed).
local CURSOR = BASE .. 'recurring'
local name, tick, id = ARGV[1], tonumber(ARGV[2]), ARGV[3]
if redis.call('HGET', CURSOR, name .. ':def') ~= ARGV[5] then
  return 0
end
local cursor = count(redis.call('HGET', CURSOR, name))
if cursor and cursor >= tick then
  return 0
end
-- format 1's envelopes (see the prelude's v1 section): an id stored there exists too
local V1_MSGS = BASE .. 'msgs'
local format1 = redis.call('EXISTS', V1_MSGS) == 1
local function taken(candidate)
  return redis.call('HEXISTS', (bodyOf(candidate)), candidate) == 1
      or (format1 and redis.call('HEXISTS', V1_MSGS, candidate) == 1)
end
local stored, n = id, 0
while taken(stored) do
  n = n + 1
  if n > 8 then
    return -1
  end
  stored = id .. '~' .. n
end
local _, nowUs = clock()
if n > 0 then
  -- the aliases of ticks still to come stay listed; older ones are dropped (only a tick not due yet is withdrawn)
  local ALIASES = name .. '@'
  local kept = {}
  for alias in string.gmatch(redis.call('HGET', CURSOR, ALIASES) or '', '%S+') do
    local at = tonumber(string.match(alias, '@(%d+)~%d+$'))
    if at and at * 1000 > nowUs then
      kept[#kept + 1] = alias
    end
  end
  kept[#kept + 1] = stored
  redis.call('HSET', CURSOR, ALIASES, table.concat(kept, ' '))
end
redis.call('HSET', CURSOR, name, ARGV[2])
local body, h = bodyOf(stored)
redis.call('HSET', body, stored, ARGV[4])
redis.call('ZADD', PENDING, ARGV[2], stored)
if h % 16 == 0 then
  resizing().grow()
end
-- the new head (read after writing, without its score: see schedule.lua)
if redis.call('ZRANGE', PENDING, '0', '0')[1] == stored then
  redis.call('PUBLISH', WAKE, delayTo(tick, nowUs))
end
return 1 + n
