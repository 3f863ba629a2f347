-- uses: controls, groups, buckets, leases, dead, v1, format1
-- Deletes dead letters: one by id, or a chunk of the oldest (bounded work per call, so that no call holds Redis for
-- long; the caller repeats it until a chunk comes back short).
-- ARGV[1] id ('' for a chunk), ARGV[2] the chunk's size, ARGV[3] the latest death time (ms) a chunk deletes ('' for
-- this call's Redis time: the first chunk of a purge sets it, and the later chunks pass it on, so that dead letters
-- that die while the purge runs are left for the next one and the purge ends)
-- Returns for an id: 1 if it was dead and is gone, else 0; for a chunk: {how many were deleted, the death time
-- used as the bound}.
if ARGV[1] ~= '' then
  adoptOne(ARGV[1])
  if redis.call('ZREM', BURIED, ARGV[1]) == 0 then
    return 0
  end
  forget(ARGV[1])
  if bucketCount > 1 then
    resizing().shrink()
  end
  return 1
end
local limit = tonumber(ARGV[2])
local now = clock()
local bound = (ARGV[3] ~= '') and ARGV[3] or int(now)
migrate(limit, now)
local ids = redis.call('ZRANGEBYSCORE', BURIED, '-inf', bound, 'LIMIT', 0, limit)
if #ids > 0 then
  -- a command per key for the whole chunk, and one per bucket of envelopes (in a subscription, one per envelope
  -- deleted: see dropEnvelopes)
  each('ZREM', BURIED, ids)
  if SUBSCRIBED then
    dropEnvelopes(ids, {})
  else
    local byBucket = {}
    for _, id in ipairs(ids) do
      local body = bodyOf(id)
      local group = byBucket[body]
      if not group then
        group = {}
        byBucket[body] = group
      end
      group[#group + 1] = id
    end
    for body, group in pairs(byBucket) do
      redis.call('HDEL', body, unpack(group))
    end
  end
  if redis.call('EXISTS', TRIES, ERROR, SUSPECT, EXPIRY, LEASE) > 0 then
    each('HDEL', TRIES, ids)
    each('HDEL', ERROR, ids)
    each('HDEL', EXPIRY, ids)
    each('HDEL', LEASE, ids)
    each('SREM', SUSPECT, ids)
  end
  if bucketCount > 1 then
    resizing().shrink()
  end
end
return { #ids, bound }
