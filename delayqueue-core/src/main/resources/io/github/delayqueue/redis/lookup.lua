-- uses: controls, expiryread, groups, priorities, pages, buckets, leases, dead, v1, format1
-- Finds one message by id, in whatever state it is (adopting a format-1 message first).
-- ARGV[1] id, ARGV[2] the id's bucket hash as BucketHash.java computes it (absent: computed here; one that finds
-- nothing is followed by the id's own bucket, so a client's hash is never trusted)
-- Returns {state ('pending' | 'leased' | 'buried' | '' if absent), score (pending: due ms; leased: due ms of the
-- delivery; buried: died at ms), attempts counted (or false), last error (or false), envelope (or false), expiry
-- (or false), suspect (1 or 0)}.
local id = ARGV[1]
local hash = ARGV[2] and tonumber(ARGV[2], 16)
-- the envelope, read once
local envelope = nil
local function envelopeOf()
  if envelope == nil then
    envelope = hash and redis.call('HGET', bucketOf(hash), id) or false
    if not envelope then
      envelope = redis.call('HGET', bodyOf(id), id)
    end
  end
  return envelope
end
if redis.call('EXISTS', V1_MSGS) == 1 then
  adoptOne(id)
end
local state, at = 'pending', redis.call('ZSCORE', PENDING, id)
-- pages (stored format 5): a message's first wait, in the page its envelope's due time names
if not at and paged() then
  at = pageScore(id, envelopeOf())
end
if not at and (metaRead.prio or grouped()) then
  -- priorities: a message of a priority other than the default waits in its level's set; groups: a grouped message in
  -- its group's set of its level
  local key = waitKeyOf(envelopeOf())
  at = (key ~= PENDING) and redis.call('ZSCORE', key, id)
end
if not at then
  local _, due = leaseOf(id)
  -- a lease whose record cannot be read, or one of format 1, is still a lease (shown at its deadline)
  due = due or redis.call('ZSCORE', LEASED, id) or redis.call('ZSCORE', V1_INFLIGHT, id)
  if due then
    state, at = 'leased', due
  else
    state, at = 'buried', redis.call('ZSCORE', BURIED, id)
    if not at then
      return {'', false, false, false, false, false, 0}
    end
  end
end
-- its count, error and mark only where the topic holds any (Redis deletes a key that empties), its expiry only in a
-- topic that ever stored one
local tries, lastError, suspect = false, false, 0
if redis.call('EXISTS', TRIES, ERROR, SUSPECT) > 0 then
  tries, lastError = redis.call('HGET', TRIES, id), redis.call('HGET', ERROR, id)
  suspect = redis.call('SISMEMBER', SUSPECT, id)
end
return {state, at, tries, lastError, envelopeOf() or redis.call('HGET', V1_MSGS, id),
  metaRead.expiry and redis.call('HGET', EXPIRY, id) or false, suspect}
