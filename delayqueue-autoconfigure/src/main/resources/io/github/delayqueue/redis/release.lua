-- Hands unfinished deliveries back at once (graceful shutdown): due now, the attempt not counted.
-- KEYS[1] due, KEYS[2] inflight, KEYS[3] attempts; ARGV[1] wake channel; then id, attempt, id, attempt, ...
-- Returns how many were handed back.
local t = redis.call('TIME')
local now = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
local n = 0
for i = 2, #ARGV, 2 do
  local id = ARGV[i]
  if redis.call('HGET', KEYS[3], id) == ARGV[i + 1] and redis.call('ZREM', KEYS[2], id) == 1 then
    redis.call('ZADD', KEYS[1], now, id)
    redis.call('HINCRBY', KEYS[3], id, -1)
    n = n + 1
  end
end
if n > 0 then
  redis.call('PUBLISH', ARGV[1], '0')
end
return n
