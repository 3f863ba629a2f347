-- uses: buckets, leases, dead
-- Counts the attempt of leased messages whose handler is about to start (messages that waited in a consumer
-- after their claim); a message whose attempts are used up goes to the dead letters instead. First it
-- acknowledges messages whose handlers just returned (a handler that finishes one message and starts the next
-- sends both in one call).
-- ARGV[1] max attempts, ARGV[2] dead letter max count, ARGV[3] dead letter max age ms, ARGV[4] number of acks n;
-- then n times id, token to acknowledge; then id, token to start, ...
-- Returns per message to start: the attempt number, 0 (not the current lease: do not run it) or -1 (buried).
local now = clock()
local maxAttempts = tonumber(ARGV[1])
local acks = tonumber(ARGV[4])
for i = 5, 4 + 2 * acks, 2 do
  acknowledge(ARGV[i], ARGV[i + 1])
end
local out = {}
local buried = false
for i = 5 + 2 * acks, #ARGV, 2 do
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
