-- uses: controls, expiryread, groups, priorities, pages, buckets, leases, dead, v1
-- Removes a waiting message (scheduled or waiting for a retry).
-- ARGV[1] id, ARGV[2] the hash of the id as BucketHash.java computes it (absent: computed here)
-- Returns 1 if it was waiting and is gone, else 0.
local id = ARGV[1]
local hash = ARGV[2]
-- pages (stored format 5): a message's first wait, in the page its envelope's due time names (looked for first: a
-- topic with pages holds most of its waiting messages there)
if paged() then
  local h = hash and tonumber(hash, 16)
  local envelope = h and redis.call('HGET', bucketOf(h), id) or false
  if not envelope then
    envelope = redis.call('HGET', bodyOf(id), id)
  end
  if pageRemove(id, envelope) then
    forgetWaiting(id, hash)
    return 1
  end
end
if redis.call('ZREM', PENDING, id) == 1 then
  forgetWaiting(id, hash)
  return 1
end
-- groups: a grouped message waits in its group's set of its level (its envelope names both); a group left empty loses
-- its turn
-- priorities: a message of a priority other than the default waits in its level's set (its envelope names it)
if metaRead.prio or grouped() then
  local key, group = waitKeyOf(redis.call('HGET', bodyOf(id), id))
  if key ~= PENDING and redis.call('ZREM', key, id) == 1 then
    if group then
      groupLeft(group)
    end
    forgetWaiting(id, hash)
    return 1
  end
end
if redis.call('ZREM', V1_DUE, id) == 1 then
  redis.call('HDEL', V1_MSGS, id)
  redis.call('HDEL', V1_ATTEMPTS, id)
  redis.call('HDEL', V1_ERRORS, id)
  return 1
end
return 0
