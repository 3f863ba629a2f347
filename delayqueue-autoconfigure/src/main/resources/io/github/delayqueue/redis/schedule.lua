-- Stores messages unless their id exists in the topic, and wakes consumers when one becomes the new head.
-- KEYS[1] msgs (hash id -> envelope), KEYS[2] due (zset id -> due ms)
-- ARGV[1] wake channel; then per message: id, kind ('d' delay ms | 'a' absolute ms), value, envelope
-- Returns one 1 (stored) or 0 (id exists, nothing changed) per message.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local head = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
local headDue = head[2] and tonumber(head[2]) or nil
local earliest = nil
local out = {}
for i = 2, #ARGV, 4 do
  local id = ARGV[i]
  local due
  if ARGV[i + 1] == 'd' then
    due = now + tonumber(ARGV[i + 2])
  else
    due = tonumber(ARGV[i + 2])
  end
  if redis.call('HSETNX', KEYS[1], id, ARGV[i + 3]) == 1 then
    redis.call('ZADD', KEYS[2], string.format('%.0f', due), id)
    out[#out + 1] = 1
    if earliest == nil or due < earliest then
      earliest = due
    end
  else
    out[#out + 1] = 0
  end
end
if earliest ~= nil and (headDue == nil or earliest < headDue) then
  redis.call('PUBLISH', ARGV[1], string.format('%.0f', math.max(0, earliest - now)))
end
return out
