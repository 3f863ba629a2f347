-- Makes dead letters due at once, with their attempts and last error reset.
-- KEYS[1] due, KEYS[2] dead, KEYS[3] attempts, KEYS[4] errors
-- ARGV[1] wake channel, ARGV[2] id ('' for the oldest ARGV[3] dead letters), ARGV[3] limit
-- Returns how many were replayed.
local t = redis.call('TIME')
local now = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
local ids
if ARGV[2] ~= '' then
  ids = {ARGV[2]}
else
  ids = redis.call('ZRANGE', KEYS[2], 0, tonumber(ARGV[3]) - 1)
end
local n = 0
for _, id in ipairs(ids) do
  if redis.call('ZREM', KEYS[2], id) == 1 then
    redis.call('ZADD', KEYS[1], now, id)
    redis.call('HDEL', KEYS[3], id)
    redis.call('HDEL', KEYS[4], id)
    n = n + 1
  end
end
if n > 0 then
  redis.call('PUBLISH', ARGV[1], '0')
end
return n
