-- The part every delayqueue script shares, put in front of each script's own text when it is loaded (a fixed
-- resource: no script text is ever built from input). Stored format 2.
--
-- KEYS[1] is the topic's pending set, <prefix>:{<topic>}:pending. Every other key of the topic shares its hash tag
-- (so a script touches one cluster slot) and is named here:
--   pending   ZSET  id -> due time (Redis-clock ms, to the microsecond): scheduled and retry-waiting messages
--   leased    ZSET  id -> lease deadline (ms): claimed messages, whether their handler has started or not
--   lease     HASH  id -> "<token>:<due ms>:<started 0|1>" for every leased message; the token fences every later
--                   call (ack, extend, start, fail, release), so a stale consumer never touches a later claim
--   body:<n>  HASH  id -> envelope, in buckets that grow and shrink with the topic (linear hashing), so that each
--                   stays a small listpack-encoded hash: a message costs a few bytes more than its id and envelope
--   meta      HASH  buckets -> bucket count; token -> last lease token handed out
--   tries     HASH  id -> handler starts so far (absent before the first start)
--   buried    ZSET  id -> time it died (ms): dead letters; their envelopes stay in the buckets
--   error     HASH  id -> last error of a retrying or dead message
-- and the pub/sub channel <prefix>:{<topic>}:wake, on which the delay to a new earliest due time is published.
-- Format 1 keys (msgs, due, inflight, attempts, dead, errors) are read and migrated, never written.
-- Sections: 'base' is in every script; a script names the others it uses on a '-- uses:' line, and gets them in
-- this file's order.
-- @section base
local PENDING = KEYS[1]
local BASE = string.sub(PENDING, 1, -8)
local LEASED = BASE .. 'leased'
local LEASE = BASE .. 'lease'
local META = BASE .. 'meta'
local TRIES = BASE .. 'tries'
local BURIED = BASE .. 'buried'
local ERROR = BASE .. 'error'
local WAKE = BASE .. 'wake'
local V1_MSGS = BASE .. 'msgs'
local V1_DUE = BASE .. 'due'
local V1_INFLIGHT = BASE .. 'inflight'
local V1_ATTEMPTS = BASE .. 'attempts'
local V1_DEAD = BASE .. 'dead'
local V1_ERRORS = BASE .. 'errors'

-- Messages per bucket on average before a bucket splits; the fullest buckets hold about twice this, well under
-- the 128 entries up to which Redis keeps a hash listpack-encoded by default.
local BUCKET_FILL = 40

-- An integer as Redis text (no exponent, no fraction).
local function int(value)
  return string.format('%.0f', value)
end

-- The Redis clock: milliseconds (for leases and deaths) and microseconds (for due times).
local function clock()
  local t = redis.call('TIME')
  local us = tonumber(t[1]) * 1000000 + tonumber(t[2])
  return math.floor(us / 1000), us
end

-- A time in microseconds as a score in milliseconds with three decimals: exact, so comparing scores compares the
-- microseconds, and a message is never due before server time at scheduling plus its delay.
local function score(us)
  return string.format('%.0f.%03d', math.floor(us / 1000), us % 1000)
end

-- A due time from a schedule argument: a delay in microseconds from now ('d'), or an absolute time in ms ('a').
local function dueScore(kind, value, nowUs)
  if kind == 'd' then
    return score(nowUs + tonumber(value))
  end
  return value
end

-- The delay from now (ms) to a due score, rounded up: what the wake channel carries.
local function delayTo(due, nowUs)
  return int(math.max(0, math.ceil(tonumber(due) - nowUs / 1000)))
end

-- A non-negative integer read from Redis (below 2^53, so exact), or nil if absent; false if present but not such an
-- integer ('inf', a fraction, text...).
local function count(raw)
  if not raw then
    return nil
  end
  local n = tonumber(raw)
  if not n or n < 0 or n >= 9007199254740992 or n ~= math.floor(n) then
    return false
  end
  return n
end

-- @section buckets -----------------------------------------------------------------------------------------------

local bucketCount = nil

-- The bucket count. Every script that touches envelopes reads it before it writes anything: if it is unreadable,
-- no envelope can be found, so the script stops with an error and changes nothing.
local function buckets()
  if not bucketCount then
    local raw = redis.call('HGET', META, 'buckets')
    bucketCount = count(raw)
    if bucketCount == nil then
      bucketCount = 1
    elseif not bucketCount or bucketCount < 2 or bucketCount > 16777216 then
      error({ err = 'delayqueue: corrupt bucket count ' .. tostring(raw) .. ' in ' .. META })
    end
  end
  return bucketCount
end

local function hashOf(id)
  return tonumber(string.sub(redis.sha1hex(id), 1, 8), 16)
end

-- The largest power of two not above n.
local function lowOf(n)
  local low = 1
  while low * 2 <= n do
    low = low * 2
  end
  return low
end

local function bucketKey(index)
  return BASE .. 'body:' .. index
end

-- The bucket of an id, and the id's hash. Linear hashing: buckets below the split pointer (n - low) have been split
-- already and use one more bit.
local function bodyOf(id)
  local n = buckets()
  local low = lowOf(n)
  local h = hashOf(id)
  local index = h % low
  if index < n - low then
    index = h % (low * 2)
  end
  return bucketKey(index), h
end

local function messages()
  return redis.call('ZCARD', PENDING) + redis.call('ZCARD', LEASED) + redis.call('ZCARD', BURIED)
end

