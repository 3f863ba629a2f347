-- uses: controls, groups, priorities, buckets, leases, dead
-- Ends a failed delivery with its current lease, counting its attempt (a suspect's was counted when it was leased):
-- either it waits for a retry after a delay, or it goes to the dead letters (which are trimmed to their maximum count
-- and age).
-- ARGV[1] id, ARGV[2] token, ARGV[3] 'retry' | 'bury', ARGV[4] retry delay in microseconds, ARGV[5] error text,
-- ARGV[6] dead letter max count, ARGV[7] dead letter max age ms, ARGV[8] 'running' if the handler still runs (timed
-- out), else ''
-- Returns 1 (retry scheduled), 2 (buried) or 0 (not the current lease: nothing changed).
local id = ARGV[1]
local token, _, attempt, group, level = leaseOf(id)
if token == nil or token ~= ARGV[2] then
  return 0
end
if attempt == 0 then
  -- leased in a batch: the failed attempt counts now
  attempt = (count(redis.call('HGET', TRIES, id)) or 0) + 1
end
redis.call('HSET', TRIES, id, attempt)
if ARGV[8] == 'running' then
  -- its handler is still running (it timed out): it may yet kill its consumer, so it runs alone from now on
  redis.call('SADD', SUSPECT, id)
  if group then
    -- groups: its lease ends here; as a suspect it waits in pending, outside its group's turn (see the groups section)
    groupLeasesEnded({ [group] = 1 })
    group = nil
  end
  -- priorities: as a suspect it waits in pending too
  level = nil
else
  -- its handler returned with a failure: it did not kill its consumer
  redis.call('SREM', SUSPECT, id)
end
local now, nowUs = clock()
if ARGV[3] == 'retry' then
  local due = dueScore('d', ARGV[4], nowUs)
  endLease(id)
  redis.call('HSET', ERROR, id, ARGV[5])
  if group then
    -- groups: back to its group's set of its level (priorities within a group: the level listed first), and the
    -- group's count
    groupLevelStored(group, level)
    redis.call('ZADD', groupLevelKey(group, level), due, id)
    groupWaits(group, due)
    groupLeasesEnded({ [group] = 1 })
    if tonumber(redis.call('ZRANGE', GROUPS, 0, 0, 'WITHSCORES')[2]) == tonumber(due) then
      redis.call('PUBLISH', WAKE, delayTo(due, nowUs))
    end
  else
    -- priorities: back to its level's set (pending for the default)
    local key = levelKey(level)
    redis.call('ZADD', key, due, id)
    wakeIfHead(id, due, nowUs, key)
  end
  slotsFreed()
  return 1
end
if group then
  groupLeasesEnded({ [group] = 1 })
end
bury(id, now, ARGV[5], false)
slotsFreed()
trimDead(now, tonumber(ARGV[6]), tonumber(ARGV[7]))
return 2
