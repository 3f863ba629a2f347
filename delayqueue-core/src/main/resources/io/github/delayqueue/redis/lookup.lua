-- uses: controls, groups, priorities, buckets, leases, dead, v1, format1
-- Finds one message by id, in whatever state it is (adopting a format-1 message first).
-- ARGV[1] id
-- Returns {state ('pending' | 'leased' | 'buried' | '' if absent), score (pending: due ms; leased: due ms of the
-- delivery; buried: died at ms), attempts counted (or false), last error (or false), envelope (or false), expiry
-- (or false), suspect (1 or 0)}.
local id = ARGV[1]
if redis.call('EXISTS', V1_MSGS) == 1 then
  adoptOne(id)
end
local state, at = 'pending', redis.call('ZSCORE', PENDING, id)
if not at and (metaRead.prio or grouped()) then
  -- priorities: a message of a priority other than the default waits in its level's set; groups: a grouped message in
  -- its group's set of its level
  local key = waitKeyOf(redis.call('HGET', bodyOf(id), id))
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
return {state, at, redis.call('HGET', TRIES, id), redis.call('HGET', ERROR, id),
  redis.call('HGET', bodyOf(id), id) or redis.call('HGET', V1_MSGS, id),
  redis.call('HGET', EXPIRY, id), redis.call('SISMEMBER', SUSPECT, id)}
