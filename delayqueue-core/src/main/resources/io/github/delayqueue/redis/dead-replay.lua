-- uses: controls, groups, buckets, leases, dead, v1, format1
-- Makes dead letters due at once, with their attempts and last error reset, and without an expiry deadline (an
-- operator asked for them).
-- ARGV[1] id ('' for the oldest ARGV[2] dead letters), ARGV[2] limit
-- Returns how many were replayed.
local now, nowUs = clock()
local ids
if ARGV[1] ~= '' then
  adoptOne(ARGV[1])
  ids = {ARGV[1]}
else
  migrate(tonumber(ARGV[2]), now)
  ids = redis.call('ZRANGE', BURIED, 0, tonumber(ARGV[2]) - 1)
end
local n = 0
for _, id in ipairs(ids) do
  if redis.call('ZREM', BURIED, id) == 1 then
    -- groups: a grouped message goes back to its group's set
    local group = grouped() and envelopeGroup(redis.call('HGET', bodyOf(id), id)) or nil
    if group then
      redis.call('ZADD', groupKey(group), score(nowUs), id)
      groupWaits(group, score(nowUs))
    else
      redis.call('ZADD', PENDING, score(nowUs), id)
    end
    redis.call('HDEL', TRIES, id)
    redis.call('HDEL', ERROR, id)
    redis.call('HDEL', EXPIRY, id)
    n = n + 1
  end
end
if n > 0 then
  redis.call('PUBLISH', WAKE, '0')
end
return n
