-- uses: leases
-- Extends current leases (of running handlers and of messages waiting in the consumer).
-- ARGV[1] lease ms; then id, token, id, token, ...
-- Returns how many leases were extended.
local now = clock()
local leaseUntil = int(now + tonumber(ARGV[1]))
local n = 0
for i = 2, #ARGV, 2 do
  local id = ARGV[i]
  if holds(id, ARGV[i + 1]) then
    redis.call('ZADD', LEASED, 'XX', leaseUntil, id)
    n = n + 1
  end
end
return n
