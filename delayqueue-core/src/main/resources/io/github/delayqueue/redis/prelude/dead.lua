local TRIES = BASE .. 'tries'
local SUSPECT = BASE .. 'suspect'
local BURIED = BASE .. 'buried'
local ERROR = BASE .. 'error'
-- id -> '<deadline ms>:<d|x>' for a message that must not be delivered after a deadline: dead-lettered (d) or
-- dropped (x) instead
local EXPIRY = BASE .. 'expiry'
-- A subscription's message: id -> how many of its topic's subscriptions still hold it (see the fanout module); its
-- envelope goes when the last of them is done with it.
local FAN = TOPIC_BASE .. 'fan'

-- Whether this call found none of tries, error, suspect and expiry (acknowledge's EXISTS) and wrote none of them
-- since: no message of the topic has an attempt count, an error, a suspect mark or an expiry deadline, so a claim
-- reads neither counts nor suspects (see leaseDue). What writes a count or a mark sets it back to false.
local noMarks = false

-- Deletes a message's envelope: from the bucket of 'hash' (a number; nil to compute it here; one that finds nothing is
-- followed by the id's own bucket, so a client's hash is never trusted). In a subscription, only once the last
-- subscription that held the message is done with it (one command more).
local function dropEnvelope(id, hash)
  if SUBSCRIBED then
    if redis.call('HINCRBY', FAN, id, -1) > 0 then
      return
    end
    redis.call('HDEL', FAN, id)
  end
  if not (hash and redis.call('HDEL', bucketOf(hash), id) == 1) then
    redis.call('HDEL', (bodyOf(id)), id)
  end
end

