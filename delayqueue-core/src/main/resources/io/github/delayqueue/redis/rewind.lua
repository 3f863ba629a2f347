-- uses: buckets, leases, dead
-- Lets a recurring schedule's next ticks be computed afresh (after an edit, a pause or a removal): removes its tick
-- message that waits for a tick after 'from' (if any) and sets its cursor back to 'from', unless it is before it.
-- ARGV: name, from (epoch ms), id of the waiting tick's message or '' if none
-- Returns 1 if a waiting tick was removed, else 0.
local CURSOR = BASE .. 'recurring'
local name, from, id = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local removed = 0
if id ~= '' and redis.call('ZREM', PENDING, id) == 1 then
  forget(id)
  removed = 1
end
local cursor = count(redis.call('HGET', CURSOR, name))
if cursor and cursor > from then
  redis.call('HSET', CURSOR, name, ARGV[2])
end
return removed
