-- uses: buckets, leases, dead, claims, v1, format1
-- Claims due messages for a consumer's free handlers. First it returns expired leases to the pending set at their
-- original due time (counting the attempt of each), adopts some format-1 messages, trims dead letters past their
-- age and resizes the buckets; then it leases up to ARGV[1] due messages and counts their start (see leaseDue).
-- ARGV[1] messages to lease (0: only the upkeep), ARGV[2] lease ms, ARGV[3] max attempts,
-- ARGV[4] dead letter max count, ARGV[5] dead letter max age ms, ARGV[6] 1 if a suspect may be leased, else 0,
-- ARGV[7] the Redis time (ms) after which the caller no longer waits for the reply (0: none): run later, the claim
-- does its upkeep and leases nothing (no attempt is counted for messages no handler would run)
-- Returns {now (microseconds), delay in microseconds to the next due time or lease deadline (-1: none), buried count,
-- the id of the suspect leased ('' if none), then per message: id, token, due score (ms, to the microsecond), attempt,
-- envelope}. A suspect left because it could not be leased does not count as due now for the delay.
local now, nowUs = clock()
local nowScore = score(nowUs)
local limit = tonumber(ARGV[1])
local leaseMillis = tonumber(ARGV[2])
local maxAttempts = tonumber(ARGV[3])
local deadMaxCount = tonumber(ARGV[4])
local deadMaxAge = tonumber(ARGV[5])
local suspects = tonumber(ARGV[6])
local deadline = tonumber(ARGV[7])
if deadline > 0 and now > deadline then
  limit = 0
end

migrate(100, now)
local expired = redis.call('ZRANGEBYSCORE', LEASED, '-inf', int(now), 'LIMIT', 0, 1000)
if #expired > 0 then
  local leases = hmget(LEASE, expired)
  local unreadable = {}
  for k, id in ipairs(expired) do
    if parseLease(leases[k]) == nil then
      unreadable[#unreadable + 1] = id
    end
  end
  local unreadableTries = hmget(TRIES, unreadable)
  local tries, scores, suspected, u = {}, {}, {}, 0
  for k, id in ipairs(expired) do
    local _, due, attempt = parseLease(leases[k])
    if due == nil then
      -- unreadable lease: count an attempt, as if its handler had started (never a crash loop)
      u = u + 1
      attempt = (count(unreadableTries[u]) or 0) + 1
    end
    if attempt > 0 then
      -- its handler started and never finished: the attempt counts, and the message may have killed its consumer
      tries[#tries + 1] = id
      tries[#tries + 1] = attempt
      suspected[#suspected + 1] = id
    end
    scores[#scores + 1] = due or nowScore
    scores[#scores + 1] = id
  end
  each('ZADD', PENDING, scores)
  each('HSET', TRIES, tries)
  each('SADD', SUSPECT, suspected)
  each('ZREM', LEASED, expired)
  each('HDEL', LEASE, expired)
end
trimDead(now, deadMaxCount, deadMaxAge)
if bucketCount > 1 then
  resizing().shrink()
end

local out = {int(nowUs), -1, 0, ''}
local left = nil
if limit > 0 then
  out[3], left = leaseDue(limit, now, nowScore, leaseMillis, maxAttempts, deadMaxCount, deadMaxAge, suspects, out)
end

local next = earliestBeyond(PENDING, left)
local lease = earliest(LEASED)
if lease and (next == nil or lease < next) then
  next = lease
end
if next ~= nil then
  out[2] = delayUs(next, nowUs)
end
return out
