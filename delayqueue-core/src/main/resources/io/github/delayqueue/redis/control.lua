-- uses: controls, groups
-- Reads or changes a topic's controls (one partition's), which every instance's claims follow: pause and resume, a
-- rate limit (handler starts per second, with a burst) and a cap on the messages leased at once. A change wakes the
-- consumers, so that a resumed or loosened topic delivers what is due at once.
-- ARGV[1] 'read' | 'pause' | 'resume' | 'limit'; for 'limit': ARGV[2] rate ('' for none), ARGV[3] burst, ARGV[4] cap
-- ('' for none)
-- Returns {paused (0 or 1), rate (false: none), burst (false: none), cap (false: none)}.
local op = ARGV[1]
-- priorities (see the prelude's priorities section): ARGV[1] 'priority-mode', ARGV[2] 'strict', 'weighted' or '' (read
-- only). Returns the mode ('strict' or 'weighted').
if op == 'priority-mode' then
  if ARGV[2] == 'strict' then
    redis.call('HSET', CONTROL, 'pmode', 'strict')
  elseif ARGV[2] == 'weighted' then
    redis.call('HDEL', CONTROL, 'pmode')
  end
  return redis.call('HGET', CONTROL, 'pmode') or 'weighted'
end
-- groups (see the prelude's groups section): a group's pause, cap, weight and rate, and the topic's defaults for its
-- groups' cap and rate.
-- ARGV[1] 'group-read' | 'group-pause' | 'group-resume' | 'group-cap' | 'group-weight' | 'group-rate', ARGV[2] the
-- group ('' with 'group-cap' or 'group-rate': the topic's default), ARGV[3] for 'group-cap': the cap ('' for none); for
-- 'group-weight': the weight ('' for the default, 1); for 'group-rate': the rate ('' for none).
-- Returns {paused (0 or 1), the group's own cap (false: none), the topic's default cap (false: none), leased count,
-- waiting count, weight (false: the default), the group's own rate (false: none), the topic's default rate (false:
-- none)}.
if string.sub(op, 1, 6) == 'group-' then
  local group = ARGV[2]
  local GCONTROL = BASE .. 'gcontrol'
  local GHELD = BASE .. 'gheld'
  local woken = false
  if op == 'group-pause' then
    redis.call('HSET', GCONTROL, 'p:' .. group, '1')
    redis.call('SADD', GHELD, group)
    redis.call('ZREM', GROUPS, group)
  elseif op == 'group-resume' then
    if redis.call('HDEL', GCONTROL, 'p:' .. group) == 1 then
      woken = groupReadmit(group)
    end
  elseif op == 'group-rate' then
    -- group rate limits: ARGV[3] the rate (handler starts per second; '' for none). A new rate starts with a full
    -- bucket; the same rate set again (a restart applying its properties) keeps the bucket.
    if group == '' then
      if ARGV[3] == '' then
        redis.call('HDEL', CONTROL, 'grate')
      else
        redis.call('HSET', CONTROL, 'grate', ARGV[3])
      end
    else
      if ARGV[3] == '' then
        redis.call('HDEL', GCONTROL, 'r:' .. group, 't:' .. group)
      elseif redis.call('HGET', GCONTROL, 'r:' .. group) ~= ARGV[3] then
        redis.call('HSET', GCONTROL, 'r:' .. group, ARGV[3])
        redis.call('HDEL', GCONTROL, 't:' .. group)
        redis.call('HSET', CONTROL, 'grated', '1')
      end
      -- a group waiting for a token of its old rate takes its turn at its earliest message's due time again (of any
      -- of its levels' sets)
      local head = groupHead(group)
      if head then
        redis.call('ZADD', GROUPS, 'XX', head, group)
      end
    end
    woken = true
  elseif op == 'group-cap' then
    if group == '' then
      if ARGV[3] == '' then
        redis.call('HDEL', CONTROL, 'gcap')
      else
        redis.call('HSET', CONTROL, 'gcap', ARGV[3])
      end
      -- a looser default may let held groups take their turn again (an operator's call: every held group is read)
      for _, held in ipairs(redis.call('SMEMBERS', GHELD)) do
        woken = groupReadmit(held) or woken
      end
    else
      if ARGV[3] == '' then
        redis.call('HDEL', GCONTROL, 'c:' .. group)
      else
        redis.call('HSET', GCONTROL, 'c:' .. group, ARGV[3])
      end
      if redis.call('SMISMEMBER', GHELD, group)[1] == 1 then
        woken = groupReadmit(group)
      end
    end
  end
  if op == 'group-weight' then
    -- a share among the groups in turn: the next claim follows it, nothing to wake
    if ARGV[3] == '' then
      redis.call('HDEL', GCONTROL, 'w:' .. group)
    else
      redis.call('HSET', GCONTROL, 'w:' .. group, ARGV[3])
    end
  end
  if woken then
    redis.call('PUBLISH', WAKE, '0')
  end
  local g = redis.call('HMGET', GCONTROL, 'p:' .. group, 'c:' .. group, 'w:' .. group, 'r:' .. group, 'l:' .. group)
  local t = redis.call('HMGET', CONTROL, 'gcap', 'grate')
  -- (waiting: in all of its levels' sets)
  return {g[1] and 1 or 0, g[2], t[1], tonumber(redis.call('HGET', BASE .. 'gflight', group)) or 0,
    groupWaiting(group, g[5]), g[3], g[4], t[2]}
end
if op == 'pause' then
  redis.call('HSET', CONTROL, 'paused', '1')
elseif op == 'resume' then
  if redis.call('HDEL', CONTROL, 'paused') == 1 then
    redis.call('PUBLISH', WAKE, '0')
  end
elseif op == 'limit' then
  if ARGV[2] == '' then
    redis.call('HDEL', CONTROL, 'rate', 'burst', 'tokens', 'at')
  else
    -- a new rate starts with a full bucket; the same rate set again (a restart applying its properties) keeps the
    -- bucket as it is, so a restart is no burst
    if redis.call('HGET', CONTROL, 'rate') ~= ARGV[2] then
      redis.call('HDEL', CONTROL, 'tokens', 'at')
    end
    redis.call('HSET', CONTROL, 'rate', ARGV[2], 'burst', ARGV[3])
  end
  if ARGV[4] == '' then
    redis.call('HDEL', CONTROL, 'cap', 'refused')
  else
    redis.call('HSET', CONTROL, 'cap', ARGV[4])
  end
  redis.call('PUBLISH', WAKE, '0')
end
local c = redis.call('HMGET', CONTROL, 'paused', 'rate', 'burst', 'cap')
return {c[1] and 1 or 0, c[2], c[3], c[4]}
