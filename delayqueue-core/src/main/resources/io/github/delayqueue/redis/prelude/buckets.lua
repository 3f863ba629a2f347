-- The bucket count, read before anything is written: if it is unreadable no envelope can be found, so the script
-- stops with an error and changes nothing. And the largest power of two not above it.
local bucketCount = nil
local bucketLow = 1
do
  local raw
  if metaAlso and not SUBSCRIBED then
    local values = redis.call('HMGET', META, 'buckets', unpack(metaAlso))
    for i, field in ipairs(metaAlso) do
      metaRead[field] = values[i + 1]
    end
    raw = values[1]
  else
    -- (a subscription's meta is its own; the buckets are its topic's)
    if metaAlso then
      local values = redis.call('HMGET', META, unpack(metaAlso))
      for i, field in ipairs(metaAlso) do
        metaRead[field] = values[i]
      end
    end
    raw = redis.call('HGET', TOPIC_META, 'buckets')
  end
  bucketCount = count(raw)
  if bucketCount == nil then
    bucketCount = 1
  elseif not bucketCount or bucketCount < 2 or bucketCount > 16777216 then
    error({ err = 'delayqueue: corrupt bucket count ' .. tostring(raw) .. ' in ' .. TOPIC_META })
  end
  while bucketLow * 2 <= bucketCount do
    bucketLow = bucketLow * 2
  end
end

-- The bucket of an id's hash (bucketOf), and of an id with its hash (bodyOf). Linear hashing: buckets below the split
-- pointer (count - low) have been split already and use one more bit of the hash. schedule-plain.lua (messages without
-- a group or a priority, without this prelude) places ids (with the hashes its client computed, BucketHash.java) and
-- splits buckets itself: a change to either here is made there too.
local bodyKeys = {}
local function bucketOf(h)
  local index = h % bucketLow
  if index < bucketCount - bucketLow then
    index = h % (bucketLow * 2)
  end
  -- a claim or an acknowledgement looks up a bucket per message: each key name is built once per call
  local key = bodyKeys[index]
  if not key then
    -- '%d': Lua's own number to text goes through the floating-point printer
    key = string.format('%sbody:%d', TOPIC_BASE, index)
    bodyKeys[index] = key
  end
  return key
end

local function bodyOf(id)
  local h = tonumber(string.sub(redis.sha1hex(id), 1, 8), 16)
  return bucketOf(h), h
end

