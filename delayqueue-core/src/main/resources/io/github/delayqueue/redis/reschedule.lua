-- uses: controls, groups, priorities, pages, buckets, leases, dead, v1, format1
-- Moves the due time of a waiting message.
-- ARGV[1] id, ARGV[2] kind ('d' delay in microseconds | 'a' absolute epoch ms), ARGV[3] value
-- Returns 1 if it was waiting and has moved, else 0.
local id = ARGV[1]
-- pages (stored format 5): a message in its first wait moves to pending, where every later wait is
if paged() and not redis.call('ZSCORE', PENDING, id) then
  -- (the new due time read first: bad input changes nothing)
  local _, nowUs = clock()
  local due = dueScore(ARGV[2], ARGV[3], nowUs)
  if not tonumber(due) then
    error({ err = 'delayqueue: a due time must be a number, got \'' .. tostring(ARGV[3]) .. '\'' })
  end
  if pageRemove(id, redis.call('HGET', bodyOf(id), id)) then
    redis.call('ZADD', PENDING, due, id)
    wakeIfHead(id, due, nowUs)
    return 1
  end
end
if not redis.call('ZSCORE', PENDING, id) and not (redis.call('ZSCORE', V1_DUE, id) and adoptOne(id)) then
  -- groups: a grouped message waits in its group's set of its level; the group's turn comes no later than its new due
  -- time (a turn left earlier than its earliest message is put right by the next claim that reads it)
  -- priorities: a message of a priority other than the default waits in its level's set
  if metaRead.prio or grouped() then
    local key, group = waitKeyOf(redis.call('HGET', bodyOf(id), id))
    if key ~= PENDING and redis.call('ZSCORE', key, id) then
      local _, nowUs = clock()
      local due = dueScore(ARGV[2], ARGV[3], nowUs)
      redis.call('ZADD', key, 'XX', due, id)
      if group then
        groupWaits(group, due)
        redis.call('PUBLISH', WAKE, delayTo(due, nowUs))
      else
        wakeIfHead(id, due, nowUs, key)
      end
      return 1
    end
  end
  return 0
end
local _, nowUs = clock()
local due = dueScore(ARGV[2], ARGV[3], nowUs)
redis.call('ZADD', PENDING, 'XX', due, id)
wakeIfHead(id, due, nowUs)
return 1
