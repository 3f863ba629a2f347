-- Removes a waiting message.
-- KEYS[1] msgs, KEYS[2] due, KEYS[3] attempts, KEYS[4] errors; ARGV[1] id
-- Returns 1 if it was waiting and is gone, else 0.
local id = ARGV[1]
if redis.call('ZREM', KEYS[2], id) == 1 then
  redis.call('HDEL', KEYS[1], id)
  redis.call('HDEL', KEYS[3], id)
  redis.call('HDEL', KEYS[4], id)
  return 1
end
return 0
