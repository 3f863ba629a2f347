-- uses: buckets, leases, dead
-- Counts the attempt of leased messages whose handler is about to start (messages that waited in a consumer
-- after their claim). A message whose attempts are used up goes to the dead letters instead.
-- ARGV[1] max attempts, ARGV[2] dead letter max count, ARGV[3] dead letter max age ms; then id, token, ...
-- Returns per message: the attempt number, 0 (not the current lease: do not run it) or -1 (buried).
local now = clock()
local maxAttempts = tonumber(ARGV[1])
local out = {}
local buried = false
for i = 4, #ARGV, 2 do
  local id = ARGV[i]
  local token, due, attempt = leaseOf(id)
  if token ~= ARGV[i + 1] then
    out[#out + 1] = 0
  elseif attempt > 0 then
    out[#out + 1] = attempt
  else
    local reason
    attempt, reason = charge(id, maxAttempts)
    if reason then
      bury(id, now, reason, true)
      buried = true
      out[#out + 1] = -1
    else
      redis.call('HSET', LEASE, id, token .. ':' .. due .. ':' .. attempt)
      out[#out + 1] = attempt
    end
  end
end
if buried then
  trimDead(now, tonumber(ARGV[2]), tonumber(ARGV[3]))
end
return out
