-- uses: leases
-- Extends current leases (of running handlers and of messages waiting in the consumer).
-- ARGV[1] lease ms; then id, token, id, token, ...
-- Returns the ids whose lease was extended.
local now = clock()
local leaseUntil = int(now + tonumber(ARGV[1]))
local scores = {}
local ids = {}
for _, lease in ipairs(currentLeases(2, #ARGV)) do
  scores[#scores + 1] = leaseUntil
  scores[#scores + 1] = lease[1]
  ids[#ids + 1] = lease[1]
end
for i = 1, #scores, 1000 do
  redis.call('ZADD', LEASED, 'XX', unpack(scores, i, math.min(#scores, i + 999)))
end
return ids
