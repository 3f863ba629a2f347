-- Moves one format-1 message (already taken off its format-1 set) into set 'into' at 'score'.
local function adopt(id, score, into)
  -- (it may carry an attempt count or an error over)
  noMarks = false
  local envelope = redis.call('HGET', V1_MSGS, id)
  if envelope and redis.call('HSETNX', bodyOf(id), id, envelope) == 0 then
    -- the id was scheduled in both formats (a 0.1 producer during a rolling upgrade): the format-2 message
    -- keeps the id; the format-1 one is set aside, not lost
    redis.call('HSET', BASE .. 'format1-conflicts', id, envelope)
  elseif envelope then
    redis.call('ZADD', into, math.max(0, tonumber(score) or 0), id)
    local attempts = count(redis.call('HGET', V1_ATTEMPTS, id))
    if attempts and attempts > 0 then
      redis.call('HSET', TRIES, id, attempts)
    end
    local error = redis.call('HGET', V1_ERRORS, id)
    if error then
      redis.call('HSET', ERROR, id, error)
    end
  end
  redis.call('HDEL', V1_MSGS, id)
  redis.call('HDEL', V1_ATTEMPTS, id)
  redis.call('HDEL', V1_ERRORS, id)
  return envelope ~= false
end

-- Adopts the format-1 message with this id if it waits or is dead there (not while a format-1 consumer holds it).
local function adoptOne(id)
  local due = redis.call('ZSCORE', V1_DUE, id)
  if due then
    redis.call('ZREM', V1_DUE, id)
    return adopt(id, due, PENDING)
  end
  local died = redis.call('ZSCORE', V1_DEAD, id)
  if died then
    redis.call('ZREM', V1_DEAD, id)
    return adopt(id, died, BURIED)
  end
  return false
end

-- Adopts up to 'limit' format-1 messages of each kind: waiting, dead, and leased ones whose lease has expired.
-- Returns how many format-1 messages remain (leased ones included).
local function migrate(limit, now)
  if redis.call('EXISTS', V1_DUE, V1_INFLIGHT, V1_DEAD) == 0 then
    return 0
  end
  local waiting = redis.call('ZRANGE', V1_DUE, 0, limit - 1, 'WITHSCORES')
  for i = 1, #waiting, 2 do
    redis.call('ZREM', V1_DUE, waiting[i])
    adopt(waiting[i], waiting[i + 1], PENDING)
  end
  local dead = redis.call('ZRANGE', V1_DEAD, 0, limit - 1, 'WITHSCORES')
  for i = 1, #dead, 2 do
    redis.call('ZREM', V1_DEAD, dead[i])
    adopt(dead[i], dead[i + 1], BURIED)
  end
  local expired = redis.call('ZRANGEBYSCORE', V1_INFLIGHT, '-inf', int(now), 'WITHSCORES', 'LIMIT', 0, limit)
  for i = 1, #expired, 2 do
    redis.call('ZREM', V1_INFLIGHT, expired[i])
    adopt(expired[i], expired[i + 1], PENDING)
  end
  resizing().grow()
  return redis.call('ZCARD', V1_DUE) + redis.call('ZCARD', V1_INFLIGHT) + redis.call('ZCARD', V1_DEAD)
end

-- ----------------------------------------------------------------------------------------------------------------
