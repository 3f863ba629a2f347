-- uses: buckets
-- Stores messages unless their id exists in the topic (waiting, leased or dead, in either format), and wakes
-- consumers when one becomes the new head.
-- ARGV: per message: id, kind ('d' delay in microseconds | 'a' absolute epoch ms), value, envelope, expiry
-- ('<deadline ms>:<d|x>', '' for none; see the prelude's expiry key)
-- Returns per message 1 (stored) or 0 (the id exists, or came earlier in the same call: nothing changed).
local _, nowUs = clock()
local batch = #ARGV / 5
-- format 1's envelopes (see the prelude's v1 section): an id stored there exists too
local V1_MSGS = BASE .. 'msgs'
local format1 = redis.call('EXISTS', V1_MSGS) == 1
local out = {}
local scores = {}
local earliest = nil
-- the ids stored by this call, to tell whether one of them is the new head
local mine = {}
local check = false

local EXPIRY = BASE .. 'expiry'
local expiries = {}

-- groups (see the prelude's groups section): group -> level -> {due, id, ...} of the grouped messages stored, and each
-- group's earliest; an envelope of format 3 names its group (a message without one is never of format 3), one of
-- format 4 its priority and its group, if any
local grouped, groupEarliest = nil, nil

local function storedInGroup(i, due, group, level)
  grouped = grouped or {}
  groupEarliest = groupEarliest or {}
  local sets = grouped[group]
  if not sets then
    sets = {}
    grouped[group] = sets
  end
  local list = sets[level]
  if not list then
    list = {}
    sets[level] = list
  end
  list[#list + 1] = due
  list[#list + 1] = ARGV[i]
  if groupEarliest[group] == nil or due < groupEarliest[group] then
    groupEarliest[group] = due
  end
end

-- priorities (see the prelude's priorities section): level -> {due, id, ...} of the messages without a group stored
-- with a priority other than the default, which wait in their level's set; an envelope of format 4 names its priority
-- (a message of the default priority is never of format 4)
local leveled = nil

local function storedInLevel(i, due, level)
  leveled = leveled or {}
  local list = leveled[level]
  if not list then
    list = {}
    leveled[level] = list
  end
  list[#list + 1] = due
  list[#list + 1] = ARGV[i]
end

local function stored(i, due)
  out[(i + 4) / 5] = 1
  if ARGV[i + 4] ~= '' then
    expiries[#expiries + 1] = ARGV[i]
    expiries[#expiries + 1] = ARGV[i + 4]
  end
  local envelope = ARGV[i + 3]
  local version = string.byte(envelope, 1)
  if version == 3 and string.byte(envelope, 2) > 0 then
    storedInGroup(i, due, string.sub(envelope, 3, 2 + string.byte(envelope, 2)), 4)
    return
  end
  if version == 4 then
    if string.byte(envelope, 3) > 0 then
      -- a grouped message waits in its group's set of its level (priorities within a group)
      storedInGroup(i, due, string.sub(envelope, 4, 3 + string.byte(envelope, 3)), string.byte(envelope, 2))
    else
      storedInLevel(i, due, string.byte(envelope, 2))
    end
    return
  end
  scores[#scores + 1] = due
  scores[#scores + 1] = ARGV[i]
  mine[ARGV[i]] = true
  if earliest == nil or due < earliest then
    earliest = due
  end
end

if batch < 16 then
  -- a few messages: one command each
  for i = 1, #ARGV, 5 do
    local id = ARGV[i]
    local body, h = bodyOf(id)
    out[(i + 4) / 5] = 0
    if not (format1 and redis.call('HEXISTS', V1_MSGS, id) == 1)
        and redis.call('HSETNX', body, id, ARGV[i + 3]) == 1 then
      stored(i, tonumber(dueScore(ARGV[i + 1], ARGV[i + 2], nowUs)))
      -- counting the topic costs three commands: a single message does it one time in sixteen (by its hash), so
      -- the buckets lag the growth by a few messages at most
      check = check or h % 16 == 0
    end
  end
else
  -- a batch makes room first, so its messages go straight to the buckets they stay in; then it reads and writes
  -- each bucket once
  resizing().grow(batch)
  local groups, order = {}, {}
  for i = 1, #ARGV, 5 do
    local body = bodyOf(ARGV[i])
    local group = groups[body]
    if not group then
      group = {}
      groups[body] = group
      order[#order + 1] = body
    end
    group[#group + 1] = i
  end
  local seen = {}
  for _, body in ipairs(order) do
    local group = groups[body]
    if #group == 1 then
      -- most groups hold one message (a batch spreads over many buckets): one command, not two (an id that
      -- comes twice in the batch is in a group of two)
      local i = group[1]
      out[(i + 4) / 5] = 0
      if not (format1 and redis.call('HEXISTS', V1_MSGS, ARGV[i]) == 1)
          and redis.call('HSETNX', body, ARGV[i], ARGV[i + 3]) == 1 then
        stored(i, tonumber(dueScore(ARGV[i + 1], ARGV[i + 2], nowUs)))
      end
    else
      local ids = {}
      for k, i in ipairs(group) do
        ids[k] = ARGV[i]
      end
      local existing = redis.call('HMGET', body, unpack(ids))
      local existingV1 = format1 and redis.call('HMGET', V1_MSGS, unpack(ids)) or {}
      local entries = {}
      for k, i in ipairs(group) do
        local id = ids[k]
        out[(i + 4) / 5] = 0
        if not existing[k] and not existingV1[k] and not seen[id] then
          seen[id] = true
          entries[#entries + 1] = id
          entries[#entries + 1] = ARGV[i + 3]
          stored(i, tonumber(dueScore(ARGV[i + 1], ARGV[i + 2], nowUs)))
        end
      end
      if #entries > 0 then
        redis.call('HSET', body, unpack(entries))
      end
    end
  end
end

for i = 1, #scores, 1000 do
  redis.call('ZADD', PENDING, unpack(scores, i, math.min(#scores, i + 999)))
end
if #expiries > 0 then
  redis.call('HSET', EXPIRY, unpack(expiries))
  -- claims read the expiry hash only in a topic that ever stored an expiry (see the prelude's meta)
  redis.call('HSET', META, 'expiry', '1')
end
if check then
  resizing().grow()
end
-- groups: each group's messages go to its set; the group takes its turn no later than its earliest unless it is held
-- (paused, or at its cap); consumers are woken when a group's turn became the earliest
if grouped then
  redis.call('HSET', META, 'groups', '1')
  local GROUPS = BASE .. 'groups'
  local wake = nil
  for group, sets in pairs(grouped) do
    -- priorities within a group: a level other than the default is listed in the group's 'l:' field before its set,
    -- g<level>:<group>, gets the messages (the prelude's groupLevelKey and groupLevelStored)
    local known, levels = nil, nil
    for level, list in pairs(sets) do
      local key = BASE .. 'g:' .. group
      if level ~= 4 then
        key = BASE .. 'g' .. level .. ':' .. group
        known = known or redis.call('HGET', BASE .. 'gcontrol', 'l:' .. group) or ''
        levels = levels or known
        if not string.find(levels, tostring(level), 1, true) then
          levels = levels .. level
        end
      end
      if levels and levels ~= known then
        redis.call('HSET', BASE .. 'gcontrol', 'l:' .. group, levels)
        known = levels
      end
      for i = 1, #list, 1000 do
        redis.call('ZADD', key, unpack(list, i, math.min(#list, i + 999)))
      end
    end
    if redis.call('SMISMEMBER', BASE .. 'gheld', group)[1] == 0 then
      redis.call('ZADD', GROUPS, 'LT', groupEarliest[group], group)
      if wake == nil or groupEarliest[group] < wake then
        wake = groupEarliest[group]
      end
    end
  end
  if wake ~= nil and tonumber(redis.call('ZRANGE', GROUPS, 0, 0, 'WITHSCORES')[2]) == wake then
    redis.call('PUBLISH', WAKE, delayTo(wake, nowUs))
  end
end
-- priorities: each level's messages go to its set, and meta's 'prio' lists the level; consumers are woken when one
-- of ours became the head of its level's set
if leveled then
  local known = redis.call('HGET', META, 'prio') or ''
  local added = known
  for level, list in pairs(leveled) do
    local key = BASE .. 'p' .. level
    local first = nil
    for i = 1, #list, 1000 do
      redis.call('ZADD', key, unpack(list, i, math.min(#list, i + 999)))
    end
    for i = 1, #list, 2 do
      if first == nil or list[i] < first then
        first = list[i]
      end
    end
    if not string.find(added, tostring(level), 1, true) then
      added = added .. level
    end
    if tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2]) == first then
      redis.call('PUBLISH', WAKE, delayTo(first, nowUs))
    end
  end
  if added ~= known then
    redis.call('HSET', META, 'prio', added)
  end
end
-- one of ours at the head after the ZADD is the topic's new earliest (or ties with the old one): the head is read
-- after writing, without its score (a score is formatted as text on every read, and parsed back here)
if earliest ~= nil and mine[redis.call('ZRANGE', PENDING, '0', '0')[1]] then
  redis.call('PUBLISH', WAKE, delayTo(earliest, nowUs))
end
return out
