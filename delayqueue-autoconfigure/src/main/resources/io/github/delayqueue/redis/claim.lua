-- Claims due messages for a consumer: first returns expired leases to the due set, then moves up to
-- ARGV[1] due messages to the in-flight set with a lease, counting the attempt. A message whose attempts
-- would exceed the maximum (its leases kept expiring) goes to the dead letters instead.
-- KEYS[1] msgs, KEYS[2] due, KEYS[3] inflight, KEYS[4] attempts, KEYS[5] dead, KEYS[6] errors
-- ARGV[1] limit, ARGV[2] lease ms, ARGV[3] max attempts, ARGV[4] dead max count, ARGV[5] dead max age ms
-- Returns {now, delay to the next due message or -1, then per message: id, due ms, attempt, envelope}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local leaseUntil = string.format('%.0f', now + tonumber(ARGV[2]))
local maxAttempts = tonumber(ARGV[3])
local nowText = string.format('%.0f', now)

local function forget(id)
  redis.call('ZREM', KEYS[5], id)
  redis.call('HDEL', KEYS[1], id)
  redis.call('HDEL', KEYS[4], id)
  redis.call('HDEL', KEYS[6], id)
end

local buried = false
local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', nowText, 'WITHSCORES', 'LIMIT', 0, 1000)
for i = 1, #expired, 2 do
  redis.call('ZREM', KEYS[3], expired[i])
  redis.call('ZADD', KEYS[2], expired[i + 1], expired[i])
end

local out = {now, -1}
if limit > 0 then
  local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', nowText, 'WITHSCORES', 'LIMIT', 0, limit)
  for i = 1, #due, 2 do
    local id = due[i]
    redis.call('ZREM', KEYS[2], id)
    local envelope = redis.call('HGET', KEYS[1], id)
    if not envelope then
      redis.call('HDEL', KEYS[4], id)
      redis.call('HDEL', KEYS[6], id)
    else
      local attempt = redis.call('HINCRBY', KEYS[4], id, 1)
      if attempt > maxAttempts then
        redis.call('HINCRBY', KEYS[4], id, -1)
        redis.call('ZADD', KEYS[5], nowText, id)
        if redis.call('HEXISTS', KEYS[6], id) == 0 then
          redis.call('HSET', KEYS[6], id, 'Lease expired: the consumer stopped without finishing attempt ' .. (attempt - 1))
        end
        buried = true
      else
        redis.call('ZADD', KEYS[3], leaseUntil, id)
        out[#out + 1] = id
        out[#out + 1] = due[i + 1]
        out[#out + 1] = attempt
        out[#out + 1] = envelope
      end
    end
  end
end

if buried then
  local old = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', '(' .. string.format('%.0f', now - tonumber(ARGV[5])), 'LIMIT', 0, 100)
  for _, id in ipairs(old) do
    forget(id)
  end
  local excess = redis.call('ZCARD', KEYS[5]) - tonumber(ARGV[4])
  if excess > 0 then
    for _, id in ipairs(redis.call('ZRANGE', KEYS[5], 0, math.min(excess, 100) - 1)) do
      forget(id)
    end
  end
end

local head = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if head[2] then
  out[2] = math.max(0, tonumber(head[2]) - now)
end
return out
