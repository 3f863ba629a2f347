-- Fair delivery (docs/reference/fair-delivery.md): messages with a group key wait in a sorted set of their group,
-- g:<group> (id -> due time), instead of pending; the claim serves the groups in turn. Keys:
--   groups    ZSET  group -> its turn: never before the due time of its earliest message, and the time it was last
--                   served if that is later; only groups with messages waiting that are neither paused nor at their cap
--   gflight   HASH  group -> its messages leased now (a field only while above zero)
--   gheld     SET   groups kept out of 'groups' although messages wait: paused, or at their cap
--   gcontrol  HASH  'c:<group>' -> the group's cap, 'p:<group>' -> '1' while paused (the topic's default cap is the
--                   control hash's 'gcap'), 'l:<group>' -> the levels other than the default its messages wait in
--   g<level>:<group>  ZSET  id -> due time: the waiting messages of one group of one priority level other than the
--                   default (4), see groupLevelKey
-- meta's 'groups' is '1' once the topic stored a grouped message: a topic without it never reads any of these keys.
-- A grouped message's lease record ends with ':<group>', so that every outcome finds the group's counter. Suspects
-- are never grouped: a lease that runs out sends its message to pending, where crash isolation handles it as before.
local GROUPS = BASE .. 'groups'

if metaAlso then
  metaAlso[#metaAlso + 1] = 'groups'
else
  metaAlso = { 'groups' }
end

-- (of a subscription's sets with its 'base', see the fanout module; BASE by default)
local function groupKey(group, base)
  return (base or BASE) .. 'g:' .. group
end

-- Priorities within a group (docs/reference/fair-delivery.md, "Priorities and groups"): a grouped message of a level
-- other than the default waits in a set of its group and level, g<level>:<group>, which no other key of the topic can
-- be: a group's own set has ':' where this one has a digit, and no other key starts with 'g' and a digit. gcontrol's
-- 'l:<group>' lists the levels that have a set (their digits, as meta's 'prio' does for the topic; absent: none, so a
-- group of the default level alone reads no other set). A level's digit is written before its set gets a message and
-- taken off only by a claim that found the set empty: a digit without a set costs one read, never a lost message.
local GROUP_DEFAULT_LEVEL = 4
local function groupLevelKey(group, level, base)
  if level == nil or level == GROUP_DEFAULT_LEVEL then
    return groupKey(group, base)
  end
  return (base or BASE) .. 'g' .. level .. ':' .. group
end

-- The sets a group's messages wait in, as {level, key}, highest level first: its own (the default level) and one per
-- level in 'raw' (its 'l:' field as read; false or nil: none); of the sets under 'base' if given.
local function groupSets(group, raw, base)
  local sets = { { GROUP_DEFAULT_LEVEL, groupKey(group, base) } }
  if raw then
    for digit in string.gmatch(raw, '%d') do
      local level = tonumber(digit)
      if level ~= GROUP_DEFAULT_LEVEL then
        sets[#sets + 1] = { level, groupLevelKey(group, level, base) }
      end
    end
    table.sort(sets, function(a, b)
      return a[1] > b[1]
    end)
  end
  return sets
end

-- The levels a group has sets of ('l:<group>' in gcontrol), as read: text or false. One command.
local function groupLevelsRead(group)
  return redis.call('HGET', BASE .. 'gcontrol', 'l:' .. group)
end

-- Before a message of 'group' and 'level' goes to its set: lists the level in the group's 'l:' field (nothing for the
-- default level; one command, two the first time). 'raw': the field as read already, if it was.
local function groupLevelStored(group, level, raw)
  if level == nil or level == GROUP_DEFAULT_LEVEL then
    return
  end
  if raw == nil then
    raw = groupLevelsRead(group)
  end
  raw = raw or ''
  if not string.find(raw, tostring(level), 1, true) then
    redis.call('HSET', BASE .. 'gcontrol', 'l:' .. group, raw .. level)
  end
end

-- The earliest due time among a group's sets (a number; nil: none waits), 'raw' its 'l:' field as read (nil: read
-- here). One command per set.
local function groupHead(group, raw)
  if raw == nil then
    raw = groupLevelsRead(group)
  end
  local keys = {}
  for _, set in ipairs(groupSets(group, raw)) do
    keys[#keys + 1] = set[2]
  end
  return earliestIn(keys)
end

-- How many messages wait in a group's sets, 'raw' its 'l:' field as read (nil: read here). One command per set.
local function groupWaiting(group, raw)
  if raw == nil then
    raw = groupLevelsRead(group)
  end
  local n = 0
  for _, set in ipairs(groupSets(group, raw)) do
    n = n + redis.call('ZCARD', set[2])
  end
  return n
end

-- After a message left a group's set outside a claim (cancelled, replaced): a group with no message left in any of its
-- sets loses its turn and its list of levels. Two commands.
local function groupLeft(group)
  local raw = groupLevelsRead(group)
  local keys = {}
  for _, set in ipairs(groupSets(group, raw)) do
    keys[#keys + 1] = set[2]
  end
  if redis.call('EXISTS', unpack(keys)) == 0 then
    redis.call('ZREM', GROUPS, group)
    if raw then
      redis.call('HDEL', BASE .. 'gcontrol', 'l:' .. group)
    end
  end
end

-- The group written in an envelope (format 3: version byte 3, the group's length in one byte, the group; format 4:
-- version byte 4, the priority, then as format 3, a length of 0 for none), or nil.
local function envelopeGroup(envelope)
  if not envelope then
    return nil
  end
  local version = string.byte(envelope, 1)
  local at = (version == 3) and 2 or ((version == 4) and 3 or nil)
  if at then
    local n = string.byte(envelope, at)
    if n and n > 0 then
      return string.sub(envelope, at + 1, at + n)
    end
  end
  return nil
end

-- Whether the topic ever stored a grouped message (meta, read with the bucket count: no command of its own).
local function grouped()
  return metaRead.groups ~= nil and metaRead.groups ~= false
end

-- What the sharing's groupCaps read (see the priorities section), once per script.
local groupControlsRead = nil

-- A message of 'group' waits from 'due' (scheduled, retried, handed back): the group takes its turn no later than
-- that, unless it is held (paused, or at its cap). Two commands.
local function groupWaits(group, due)
  if redis.call('SMISMEMBER', BASE .. 'gheld', group)[1] == 0 then
    redis.call('ZADD', GROUPS, 'LT', due, group)
  end
end

-- Lets a held group take its turn again if it is not paused and under its cap (its turn: its earliest message's due
-- time). Returns whether it did.
local function groupReadmit(group)
  local c = redis.call('HMGET', BASE .. 'gcontrol', 'p:' .. group, 'c:' .. group, 'l:' .. group)
  if c[1] then
    return false
  end
  local cap = tonumber(c[2]) or tonumber(redis.call('HGET', CONTROL, 'gcap'))
  if cap and (tonumber(redis.call('HGET', BASE .. 'gflight', group)) or 0) >= cap then
    return false
  end
  redis.call('SREM', BASE .. 'gheld', group)
  -- (the earliest message of any of its levels' sets)
  local head = groupHead(group, c[3])
  if head then
    redis.call('ZADD', GROUPS, head, group)
  end
  return true
end

-- Leases of grouped messages ended (acknowledged, failed, handed back, run out): 'ended' is group -> how many. Counts
-- them off; a held group under its cap again takes its turn, and the consumers are woken. A few commands per group.
local function groupLeasesEnded(ended)
  local any = next(ended) ~= nil
  if not any then
    return
  end
  local held = redis.call('EXISTS', BASE .. 'gheld') == 1
  local woken = false
  -- the counts read and written once for every group (the commands of the README's ACL rule: no HINCRBY)
  local groups = {}
  for group in pairs(ended) do
    groups[#groups + 1] = group
  end
  local counts = redis.call('HMGET', BASE .. 'gflight', unpack(groups))
  local left, gone = {}, {}
  for i, group in ipairs(groups) do
    local n = (tonumber(counts[i]) or 0) - ended[group]
    if n > 0 then
      left[#left + 1] = group
      left[#left + 1] = n
    else
      gone[#gone + 1] = group
    end
  end
  each('HSET', BASE .. 'gflight', left)
  each('HDEL', BASE .. 'gflight', gone)
  if held then
    local flags = hmget(BASE .. 'gheld', groups, 'SMISMEMBER')
    for i, group in ipairs(groups) do
      if flags[i] == 1 and groupReadmit(group) then
        woken = true
      end
    end
  end
  if woken then
    redis.call('PUBLISH', WAKE, '0')
  end
end

-- Group rate limits ------------------------------------------------------------------------------------------------
-- A token bucket per group on the Redis clock, as the topic's (see the controls section): the group's own rate
-- ('r:<group>' in gcontrol) or the topic's default ('grate' in the control hash), handler starts per second, with a
-- burst of one second's tokens (at least one); its state in gcontrol's 't:<group>' ('<tokens>:<at ms>'; absent: a full
-- bucket). The control hash's 'grated' is '1' once any group had a rate of its own. A claim leases no more of a group
-- than its tokens allow, and a group left without a whole token gets its next turn when its next token comes: it
-- costs claims nothing while it waits. Read only in a topic whose controls name a group rate (no command otherwise).

-- The claim's Redis time (ms), set by leaseDue for the rate limits; and the rates read by the claim's pick.
local groupRateNow = nil
local groupRatesPicked = nil

-- After leased messages of groups went back unstarted ('counts': group -> how many; handed back, or a claim whose reply
-- never came undone): under group rate limits, their tokens go back to their groups' buckets, as the topic's rate
-- gives its tokens back (see giveBack): a rate counts handler starts, and none of them started. A bucket never holds
-- more than its burst, so no token is made that the rate did not give; a full bucket (never counted) stays as it is.
-- No command for a topic whose controls name no group rate (read already: readControls); else one HMGET for the
-- groups' rates and buckets, and one HSET for those given tokens back.
local function groupGiveBack(counts, now)
  if not (controls and (controls[10] or controls[11])) or next(counts) == nil then
    return
  end
  local groups, fields = {}, {}
  for group in pairs(counts) do
    groups[#groups + 1] = group
    fields[#fields + 1] = 'r:' .. group
    fields[#fields + 1] = 't:' .. group
  end
  local raw = hmget(BASE .. 'gcontrol', fields)
  local written = {}
  for i, group in ipairs(groups) do
    local rate = tonumber(raw[2 * i - 1]) or tonumber(controls[10])
    local t, a = nil, nil
    if raw[2 * i] then
      t, a = string.match(raw[2 * i], '^([^:]+):(%d+)$')
    end
    if rate and rate > 0 and tonumber(t) and tonumber(a) then
      local burst = math.max(1, rate)
      local tokens = math.min(burst, tonumber(t) + math.max(0, now - tonumber(a)) * rate / 1000)
      written[#written + 1] = 't:' .. group
      written[#written + 1] = tostring(math.min(burst, tokens + counts[group])) .. ':' .. int(now)
    end
  end
  each('HSET', BASE .. 'gcontrol', written)
end

-- The groups whose turn has come by 'upTo' (a score), earliest turn first, at most 'limit'; nil for a topic that never
-- stored a grouped message (no command).
local function groupTurns(limit, upTo)
  if not grouped() then
    return nil
  end
  return redis.call('ZRANGEBYSCORE', GROUPS, '-inf', upTo, 'LIMIT', 0, limit)
end

-- A group's turn in a claim of up to 'limit' messages takes up to this many of its due messages, times its weight: the
-- claim's size shared by GROUPS_PER_CLAIM, at least one. So a claim's first round serves at most that many groups of
-- weight 1 when more are due, each reading and removing its messages in one command each, where one message per group
-- would cost those commands per message (the drain over 1,000 groups ran at half the ungrouped rate); a claim of a few
-- messages still takes one per group in turn. The groups due ahead of a group take at most this many each before its
-- turn comes.
local GROUPS_PER_CLAIM = 8
local function groupQuantum(limit)
  return math.max(1, math.ceil(limit / GROUPS_PER_CLAIM))
end

-- The earliest turn among the groups, or nil (none, or a topic that never stored a grouped message).
local function earliestTurn()
  if not grouped() then
    return nil
  end
  return tonumber(redis.call('ZRANGE', GROUPS, 0, 0, 'WITHSCORES')[2])
end

-- Notes the group of a lease record in 'ended' (group -> count); returns the group or nil.
local function noteGroup(ended, group)
  if group then
    ended[group] = (ended[group] or 0) + 1
  end
  return group
end
