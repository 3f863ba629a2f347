-- uses: leases
-- Hands current leases back at once (graceful shutdown): the messages are pending at their due time again, and
-- an attempt that had started is not counted (the count stored for the message was not changed by the lease).
-- ARGV: id, token, id, token, ...
-- Returns how many were handed back.
local n = 0
for i = 1, #ARGV, 2 do
  local id = ARGV[i]
  local token, due = leaseOf(id)
  if token ~= nil and token == ARGV[i + 1] then
    endLease(id)
    redis.call('ZADD', PENDING, due, id)
    n = n + 1
  end
end
if n > 0 then
  redis.call('PUBLISH', WAKE, '0')
end
return n
