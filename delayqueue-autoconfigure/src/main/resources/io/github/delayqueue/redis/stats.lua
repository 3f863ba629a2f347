-- Counts a topic's messages by state at one instant.
-- KEYS[1] due, KEYS[2] inflight, KEYS[3] dead
-- Returns {ready, waiting, inflight, dead}.
local t = redis.call('TIME')
local now = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
local ready = redis.call('ZCOUNT', KEYS[1], '-inf', now)
local total = redis.call('ZCARD', KEYS[1])
return {ready, total - ready, redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3])}