-- Growing and shrinking the buckets: built only by the calls that need it (every call of a script runs its whole
-- text, and defining functions costs time).
local function resizing()
  local resize = {}

  -- as bodyOf names them
  local function bucketKey(index)
    return string.format('%sbody:%d', TOPIC_BASE, index)
  end

  local function setCount(n)
    bucketCount = n
    bucketLow = 1
    while bucketLow * 2 <= n do
      bucketLow = bucketLow * 2
    end
    if n == 1 then
      redis.call('HDEL', TOPIC_META, 'buckets')
    else
      redis.call('HSET', TOPIC_META, 'buckets', n)
    end
  end

  -- A restricted Redis user given the rule of 0.2, which lacks +hlen (docs/reference/security.md), counts the sets as 0.2
  -- did instead (those of groups and levels, new in 0.3, left out), and Redis logs each refusal: add +hlen.
  local function counted()
    return redis.call('ZCARD', PENDING) + redis.call('ZCARD', BASE .. 'leased') + redis.call('ZCARD', BASE .. 'buried')
      + (tonumber(metaRead.paged) or 0)
  end

  -- How many messages the topic stores, estimated from its buckets: every message has its envelope in one, whichever
  -- set it waits in (pending, a priority level's, a group's) and whether it is leased or dead, so the buckets count
  -- them all where counting the sets would cost a command per group. Ids spread evenly over the hashes, so a bucket's
  -- entries times the share of the hashes it holds estimate them all: a bucket split in this round (below the split
  -- pointer, or at or above bucketLow) holds the ids of one 2 * bucketLow-th, the others one bucketLow-th. Two buckets
  -- picked by the Redis clock's microseconds, not the one at the split pointer: splitting stops when the estimate
  -- falls to the threshold, so the bucket it stops at holds fewer than most, and estimating from that one bucket again
  -- kept the buckets lagging ever further behind a growing topic (twice the fill at 200,000 messages, simulated).
  -- Three commands. The estimate is noisy and a split is not undone, so the topic would end up split by its highest
  -- estimates: grow splits only past a quarter more than the fill (see grow).
  local function estimate()
    local t = redis.call('TIME')
    local r = tonumber(t[2]) + (tonumber(t[1]) % 1000) * 1000000
    local total = 0
    for _, j in ipairs({ r % bucketCount, math.floor(r / bucketCount) % bucketCount }) do
      local n = redis.pcall('HLEN', bucketKey(j))
      if type(n) == 'table' then
        return counted()
      end
      local split = j < bucketCount - bucketLow or j >= bucketLow
      total = total + n * (split and 2 * bucketLow or bucketLow)
    end
    return total / 2
  end

  -- The same from the two buckets the next merge joins, the last and the one it was split from, which together hold
  -- the ids of one 'half'-th of the hashes (half: bucketLow, or half of it when the count is a power of two): two
  -- commands, and twice the entries of one bucket, so that a bucket that happens to hold few does not merge a topic
  -- that is not shrinking.
  local function estimateForMerge()
    local half = (bucketCount > bucketLow) and bucketLow or bucketLow / 2
    local last = bucketCount - 1
    local a = redis.pcall('HLEN', bucketKey(last))
    if type(a) == 'table' then
      return counted()
    end
    return (a + redis.call('HLEN', bucketKey(last - half))) * half
  end

  -- Moves the entries of the bucket at the split pointer whose hash has the next bit set to their new bucket.
  local function split()
    local low = bucketLow
    local from = bucketCount - low
    local source = bucketKey(from)
    local entries = redis.call('HGETALL', source)
    local keep, move, gone = {}, {}, {}
    for i = 1, #entries, 2 do
      if tonumber(string.sub(redis.sha1hex(entries[i]), 1, 8), 16) % (low * 2) == from then
        keep[#keep + 1] = entries[i]
        keep[#keep + 1] = entries[i + 1]
      else
        move[#move + 1] = entries[i]
        move[#move + 1] = entries[i + 1]
        gone[#gone + 1] = entries[i]
      end
    end
    if #move > 0 then
      -- the target should not exist; if it does, its entries stay
      each('HSET', bucketKey(from + low), move)
      if #entries > 256 then
        -- grown past listpack size: written anew, compact again
        redis.call('DEL', source)
        each('HSET', source, keep)
      else
        each('HDEL', source, gone)
      end
    end
    setCount(bucketCount + 1)
  end

  -- Moves the entries of the last bucket back into the bucket it was split from.
  local function merge()
    local n = bucketCount
    local source = bucketKey(n - 1)
    local entries = redis.call('HGETALL', source)
    setCount(n - 1)
    if #entries > 0 then
      each('HSET', bucketKey(n - 1 - bucketLow), entries)
      redis.call('DEL', source)
    end
  end

  -- Splits buckets while the topic holds (or, with 'extra' more, will hold) over BUCKET_FILL messages per bucket (by
  -- an estimate a quarter over it, see estimate), at most as many per call as the call's own messages need, and two
  -- more (a call without 'extra' stands for the sixteen messages that sample the size once): a split costs about a
  -- tenth of a millisecond, and a noisy estimate asked for up to 64 at once, so calls of 250 messages that grew
  -- held Redis for 16 to 18 ms at a million waiting (docs/benchmarks-journal.md). The buckets still keep up: a call
  -- may split for more messages than it stores, so one that estimated low is caught up by the next.
  function resize.grow(extra)
    local total = estimate() + (extra or 0)
    local most = math.ceil(math.max(extra or 0, 16) / BUCKET_FILL) + 2
    local splits = 0
    while splits < most and total > bucketCount * BUCKET_FILL * 1.25 do
      split()
      splits = splits + 1
    end
  end

  -- Merges at most a few buckets while the topic holds under a quarter of BUCKET_FILL per bucket.
  function resize.shrink()
    local merges = 0
    while merges < 16 and bucketCount > 1 and estimateForMerge() * 4 < bucketCount * BUCKET_FILL do
      merge()
      merges = merges + 1
    end
  end

  return resize
end
