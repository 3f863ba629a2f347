-- uses: buckets, leases, dead, v1, format1
-- Claims due messages for a consumer. First it returns expired leases to the pending set at their original due
-- time, adopts some format-1 messages, trims dead letters past their age, and resizes the buckets; then it leases
-- up to ARGV[1] + ARGV[2] due messages. The first ARGV[1] of them start at once: their attempt is counted now (a
-- message whose attempts are used up goes to the dead letters instead). The others only wait in the consumer:
-- their attempt is counted by start.lua when a handler takes them, never before.
-- ARGV[1] messages to start, ARGV[2] messages to prefetch, ARGV[3] lease ms, ARGV[4] max attempts,
-- ARGV[5] dead letter max count, ARGV[6] dead letter max age ms
-- Returns {now (microseconds), delay in ms to the next due time or lease deadline (-1: none), buried count, then per message:
-- id, token, due score (ms, to the microsecond), attempt (0: not started), envelope (false: none stored)}.
local now, nowUs = clock()
local nowScore = score(nowUs)
local toStart = tonumber(ARGV[1])
local limit = toStart + tonumber(ARGV[2])
local leaseUntil = int(now + tonumber(ARGV[3]))
local maxAttempts = tonumber(ARGV[4])
local deadMaxCount = tonumber(ARGV[5])
local deadMaxAge = tonumber(ARGV[6])

migrate(100, now)
local expired = redis.call('ZRANGEBYSCORE', LEASED, '-inf', int(now), 'LIMIT', 0, 1000)
for _, id in ipairs(expired) do
  local token, due, attempt = leaseOf(id)
  if token == nil then
    -- unreadable lease: count an attempt, as if its handler had started (never a crash loop)
    attempt = (count(redis.call('HGET', TRIES, id)) or 0) + 1
  end
  if attempt > 0 then
    -- its handler started and never finished: the attempt counts
    redis.call('HSET', TRIES, id, attempt)
  end
  endLease(id)
  redis.call('ZADD', PENDING, due or nowScore, id)
end
trimDead(now, deadMaxCount, deadMaxAge)
if bucketCount > 1 then
  resizing().shrink()
end

local out = {int(nowUs), -1, 0}
local buried = 0
if limit > 0 then
  local due = redis.call('ZRANGEBYSCORE', PENDING, '-inf', nowScore, 'WITHSCORES', 'LIMIT', 0, limit)
  local token = count(redis.call('HGET', META, 'token'))
  if token == false then
    -- unreadable: continue above any token a counter could have handed out
    token = now * 1000
  end
  token = token or 0
  local started = 0
  for i = 1, #due, 2 do
    local id = due[i]
    local envelope = redis.call('HGET', bodyOf(id), id)
    local attempt, reason = 0, nil
    if envelope and started < toStart then
      attempt, reason = charge(id, maxAttempts)
    end
    if not envelope then
      -- nothing stored to deliver: shown in the dead letters with the reason, never dropped silently
      bury(id, now, 'No stored envelope for this message', false)
      buried = buried + 1
    elseif reason then
      bury(id, now, reason, true)
      buried = buried + 1
    else
      if attempt > 0 then
        started = started + 1
      end
      token = token + 1
      redis.call('ZREM', PENDING, id)
      redis.call('ZADD', LEASED, leaseUntil, id)
      redis.call('HSET', LEASE, id, int(token) .. ':' .. due[i + 1] .. ':' .. attempt)
      out[#out + 1] = id
      out[#out + 1] = int(token)
      out[#out + 1] = due[i + 1]
      out[#out + 1] = attempt
      out[#out + 1] = envelope
    end
  end
  if token > 0 then
    redis.call('HSET', META, 'token', int(token))
  end
  if buried > 0 then
    trimDead(now, deadMaxCount, deadMaxAge)
  end
end
out[3] = buried

local next = nil
local head = redis.call('ZRANGE', PENDING, 0, 0, 'WITHSCORES')
if head[2] then
  next = tonumber(head[2])
end
local lease = redis.call('ZRANGE', LEASED, 0, 0, 'WITHSCORES')
if lease[2] and (next == nil or tonumber(lease[2]) < next) then
  next = tonumber(lease[2])
end
if next ~= nil then
  out[2] = delayTo(next, nowUs)
end
return out
