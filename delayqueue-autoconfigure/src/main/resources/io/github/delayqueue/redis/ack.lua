-- uses: buckets, leases, dead
-- Deletes delivered messages, each only if its lease is the current one.
-- ARGV: id, token, id, token, ...
-- Returns how many were deleted.
local n = 0
for i = 1, #ARGV, 2 do
  local id = ARGV[i]
  local token, _, attempt = leaseOf(id)
  if token ~= nil and token == ARGV[i + 1] then
    redis.call('ZREM', LEASED, id)
    redis.call('HDEL', LEASE, id)
    redis.call('HDEL', bodyOf(id), id)
    if attempt > 1 then
      -- only a message tried before has a count or an error stored
      redis.call('HDEL', TRIES, id)
      redis.call('HDEL', ERROR, id)
    end
    n = n + 1
  end
end
return n