-- Writes a bucket anew with the given entries: one grown past listpack size is compact again.
local function rewrite(key, keep)
  redis.call('DEL', key)
  for i = 1, #keep, 1000 do
    redis.call('HSET', key, unpack(keep, i, math.min(#keep, i + 999)))
  end
end

local function split()
  local n = buckets()
  local low = lowOf(n)
  local from = n - low
  local source = bucketKey(from)
  local target = bucketKey(from + low)
  local entries = redis.call('HGETALL', source)
  local keep, move, gone = {}, {}, {}
  for i = 1, #entries, 2 do
    if hashOf(entries[i]) % (low * 2) == from then
      keep[#keep + 1] = entries[i]
      keep[#keep + 1] = entries[i + 1]
    else
      move[#move + 1] = entries[i]
      move[#move + 1] = entries[i + 1]
      gone[#gone + 1] = entries[i]
    end
  end
  if #move > 0 then
    for i = 1, #move, 1000 do
      redis.call('HSET', target, unpack(move, i, math.min(#move, i + 999)))
    end
    if #entries > 256 then
      rewrite(source, keep)
    else
      redis.call('HDEL', source, unpack(gone))
    end
  end
  bucketCount = n + 1
  redis.call('HSET', META, 'buckets', bucketCount)
end

local function merge()
  local n = buckets()
  local low = lowOf(n - 1)
  local source = bucketKey(n - 1)
  local entries = redis.call('HGETALL', source)
  if #entries > 0 then
    for i = 1, #entries, 1000 do
      redis.call('HSET', bucketKey(n - 1 - low), unpack(entries, i, math.min(#entries, i + 999)))
    end
    redis.call('DEL', source)
  end
  bucketCount = n - 1
  if bucketCount == 1 then
    redis.call('HDEL', META, 'buckets')
  else
    redis.call('HSET', META, 'buckets', bucketCount)
  end
end

-- Splits buckets while the topic holds more than BUCKET_FILL messages per bucket.
local function grow()
  local total = messages()
  while total > buckets() * BUCKET_FILL do
    split()
  end
end

-- Merges at most a few buckets while the topic holds under a quarter of BUCKET_FILL per bucket.
local function shrink()
  local total = messages()
  local merges = 0
  while merges < 16 and buckets() > 1 and total * 4 < buckets() * BUCKET_FILL do
    merge()
    merges = merges + 1
  end
end

-- read before anything is written
buckets()

-- @section leases ------------------------------------------------------------------------------------------------

-- The lease of an id: token, due score (text) and whether its handler started; nil if none or unreadable.
local function leaseOf(id)
  local raw = redis.call('HGET', LEASE, id)
  if not raw then
    return nil
  end
  local token, due, started = string.match(raw, '^(%d+):([%-%d%.e+]+):([01])$')
  if not token or not tonumber(due) then
    return nil
  end
  return token, due, started == '1'
end

-- Whether a lease is the current one of its id: the token presented must be the one last handed out for it.
local function holds(id, token)
  local current = leaseOf(id)
  return current ~= nil and current == token
end

local function endLease(id)
  redis.call('ZREM', LEASED, id)
  redis.call('HDEL', LEASE, id)
end

-- @section dead --------------------------------------------------------------------------------------------------

-- Deletes what the topic holds for an id besides its place in pending, leased or buried.
local function forget(id)
  redis.call('HDEL', bodyOf(id), id)
  redis.call('HDEL', TRIES, id)
  redis.call('HDEL', ERROR, id)
  redis.call('HDEL', LEASE, id)
end

-- Deletes dead letters older than maxAge or beyond maxCount, oldest first, at most a hundred of each per call.
local function trimDead(now, maxCount, maxAge)
  local old = redis.call('ZRANGEBYSCORE', BURIED, '-inf', '(' .. int(now - maxAge), 'LIMIT', 0, 100)
  for _, id in ipairs(old) do
    redis.call('ZREM', BURIED, id)
    forget(id)
  end
  local excess = redis.call('ZCARD', BURIED) - maxCount
  if excess > 0 then
    for _, id in ipairs(redis.call('ZRANGE', BURIED, 0, math.min(excess, 100) - 1)) do
      redis.call('ZREM', BURIED, id)
      forget(id)
    end
  end
end

-- Moves an id to the dead letters with a reason (kept if a reason is recorded already and keepError is set).
local function bury(id, now, reason, keepError)
  endLease(id)
  redis.call('ZREM', PENDING, id)
  redis.call('ZADD', BURIED, int(now), id)
  if not keepError or redis.call('HEXISTS', ERROR, id) == 0 then
    redis.call('HSET', ERROR, id, reason)
  end
end

-- Counts a handler start: returns the attempt number, or nil and a reason to bury the message instead.
local function charge(id, maxAttempts)
  local tries = count(redis.call('HGET', TRIES, id))
  if tries == false then
    return nil, 'Corrupt attempt count ' .. tostring(redis.call('HGET', TRIES, id)) .. ' stored for this message'
  end
  local attempt = (tries or 0) + 1
  if attempt > maxAttempts then
    return nil, 'Lease expired: the consumer stopped without finishing attempt ' .. (attempt - 1)
  end
  redis.call('HSET', TRIES, id, attempt)
  return attempt
end

-- Wakes consumers if the message with this id is now the earliest of the topic.
local function wakeIfHead(id, due, nowUs)
  local head = redis.call('ZRANGE', PENDING, 0, 0)
  if head[1] == id then
    redis.call('PUBLISH', WAKE, delayTo(due, nowUs))
  end
end

-- @section format1 -----------------------------------------------------------------------------------------------

-- Moves one format-1 message (already taken off its format-1 set) into set 'into' at 'score'.
local function adopt(id, score, into)
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
  grow()
  return redis.call('ZCARD', V1_DUE) + redis.call('ZCARD', V1_INFLIGHT) + redis.call('ZCARD', V1_DEAD)
end

-- ----------------------------------------------------------------------------------------------------------------
