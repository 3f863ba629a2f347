-- Moves the due time of a waiting message.
-- KEYS[1] due; ARGV[1] id, ARGV[2] kind ('d' delay ms | 'a' absolute ms), ARGV[3] value, ARGV[4] wake channel
-- Returns 1 if it was waiting and has moved, else 0.
local id = ARGV[1]
if not redis.call('ZSCORE', KEYS[1], id) then
  return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due
if ARGV[2] == 'd' then
  due = now + tonumber(ARGV[3])
else
  due = tonumber(ARGV[3])
end
redis.call('ZADD', KEYS[1], 'XX', string.format('%.0f', due), id)
local head = redis.call('ZRANGE', KEYS[1], 0, 0)
if head[1] == id then
  redis.call('PUBLISH', ARGV[4], string.format('%.0f', math.max(0, due - now)))
end
return 1
