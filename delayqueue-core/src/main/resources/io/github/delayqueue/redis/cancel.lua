-- uses: controls, buckets, leases, dead, v1
-- Removes a waiting message (scheduled or waiting for a retry).
-- ARGV[1] id
-- Returns 1 if it was waiting and is gone, else 0.
local id = ARGV[1]
if redis.call('ZREM', PENDING, id) == 1 then
  forget(id)
  return 1
end
if redis.call('ZREM', V1_DUE, id) == 1 then
  redis.call('HDEL', V1_MSGS, id)
  redis.call('HDEL', V1_ATTEMPTS, id)
  redis.call('HDEL', V1_ERRORS, id)
  return 1
end
return 0
