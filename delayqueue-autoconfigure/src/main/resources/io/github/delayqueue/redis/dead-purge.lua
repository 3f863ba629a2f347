-- Deletes dead letters.
-- KEYS[1] msgs, KEYS[2] dead, KEYS[3] attempts, KEYS[4] errors
-- ARGV[1] id ('' for the oldest ARGV[2] dead letters), ARGV[2] limit
-- Returns how many were deleted.
local ids
if ARGV[1] ~= '' then
  ids = {ARGV[1]}
else
  ids = redis.call('ZRANGE', KEYS[2], 0, tonumber(ARGV[2]) - 1)
end
local n = 0
for _, id in ipairs(ids) do
  if redis.call('ZREM', KEYS[2], id) == 1 then
    redis.call('HDEL', KEYS[1], id)
    redis.call('HDEL', KEYS[3], id)
    redis.call('HDEL', KEYS[4], id)
    n = n + 1
  end
end
return n
