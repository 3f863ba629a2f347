-- uses: controls, groups, priorities, buckets, leases, dead, v1, format1
-- Makes dead letters due at once, with their attempts and last error reset, and without an expiry deadline (an
-- operator asked for them): one by id, or a chunk of the oldest (bounded work per call, so that no call holds Redis
-- for long; the caller repeats it until a chunk comes back short).
-- ARGV[1] id ('' for a chunk), ARGV[2] the chunk's size, ARGV[3] the latest death time (ms) a chunk replays ('' for
-- this call's Redis time: the first chunk of a replay sets it, and the later chunks pass it on, so that a replayed
-- message that dies again while the replay runs is not replayed twice, and the replay ends)
-- Returns for an id: 1 if it was dead and is now waiting, else 0; for a chunk: {how many were replayed, the death
-- time used as the bound}.
local now, nowUs = clock()
local ids
local bound = nil
if ARGV[1] ~= '' then
  adoptOne(ARGV[1])
  ids = redis.call('ZSCORE', BURIED, ARGV[1]) and { ARGV[1] } or {}
else
  local limit = tonumber(ARGV[2])
  bound = (ARGV[3] ~= '') and ARGV[3] or int(now)
  migrate(limit, now)
  ids = redis.call('ZRANGEBYSCORE', BURIED, '-inf', bound, 'LIMIT', 0, limit)
end
if #ids > 0 then
  -- a command per key for the whole chunk (and one per grouped message)
  local due = score(nowUs)
  local scores = {}
  local anyGrouped = grouped()
  -- priorities: a message of a priority other than the default goes back to its level's set
  local anyLevels = metaRead.prio
  for _, id in ipairs(ids) do
    -- groups: a grouped message goes back to its group's set
    local envelope = (anyGrouped or anyLevels) and redis.call('HGET', bodyOf(id), id) or nil
    local group = anyGrouped and envelopeGroup(envelope) or nil
    local level = (anyLevels or group) and envelopeLevel(envelope) or DEFAULT_LEVEL
    if group then
      -- (priorities within a group: to its group's set of its level, the level listed first)
      groupLevelStored(group, level)
      redis.call('ZADD', groupLevelKey(group, level), due, id)
      groupWaits(group, due)
    elseif level ~= DEFAULT_LEVEL then
      redis.call('ZADD', levelKey(level), due, id)
    else
      scores[#scores + 1] = due
      scores[#scores + 1] = id
    end
  end
  each('ZREM', BURIED, ids)
  if #scores > 0 then
    each('ZADD', PENDING, scores)
  end
  if redis.call('EXISTS', TRIES, ERROR, EXPIRY) > 0 then
    each('HDEL', TRIES, ids)
    each('HDEL', ERROR, ids)
    each('HDEL', EXPIRY, ids)
  end
  redis.call('PUBLISH', WAKE, '0')
end
if bound == nil then
  return #ids
end
return { #ids, bound }
