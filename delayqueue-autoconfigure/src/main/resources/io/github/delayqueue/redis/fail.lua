-- Ends a failed delivery: either schedules a retry after a delay, or moves the message to the dead letters
-- (trimming the dead letters to their maximum count and age). Ignored unless the delivery is the current one.
-- KEYS[1] msgs, KEYS[2] due, KEYS[3] inflight, KEYS[4] attempts, KEYS[5] dead, KEYS[6] errors
-- ARGV[1] id, ARGV[2] attempt, ARGV[3] 'retry' | 'bury', ARGV[4] retry delay ms, ARGV[5] error text,
-- ARGV[6] dead max count, ARGV[7] dead max age ms, ARGV[8] wake channel
-- Returns 1 (retry scheduled), 2 (buried) or 0 (not the current delivery: nothing changed).
local id = ARGV[1]
if redis.call('HGET', KEYS[4], id) ~= ARGV[2] or not redis.call('ZSCORE', KEYS[3], id) then
  return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREM', KEYS[3], id)
redis.call('HSET', KEYS[6], id, ARGV[5])
if ARGV[3] == 'retry' then
  local due = now + tonumber(ARGV[4])
  redis.call('ZADD', KEYS[2], string.format('%.0f', due), id)
  local head = redis.call('ZRANGE', KEYS[2], 0, 0)
  if head[1] == id then
    redis.call('PUBLISH', ARGV[8], string.format('%.0f', math.max(0, due - now)))
  end
  return 1
end

local function forget(dead)
  redis.call('ZREM', KEYS[5], dead)
  redis.call('HDEL', KEYS[1], dead)
  redis.call('HDEL', KEYS[4], dead)
  redis.call('HDEL', KEYS[6], dead)
end
redis.call('ZADD', KEYS[5], string.format('%.0f', now), id)
local old = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', '(' .. string.format('%.0f', now - tonumber(ARGV[7])), 'LIMIT', 0, 100)
for _, dead in ipairs(old) do
  forget(dead)
end
local excess = redis.call('ZCARD', KEYS[5]) - tonumber(ARGV[6])
if excess > 0 then
  for _, dead in ipairs(redis.call('ZRANGE', KEYS[5], 0, math.min(excess, 100) - 1)) do
    forget(dead)
  end
end
return 2
