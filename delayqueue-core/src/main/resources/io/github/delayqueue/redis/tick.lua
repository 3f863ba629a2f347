-- uses: buckets
-- One tick of a recurring schedule: stores its message unless the schedule's cursor (the latest tick stored, kept in
-- the topic's 'recurring' hash) is at or past this tick, and moves the cursor. However many instances compute the
-- same tick, one stores it: the cursor, not the message id, decides, so a tick whose message was delivered and
-- acknowledged already is not stored again.
-- ARGV: name, tick (epoch ms), id, envelope, digest of the definition the tick was computed from
-- Returns 1 (stored) or 0 (the cursor was at or past the tick, or the definition has changed since it was read:
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
redis.call('HSET', CURSOR, name, ARGV[2])
local body, h = bodyOf(id)
if redis.call('HSETNX', body, id, ARGV[4]) == 0 then
  return 0
end
local _, nowUs = clock()
redis.call('ZADD', PENDING, ARGV[2], id)
if h % 16 == 0 then
  resizing().grow()
end
-- the new head (read after writing, without its score: see schedule.lua)
if redis.call('ZRANGE', PENDING, '0', '0')[1] == id then
  redis.call('PUBLISH', WAKE, delayTo(tick, nowUs))
end
return 1