-- dropEnvelope over many messages of a subscription ('ids', each once, with their bucket hashes in 'hashes': numbers or
-- nil): the counts read, written and deleted with one command each for them all, then one command per envelope
-- deleted.
local function dropEnvelopes(ids, hashes)
  local counts = hmget(FAN, ids)
  local left, gone = {}, {}
  for k, id in ipairs(ids) do
    local n = (tonumber(counts[k]) or 0) - 1
    if n > 0 then
      left[#left + 1] = id
      left[#left + 1] = n
    else
      gone[#gone + 1] = id
      local hash = hashes[k]
      if not (hash and redis.call('HDEL', bucketOf(hash), id) == 1) then
        redis.call('HDEL', (bodyOf(id)), id)
      end
    end
  end
  each('HSET', FAN, left)
  each('HDEL', FAN, gone)
end

-- Deletes what the topic holds for an id besides its place in pending, leased or buried.
local function forget(id)
  redis.call('SREM', SUSPECT, id)
  dropEnvelope(id)
  redis.call('HDEL', TRIES, id)
  redis.call('HDEL', ERROR, id)
  redis.call('HDEL', LEASE, id)
  redis.call('HDEL', EXPIRY, id)
end

-- Forgets a message just taken from the set it waited in (a waiting message holds no lease record: every way back to
-- waiting deletes it): its envelope, in the bucket of the hash the client sent (h: eight hex digits, as BucketHash.java
-- computes them; nil to compute it here; one that finds nothing is followed by the id's own bucket, so a client's hash
-- is never trusted), then its mark, count and last error only if the topic holds any (Redis deletes a key that
-- empties: one EXISTS for the three), and its expiry only if the topic ever stored one (read with the expiryread
-- module). A cancel in a topic without retries runs four commands in all instead of eight.
local function forgetWaiting(id, h)
  dropEnvelope(id, h and tonumber(h, 16))
  if redis.call('EXISTS', SUSPECT, TRIES, ERROR) > 0 then
    redis.call('SREM', SUSPECT, id)
    redis.call('HDEL', TRIES, id)
    redis.call('HDEL', ERROR, id)
  end
  if metaRead.expiry then
    redis.call('HDEL', EXPIRY, id)
  end
end

-- Deletes delivered messages whose lease presented is their current one: ids, tokens and the ids' bucket hashes in
-- ARGV[from..to] (id, token, hash, ...: the hash as eight hex digits, computed by the client as BucketHash.java does,
-- so that Redis need not compute a SHA-1 per message; one that does not find the envelope, a wrong one included, is
-- followed by the id's own bucket, so a client's hash is never trusted). A few commands for the whole batch, one per
-- message (its envelope's bucket). Returns how many. With 'anchorLater' the caller drops a lone anchor itself once it
-- is done (a claim may lease again at once, and would put it back).
local function acknowledge(from, to, anchorLater)
  local ids, n = {}, 0
  for i = from, to, 3 do
    n = n + 1
    ids[n] = ARGV[i]
  end
  local raw = hmget(LEASE, ids)
  -- a lease is current if its record starts with the token presented (the token's own digits, then ':'): an
  -- acknowledgement needs no more of the record, and a claim's acknowledgements mostly share one token (a record
  -- whose due time or attempt is unreadable is still acknowledged by its token: its handler finished under it)
  local done, seen, prefixes, hashes = {}, {}, {}, {}
  local nDone = 0
  -- groups: the groups of the leases ended, read only in a topic that ever stored a grouped message
  local ended = grouped() and {} or nil
  for k = 1, n do
    local id = ids[k]
    local at = from + 3 * k - 2
    local token = ARGV[at]
    local prefix = prefixes[token]
    if not prefix then
      prefix = token .. ':'
      prefixes[token] = prefix
    end
    local record = raw[k]
    if record and string.sub(record, 1, #prefix) == prefix and not seen[id] then
      seen[id] = true
      nDone = nDone + 1
      done[nDone] = id
      if SUBSCRIBED then
        -- (their subscriptions' counts at once, after the loop)
        hashes[nDone] = tonumber(ARGV[at + 1], 16)
      else
        dropEnvelope(id, tonumber(ARGV[at + 1], 16))
      end
      if ended then
        noteGroup(ended, recordGroup(record, #prefix))
      end
    end
  end
  if #done == 0 then
    return 0
  end
  if SUBSCRIBED then
    dropEnvelopes(done, hashes)
  end
  ids = done
  each('ZREM', LEASED, ids)
  each('HDEL', LEASE, ids)
  if not anchorLater then
    leasesEnded()
  end
  -- only a message that failed or was a suspect has a count, an error or a mark stored: none if the keys are absent
  if redis.call('EXISTS', TRIES, ERROR, SUSPECT, EXPIRY) > 0 then
    each('HDEL', TRIES, ids)
    each('HDEL', ERROR, ids)
    each('HDEL', EXPIRY, ids)
    -- a suspect whose handler finished did not kill its consumer
    each('SREM', SUSPECT, ids)
  else
    noMarks = true
  end
  if ended then
    groupLeasesEnded(ended)
  end
  slotsFreed()
  return #done
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
  noMarks = false
  endLease(id)
  redis.call('SREM', SUSPECT, id)
  redis.call('ZREM', PENDING, id)
  redis.call('ZADD', BURIED, int(now), id)
  if not keepError or redis.call('HEXISTS', ERROR, id) == 0 then
    redis.call('HSET', ERROR, id, reason)
  end
end

-- The attempt number of a handler about to start, from the count of starts stored for the message (absent:
-- none), or nil and a reason to bury the message instead.
local function charge(tries, maxAttempts)
  local n = count(tries)
  if n == false then
    return nil, 'Corrupt attempt count ' .. tostring(tries) .. ' stored for this message'
  end
  local attempt = (n or 0) + 1
  if attempt > maxAttempts then
    return nil, 'Lease expired: the consumer stopped without finishing attempt ' .. (attempt - 1)
  end
  return attempt
end

-- Wakes consumers if the message with this id is now the earliest of the topic (of 'key' if given: a priority
-- level's set).
local function wakeIfHead(id, due, nowUs, key)
  local head = redis.call('ZRANGE', key or PENDING, '0', '0')
  if head[1] == id then
    redis.call('PUBLISH', WAKE, delayTo(due, nowUs))
  end
end
