-- uses: controls, groups, priorities, pages, buckets, leases, dead, v1, format1
-- Schedules a message, or replaces the one waiting with its id (scheduled or waiting for a retry): its envelope, due
-- time and expiry; a retrying message keeps its attempts and last error. A message in flight or dead is left as it
-- is (its handler may be running; a dead letter is replayed or purged by an operator). Wakes consumers when the
-- message becomes the new head.
-- ARGV[1] id, ARGV[2] kind ('d' delay in microseconds | 'a' absolute epoch ms), ARGV[3] value, ARGV[4] envelope,
-- ARGV[5] expiry ('<deadline ms>:<d|x>', '' for none)
-- Returns 0 (scheduled: no message had the id), 1 (replaced), 2 (in flight, or fanned out to the topic's
-- subscriptions: nothing changed), 3 (dead: nothing changed).
local id = ARGV[1]
if redis.call('EXISTS', V1_MSGS) == 1 then
  adoptOne(id)
end
if redis.call('ZSCORE', LEASED, id) or redis.call('ZSCORE', V1_INFLIGHT, id) then
  return 2
end
if redis.call('ZSCORE', BURIED, id) then
  return 3
end
-- subscriptions: a message that fanned out is being delivered to them (its envelope is theirs)
if redis.call('HEXISTS', FAN, id) == 1 then
  return 2
end
local _, nowUs = clock()
local due = dueScore(ARGV[2], ARGV[3], nowUs)
local body, h = bodyOf(id)
local replaced = redis.call('ZSCORE', PENDING, id) ~= false
-- pages (stored format 5): a message in its first wait leaves its page (the replacement waits where the others say)
if not replaced and paged() and pageRemove(id, redis.call('HGET', body, id)) then
  replaced = true
end
-- groups: the message may have waited in a group's set, and may name another group (or none) now; a suspect waits in
-- pending whatever its group
local newGroup = envelopeGroup(ARGV[4])
-- priorities: the message may have waited in a level's set (its group's, for a grouped one), and may have another
-- priority now
local newLevel = envelopeLevel(ARGV[4])
if not replaced and (metaRead.prio or grouped()) then
  local key, oldGroup = waitKeyOf(redis.call('HGET', body, id))
  if key ~= PENDING and redis.call('ZREM', key, id) == 1 then
    replaced = true
    if oldGroup then
      groupLeft(oldGroup)
    end
  end
end
if (newGroup or newLevel ~= DEFAULT_LEVEL) and redis.call('SMISMEMBER', SUSPECT, id)[1] == 1 then
  newGroup = nil
  newLevel = DEFAULT_LEVEL
end
redis.call('HSET', body, id, ARGV[4])
if newGroup then
  redis.call('ZREM', PENDING, id)
  redis.call('HSET', META, 'groups', '1')
  groupLevelStored(newGroup, newLevel)
  redis.call('ZADD', groupLevelKey(newGroup, newLevel), due, id)
  groupWaits(newGroup, due)
  redis.call('PUBLISH', WAKE, delayTo(due, nowUs))
elseif newLevel ~= DEFAULT_LEVEL then
  redis.call('ZREM', PENDING, id)
  levelStored(newLevel)
  redis.call('ZADD', levelKey(newLevel), due, id)
  wakeIfHead(id, due, nowUs, levelKey(newLevel))
else
  redis.call('ZADD', PENDING, due, id)
end
if ARGV[5] == '' then
  redis.call('HDEL', EXPIRY, id)
else
  redis.call('HSET', EXPIRY, id, ARGV[5])
  -- claims read the expiry hash only in a topic that ever stored an expiry (see the prelude's meta)
  redis.call('HSET', META, 'expiry', '1')
end
if not replaced and h % 16 == 0 then
  resizing().grow()
end
wakeIfHead(id, due, nowUs)
return replaced and 1 or 0
