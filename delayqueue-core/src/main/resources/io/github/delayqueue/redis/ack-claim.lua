-- uses: buckets, leases, dead, claims
-- What handlers send when they finish a message and are free for the next: acknowledges what they delivered (each
-- only if its lease is the current one), then leases up to ARGV[1] due messages and counts their start (see
-- leaseDue). The upkeep (expired leases, format-1 messages, bucket shrinking) is left to claim.lua.
-- ARGV[1] messages to lease, ARGV[2] lease ms, ARGV[3] max attempts, ARGV[4] dead letter max count,
-- ARGV[5] dead letter max age ms, ARGV[6] 1 if a suspect may be leased, else 0, ARGV[7] the Redis time (ms) after
-- which the caller no longer waits for the reply (0: none; run later, it acknowledges and leases nothing); then id,
-- token, id, token, ... to acknowledge
-- Returns what claim.lua returns, with the delay to the next due time only (-1: none waits).
acknowledge(8, #ARGV)
local limit = tonumber(ARGV[1])
local out = {0, -1, 0, ''}
local now, nowUs
if limit > 0 then
  now, nowUs = clock()
  local deadline = tonumber(ARGV[7])
  if deadline > 0 and now > deadline then
    limit = 0
  end
end
if limit > 0 then
  out[1] = int(nowUs)
  local left
  out[3], left = leaseDue(limit, now, score(nowUs), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]),
      tonumber(ARGV[5]), tonumber(ARGV[6]), out)
  local next = earliestBeyond(PENDING, left)
  if next then
    out[2] = delayUs(next, nowUs)
  end
end
return out
