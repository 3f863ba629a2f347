-- Deletes delivered messages. Each is deleted only if it is in flight with the given attempt, so an ack from
-- a delivery whose lease expired and was taken over, or from a message whose id was reused, changes nothing.
-- KEYS[1] msgs, KEYS[2] inflight, KEYS[3] attempts, KEYS[4] errors; ARGV: id, attempt, id, attempt, ...
-- Returns how many were deleted.
local n = 0
for i = 1, #ARGV, 2 do
  local id = ARGV[i]
  if redis.call('HGET', KEYS[3], id) == ARGV[i + 1] and redis.call('ZREM', KEYS[2], id) == 1 then
    redis.call('HDEL', KEYS[1], id)
    redis.call('HDEL', KEYS[3], id)
    redis.call('HDEL', KEYS[4], id)
    n = n + 1
  end
end
return n
