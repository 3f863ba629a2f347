-- uses: controls, buckets, leases, dead
-- A recurring schedule's definition changed (defined, edited, paused, resumed or removed): records the digest of the
-- definition now stored (tick.lua stores no tick computed from another, so a tick computed from a definition read
-- before the change is refused), and unless only resumed, withdraws its tick messages that wait for a tick after
-- the Redis clock's now (never one that was attempted) and sets its cursor to now (the later of the Redis clock's and
-- the caller's), so that its next ticks are computed afresh from the new definition and never again at or below a
-- tick that was delivered.
-- ARGV: name, digest of the stored definition ('-' once removed), reset ('1' or '0'), the caller's now (epoch ms),
-- then candidate tick ids
-- Returns how many waiting ticks were withdrawn.
local CURSOR = BASE .. 'recurring'
local name = ARGV[1]
redis.call('HSET', CURSOR, name .. ':def', ARGV[2])
if ARGV[3] ~= '1' then
  return 0
end
local nowMs = clock()
local withdrawn = 0
for i = 5, #ARGV do
  local id = ARGV[i]
  local score = redis.call('ZSCORE', PENDING, id)
  if score and tonumber(score) > nowMs and redis.call('HEXISTS', TRIES, id) == 0 then
    redis.call('ZREM', PENDING, id)
    forget(id)
    withdrawn = withdrawn + 1
  end
end
redis.call('HSET', CURSOR, name, int(math.max(nowMs, tonumber(ARGV[4]))))
return withdrawn
