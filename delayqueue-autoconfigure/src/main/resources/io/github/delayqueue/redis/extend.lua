-- Extends the leases of deliveries whose handlers are still running.
-- KEYS[1] inflight, KEYS[2] attempts; ARGV[1] lease ms; then id, attempt, id, attempt, ...
-- Returns how many leases were extended.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local leaseUntil = string.format('%.0f', now + tonumber(ARGV[1]))
local n = 0
for i = 2, #ARGV, 2 do
  local id = ARGV[i]
  if redis.call('HGET', KEYS[2], id) == ARGV[i + 1] then
    n = n + redis.call('ZADD', KEYS[1], 'XX', 'CH', leaseUntil, id)
  end
end
return n
