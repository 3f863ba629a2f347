-- The part every delayqueue script shares, put in front of each script's own text when it is loaded (a fixed
-- resource: no script text is ever built from input). Stored format 2.
--
-- KEYS[1] is the topic's pending set, <prefix>:{<topic>}:pending. Every other key of the topic shares its hash tag
-- (so a script touches one cluster slot) and is named here:
--   pending   ZSET  id -> due time (Redis-clock ms, to the microsecond): scheduled and retry-waiting messages
--   leased    ZSET  id -> lease deadline (ms): claimed messages, whether their handler has started or not
--   lease     HASH  id -> "<token>:<due ms>:<attempt>" for every leased message: the attempt counted for a suspect
--                   before its handler starts, 0 for a message leased in a batch (counted only if it fails); the
--                   token (one per claim) fences every later call (ack, extend, fail, release), so a stale consumer
--                   never touches a later claim
--   body:<n>  HASH  id -> envelope, in buckets that grow and shrink with the topic (linear hashing), so that each
--                   stays a small listpack-encoded hash: a message costs a few bytes more than its id and envelope
--   meta      HASH  buckets -> bucket count; token -> last lease token handed out; upkeep -> when a claim that
--                   leased messages last did the upkeep (ms); expiry -> '1' once the topic stored a message with an
--                   expiry deadline (only then do claims read the expiry hash; absent in a topic stored before 0.3,
--                   which had no expiries); claims -> no later than the earliest lease end among the claims records
--                   (ms; past them all if there is none): the upkeep reads the records only once it has passed
--                   (absent: not known, read at the next upkeep)
--   tries     HASH  id -> attempts counted so far (failures, and suspects' runs; absent before the first); while a
--                   suspect is leased, its lease record carries the count
--   suspect   SET   ids of messages whose lease ran out without an outcome (the message may have killed its consumer),
--                   until a handler's outcome is known (ack, retry, dead letter); a claim leases at most one, and
--                   only to a consumer that runs no other suspect and runs it alone, so that a message that kills its
--                   JVM uses up its own attempts and never takes its neighbours down with it again
--   buried    ZSET  id -> time it died (ms): dead letters; their envelopes stay in the buckets
--   error     HASH  id -> last error of a retrying or dead message
-- and the pub/sub channel <prefix>:{<topic>}:wake, on which the delay to a new earliest due time is published.
-- Format 1 keys (msgs, due, inflight, attempts, dead, errors) are read and migrated, never written.
--   claims  HASH  consumer id -> '<claim number>:<token>:<lease end>' of its last claim that leased messages, until
--                   the upkeep after that lease ended: a claim whose reply its consumer never received is undone
--                   (handBackUnseen)
--   control HASH  the topic's pause, rate limit and concurrency cap (see the controls section)
--   expiry  HASH  id -> deadline of a message that carries one (see meta's expiry field)
-- Sections: 'base' is in every script; a script names the others it uses on a '-- uses:' line, and gets them in
-- this file's order. A section may use the ones before it: leases and dead use buckets, format1 uses v1.
-- @section base
-- Each section names the keys it uses (building a key name costs time on every call of a script).
local PENDING = KEYS[1]
local BASE = string.sub(PENDING, 1, -8)
local META = BASE .. 'meta'
local WAKE = BASE .. 'wake'

-- What a script reads of meta besides the bucket count, in the same command (see the buckets section): a list of
-- fields, set by a section such as claimread; nil for a script that reads the bucket count alone. What it read goes
-- in metaRead (field -> value, false if absent).
local metaAlso = nil
local metaRead = {}

-- Messages per bucket on average before a bucket splits; the fullest buckets hold about twice this, well under
-- the 128 entries up to which Redis keeps a hash listpack-encoded by default. 20 since 0.3 (40 before: a topic stored
-- then splits as it grows): an HSETNX or HGET scans its bucket's listpack, and at 20 a lone schedule ran 4 % fewer
-- instructions for the same splitting work (schedule-plain.lua uses the same number).
local BUCKET_FILL = 20

-- An integer as Redis text (no exponent, no fraction).
local function int(value)
  return string.format('%.0f', value)
end

-- The Redis clock: milliseconds (for leases and deaths) and microseconds (for due times).
local function clock()
  local t = redis.call('TIME')
  local us = tonumber(t[1]) * 1000000 + tonumber(t[2])
  return math.floor(us / 1000), us
end

-- A time in microseconds as a score in milliseconds, to the microsecond (a double: Redis keeps scores as doubles, so
-- comparing scores compares the microseconds up to the 22nd century, and a message is never due before server time
-- at scheduling plus the delay it was sent: its delay less the time its call had taken before it was sent).
local function score(us)
  return us / 1000
end

-- A due time from a schedule argument: a delay in microseconds from now ('d'), or an absolute time in ms ('a').
local function dueScore(kind, value, nowUs)
  if kind == 'd' then
    return score(nowUs + tonumber(value))
  end
  return value
end

-- The delay from now (ms) to a due score, rounded up: what the wake channel carries.
local function delayTo(due, nowUs)
  return int(math.max(0, math.ceil(tonumber(due) - nowUs / 1000)))
end

-- The delay from now in microseconds to a score, rounded up: what claims return, for a precise wake-up.
local function delayUs(due, nowUs)
  return int(math.max(0, math.ceil(tonumber(due) * 1000 - nowUs)))
end

-- A non-negative integer read from Redis (below 2^53, so exact), or nil if absent; false if present but not such an
-- integer ('inf', a fraction, text...).
local function count(raw)
  if not raw then
    return nil
  end
  local n = tonumber(raw)
  if not n or n < 0 or n >= 9007199254740992 or n ~= math.floor(n) then
    return false
  end
  return n
end

-- Runs a command that takes a key and any number of arguments over a list of them, a thousand at a time (unpack is
-- limited by Lua's stack): one call per batch of messages, not one per message. Lists of pairs stay whole.
local function each(command, key, args)
  for i = 1, #args, 1000 do
    redis.call(command, key, unpack(args, i, math.min(#args, i + 999)))
  end
end

-- The earliest score among the sorted sets 'keys' (a number; nil: all empty or absent). One command per set.
local function earliestIn(keys)
  local first = nil
  for _, key in ipairs(keys) do
    local head = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
    if head and (first == nil or head < first) then
      first = head
    end
  end
  return first
end

-- HMGET over a list of fields (none: an empty list); absent fields are false. With 'command' SMISMEMBER: 1 or 0 per
-- member.
local function hmget(key, fields, command)
  command = command or 'HMGET'
  if #fields <= 1000 then
    return (#fields > 0) and redis.call(command, key, unpack(fields)) or {}
  end
  local values = {}
  for i = 1, #fields, 1000 do
    local part = redis.call(command, key, unpack(fields, i, math.min(#fields, i + 999)))
    for k = 1, #part do
      values[#values + 1] = part[k]
    end
  end
  return values
end

-- @section controls ----------------------------------------------------------------------------------------------

-- A topic's controls, set by operators and followed by every instance (absent for a topic that uses none): paused
-- ('1'), rate (handler starts per second) with burst (the most tokens saved up) and the token bucket's state (tokens,
-- at: ms), cap (the most messages leased at once), refused ('1' while a claim was cut by the cap).
local CONTROL = BASE .. 'control'

-- What a claim read of the controls (see readControls), so that it pays one command for them, not two; nil: not read.
local controls = nil

-- After leases ended (acknowledged, failed, handed back): if the cap cut a claim short, wake the consumers, since a
-- slot is free now. One command for a topic without a cap; none if the controls were read (readControls) and no
-- claim was cut short. Returns whether it woke them.
local function slotsFreed()
  if controls ~= nil and not controls[7] then
    -- read at the start of this script: no claim was cut short
    return false
  end
  if redis.call('HDEL', CONTROL, 'refused') == 1 then
    redis.call('PUBLISH', WAKE, '0')
    return true
  end
  return false
end

-- Reads the topic's controls once for the whole script: paused, rate, burst, tokens, at, cap, refused, the default
-- cap of its groups (see the groups section), its priority mode ('strict', or absent: weighted; see the priorities
-- section), the default rate limit of its groups and whether any group has a rate of its own (see the groups' rate
-- limits).
-- Read whole (the hash holds these fields and no others): a topic that uses no control has no hash, and its empty
-- reply costs a claim far less than eleven absent fields of an HMGET would; an absent field is nil.
local function readControls()
  local raw = redis.call('HGETALL', CONTROL)
  controls = {}
  if #raw > 0 then
    local byName = {}
    for i = 1, #raw, 2 do
      byName[raw[i]] = raw[i + 1]
    end
    for i, field in ipairs({ 'paused', 'rate', 'burst', 'tokens', 'at', 'cap', 'refused', 'gcap', 'pmode', 'grate',
        'grated' }) do
      controls[i] = byName[field]
    end
  end
  return controls
end

-- The tokens in the rate's bucket at 'now' (ms), refilled on the Redis clock since they were last counted (a full
-- bucket if they never were), from the controls read; the rate and the burst too.
local function tokensAt(c, now)
  local rate, burst = tonumber(c[2]), tonumber(c[3])
  return math.min(burst, (tonumber(c[4]) or burst) + math.max(0, now - (tonumber(c[5]) or now)) * rate / 1000),
      rate, burst
end

-- After 'n' leased messages went back to pending unstarted (a consumer handed them back, or a claim whose reply never
-- came was undone): under a rate limit, their tokens go back to the bucket, so that a message does not pay again when
-- it is leased anew. A rate counts handler starts, and a claim spends a token per message it leases; a message handed
-- back unstarted did not start. The tokens go back to the bucket they came from, which never holds more than the
-- burst: no token is made that the rate did not give, and the starts over any time are bounded as before (a consumer
-- that held the messages could have started them at this moment just as well). A token comes back for each message
-- whether or not its lease spent one (one leased before the rate was set, say), which the burst bounds too. O(1): one
-- command for the whole hand-back, and only for a topic with a rate. Needs the controls read (readControls).
local function giveBack(n, now)
  local c = controls
  if n <= 0 or not c[2] then
    return
  end
  local tokens, _, burst = tokensAt(c, now)
  c[4], c[5] = tostring(math.min(burst, tokens + n)), int(now)
  redis.call('HSET', CONTROL, 'tokens', c[4], 'at', c[5])
end

-- @section claimread ---------------------------------------------------------------------------------------------

-- What a claim reads of meta, in the one command that reads the bucket count, so that none of it costs a command of
-- its own: the last lease token handed out, when the upkeep last ran on a claim that leased messages, whether the
-- topic ever stored a message with an expiry deadline, and how early a claims record may end (see the claims
-- section).
metaAlso = { 'token', 'upkeep', 'expiry', 'claims' }

-- @section groups ------------------------------------------------------------------------------------------------
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

local function groupKey(group)
  return BASE .. 'g:' .. group
end

-- Priorities within a group (docs/reference/fair-delivery.md, "Priorities and groups"): a grouped message of a level
-- other than the default waits in a set of its group and level, g<level>:<group>, which no other key of the topic can
-- be: a group's own set has ':' where this one has a digit, and no other key starts with 'g' and a digit. gcontrol's
-- 'l:<group>' lists the levels that have a set (their digits, as meta's 'prio' does for the topic; absent: none, so a
-- group of the default level alone reads no other set). A level's digit is written before its set gets a message and
-- taken off only by a claim that found the set empty: a digit without a set costs one read, never a lost message.
local GROUP_DEFAULT_LEVEL = 4
local function groupLevelKey(group, level)
  if level == nil or level == GROUP_DEFAULT_LEVEL then
    return groupKey(group)
  end
  return BASE .. 'g' .. level .. ':' .. group
end

-- The sets a group's messages wait in, as {level, key}, highest level first: its own (the default level) and one per
-- level in 'raw' (its 'l:' field as read; false or nil: none).
local function groupSets(group, raw)
  local sets = { { GROUP_DEFAULT_LEVEL, groupKey(group) } }
  if raw then
    for digit in string.gmatch(raw, '%d') do
      local level = tonumber(digit)
      if level ~= GROUP_DEFAULT_LEVEL then
        sets[#sets + 1] = { level, groupLevelKey(group, level) }
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

-- @section priorities --------------------------------------------------------------------------------------------
-- Priorities (docs/reference/fair-delivery.md): a message without a group whose priority is not the default (4)
-- waits in the sorted set of its level, p<level> (id -> due time), instead of pending; pending is level 4's. A
-- claim shares the part of it that goes to the messages without a group among the levels with due messages, in
-- proportion to level + 1 (or strictly, highest first, if the control hash's 'pmode' is 'strict'). Keys:
--   p<level>  ZSET  id -> due time: the waiting messages of one level other than the default, without a group
-- meta's 'prio' lists the levels other than the default the topic ever stored (their digits): a topic without it never
-- reads a level's set. Such a message's envelope is of format 4 (version byte 4, its priority, then format 3's group
-- length and group), and its lease record says its level ('/<level>' after the attempt), so that every outcome that
-- puts it back finds its set. A grouped message waits in its group's sets instead (see the groups section: its own for
-- the default level, g<level>:<group> for another); a suspect waits in pending.
local DEFAULT_LEVEL = 4

if metaAlso then
  metaAlso[#metaAlso + 1] = 'prio'
else
  metaAlso = { 'prio' }
end

-- The set a message without a group of this level waits in (nil or the default: pending).
local function levelKey(level)
  if level == nil or level == DEFAULT_LEVEL then
    return PENDING
  end
  return BASE .. 'p' .. level
end

-- The priority written in an envelope (format 4's second byte), else the default.
local function envelopeLevel(envelope)
  if envelope and string.byte(envelope, 1) == 4 then
    return string.byte(envelope, 2) or DEFAULT_LEVEL
  end
  return DEFAULT_LEVEL
end

-- The set a stored message waits in, from its envelope: its group's of its level, its level's, or pending; its group
-- (nil: none) and its level.
local function waitKeyOf(envelope)
  local group = envelopeGroup(envelope)
  local level = envelopeLevel(envelope)
  if group then
    return groupLevelKey(group, level), group, level
  end
  return levelKey(level), nil, level
end

-- The levels other than the default that the topic ever stored, highest first, from meta's 'prio' ('raw'; by
-- default as read with the bucket count): none for a topic that never stored one.
local function storedLevels(raw)
  if raw == nil then
    raw = metaRead.prio
  end
  local levels = {}
  if raw then
    for digit in string.gmatch(raw, '%d') do
      levels[#levels + 1] = tonumber(digit)
    end
    table.sort(levels, function(a, b)
      return a > b
    end)
  end
  return levels
end

-- After a message of 'level' was stored without a group: meta's 'prio' lists the level (one command the first time).
local function levelStored(level)
  if level == nil or level == DEFAULT_LEVEL then
    return
  end
  local raw = metaRead.prio or ''
  if not string.find(raw, tostring(level), 1, true) then
    metaRead.prio = raw .. level
    redis.call('HSET', META, 'prio', metaRead.prio)
  end
end

-- After a claim leased messages of levels other than the default ('leased': level -> ids): they leave their sets.
local function levelsServed(leased)
  for level, ids in pairs(leased) do
    each('ZREM', levelKey(level), ids)
  end
end

-- Puts messages of levels other than the default back in their sets ('scores': score, id, ...; 'levels': id ->
-- level); returns the scores of the others, which go to pending.
local function levelsWait(scores, levels)
  if not levels or next(levels) == nil then
    return scores
  end
  local common, byLevel = {}, {}
  for i = 1, #scores, 2 do
    local level = levels[scores[i + 1]]
    if level and level ~= DEFAULT_LEVEL then
      local list = byLevel[level]
      if not list then
        list = {}
        byLevel[level] = list
      end
      list[#list + 1] = scores[i]
      list[#list + 1] = scores[i + 1]
    else
      common[#common + 1] = scores[i]
      common[#common + 1] = scores[i + 1]
    end
  end
  for level, list in pairs(byLevel) do
    each('ZADD', levelKey(level), list)
  end
  return common
end

-- How a claim shares itself among groups and levels: groupWeight, groupPick, groupsServed and priorityShare, with
-- their helpers. Built only by a claim that serves groups or priority levels (every call of a script runs its whole
-- text, and defining functions costs time: a topic without groups and priorities never defines these).
local function sharing()
  -- The cap of each of 'groups' (nil: none), from its own setting or the topic's default, its weight (1 unless set), its
  -- credit (nil: none; see groupsServed) and the levels it has sets of (its 'l:' field: false for none), for these
  -- groups and every group read before in this script: one command for those not read yet (groupWeight reads the first
  -- groups before groupPick, which reads more if the claim has room for them).
  local function groupCaps(groups, defaultCap)
    if not groupControlsRead then
      groupControlsRead = { {}, {}, {}, {} }
    end
    local caps, weights, credits, levels = unpack(groupControlsRead)
    local fresh, fields = {}, {}
    for _, group in ipairs(groups) do
      if weights[group] == nil then
        fresh[#fresh + 1] = group
        fields[#fields + 1] = 'c:' .. group
        fields[#fields + 1] = 'w:' .. group
        fields[#fields + 1] = 'd:' .. group
        fields[#fields + 1] = 'l:' .. group
      end
    end
    if #fresh > 0 then
      local own = hmget(BASE .. 'gcontrol', fields)
      for i, group in ipairs(fresh) do
        caps[group] = tonumber(own[4 * i - 3]) or tonumber(defaultCap)
        weights[group] = tonumber(own[4 * i - 2]) or 1
        credits[group] = tonumber(own[4 * i - 1])
        levels[group] = own[4 * i]
      end
    end
    return caps, weights, credits, levels
  end

  -- The rate limits of 'groups': group -> {rate, tokens now} for each group with a rate; nil for a topic that sets no
  -- group rate (the controls read say so: no command). One command.
  local function groupRates(groups)
    if not (controls and (controls[10] or controls[11])) or #groups == 0 or not groupRateNow then
      return nil
    end
    local fields = {}
    for _, group in ipairs(groups) do
      fields[#fields + 1] = 'r:' .. group
      fields[#fields + 1] = 't:' .. group
    end
    local raw = redis.call('HMGET', BASE .. 'gcontrol', unpack(fields))
    local rates = {}
    local now = groupRateNow
    for i, group in ipairs(groups) do
      local rate = tonumber(raw[2 * i - 1]) or tonumber(controls[10])
      if rate and rate > 0 then
        local burst = math.max(1, rate)
        local tokens, at = burst, now
        if raw[2 * i] then
          local t, a = string.match(raw[2 * i], '^([^:]+):(%d+)$')
          tokens, at = tonumber(t) or burst, tonumber(a) or now
        end
        rates[group] = { rate, math.min(burst, tokens + math.max(0, now - at) * rate / 1000) }
      end
    end
    return rates
  end

  -- How many more messages of 'group' its tokens allow, beyond 'taken' already (nil: no rate).
  local function groupRateRoom(group, taken)
    local r = groupRatesPicked and groupRatesPicked[group]
    if not r then
      return nil
    end
    return math.max(0, math.floor(r[2]) - taken)
  end

  -- After a claim leased 'n' messages of a picked group: spends their tokens (appended to 'written', which groupsServed
  -- writes in one command) and returns when the group's next whole token comes (ms score), or 0 if it has one left or
  -- no rate.
  local function groupRateSpent(group, n, written)
    local r = groupRatesPicked and groupRatesPicked[group]
    if not r then
      return 0
    end
    local tokens = r[2] - n
    written[#written + 1] = 't:' .. group
    written[#written + 1] = tostring(tokens) .. ':' .. int(groupRateNow)
    if tokens >= 1 then
      return 0
    end
    return groupRateNow + math.ceil((1 - tokens) * 1000 / r[1])
  end

  -- The shares of 'room' among 'open' picks by what each may take (pick[k]: its weight, or in a claim's first round what
  -- it is owed, see groupsServed): each a multiple of it, then what does not divide given out in turn, up to it each;
  -- with less room than they add up to, the first in turn take theirs and the rest nothing.
  local function groupShares(open, room, k)
    local total = 0
    for _, pick in ipairs(open) do
      total = total + pick[k]
    end
    local base = math.floor(room / total)
    local extra = room - base * total
    local shares = {}
    for i, pick in ipairs(open) do
      local add = math.min(extra, pick[k])
      shares[i] = base * pick[k] + add
      extra = extra - add
    end
    return shares
  end

  -- Shares 'room' among lanes (each {level, candidates}, highest level first): strictly, highest first; or else slot
  -- by slot, each slot to a lane drawn in proportion to level + 1 at a position of a fixed sequence that visits every
  -- point of the weights' total in any run of that many positions (a step of 97, prime and above every total: at most
  -- 55), successive claims taking successive positions ('seed', the claim's number, times the room). A lane that has no
  -- more candidates passes its slot to the highest that has. So each level gets its weighted share over successive
  -- claims however small they are (the starvation guard), and a claim of a message or two still gives the higher levels
  -- most of the slots. Returns how many each lane takes.
  local function shareAmongLevels(lanes, room, strict, seed)
    local takes = {}
    for i in ipairs(lanes) do
      takes[i] = 0
    end
    if strict then
      for i, lane in ipairs(lanes) do
        takes[i] = math.min(room, #lane[2])
        room = room - takes[i]
      end
      return takes
    end
    local total = 0
    for _, lane in ipairs(lanes) do
      total = total + lane[1] + 1
    end
    if total == 0 then
      -- nothing due in any level
      return takes
    end
    local start = ((seed % total) * room) % total
    for slot = 0, room - 1 do
      local point = ((start + slot) * 97) % total
      local pick = nil
      for i, lane in ipairs(lanes) do
        point = point - (lane[1] + 1)
        if point < 0 then
          pick = i
          break
        end
      end
      if takes[pick] >= #lanes[pick][2] then
        pick = nil
        for i, lane in ipairs(lanes) do
          if takes[i] < #lane[2] then
            pick = i
            break
          end
        end
        if pick == nil then
          break
        end
      end
      takes[pick] = takes[pick] + 1
    end
    return takes
  end

  -- Priorities within a group (see the groups section): a group's take of a claim's round shared among its sets (its
  -- own, which holds the default level, and one per level its 'l:' field lists: 'raw' as read) by the topic's priority
  -- mode, as the messages without a group are shared among the levels (shareAmongLevels), higher levels first. Reads
  -- one more than 'take' of each set, past what the claim took of it already (pick[7]: key -> taken), so that it knows
  -- each set's next message: the earliest of them is the group's next due time (pick[3]; nil: none left). A level whose
  -- set has nothing left is dropped from the group's digits, which pick[8] holds when they changed (nil: unchanged; see
  -- groupsServed). Appends to chosen, dueOf, groupOf and groupLevelOf; returns how many it took. One command per set.
  local function groupLevelTake(group, pick, take, limit, raw, chosen, dueOf, groupOf, groupLevelOf)
    local offsets = pick[7] or {}
    pick[7] = offsets
    local all, lanes = {}, {}
    for _, set in ipairs(groupSets(group, pick[8] or raw)) do
      local from = offsets[set[2]] or 0
      local part = redis.call('ZRANGE', set[2], from, from + take, 'WITHSCORES')
      -- {level, candidates (indices into part), key, part}
      local lane = { set[1], {}, set[2], part }
      for k = 1, #part, 2 do
        if #lane[2] >= take or tonumber(part[k + 1]) > limit then
          break
        end
        lane[2][#lane[2] + 1] = k
      end
      all[#all + 1] = lane
      if #lane[2] > 0 then
        lanes[#lanes + 1] = lane
      end
    end
    local strict = controls ~= nil and controls[9] == 'strict'
    local takes = shareAmongLevels(lanes, take, strict, tonumber(metaRead.token) or 0)
    local taken = 0
    local took = {}
    for i, lane in ipairs(lanes) do
      for j = 1, takes[i] do
        local k = lane[2][j]
        chosen[#chosen + 1] = lane[4][k]
        dueOf[#chosen] = lane[4][k + 1]
        groupOf[#chosen] = group
        groupLevelOf[#chosen] = lane[1]
      end
      took[lane[3]] = takes[i]
      taken = taken + takes[i]
    end
    local nextDue = nil
    local kept, before = '', ''
    for _, lane in ipairs(all) do
      local n = took[lane[3]] or 0
      offsets[lane[3]] = (offsets[lane[3]] or 0) + n
      local nextScore = tonumber(lane[4][2 * n + 2])
      if nextScore and (nextDue == nil or nextScore < nextDue) then
        nextDue = nextScore
      end
      if lane[1] ~= GROUP_DEFAULT_LEVEL and nextScore then
        kept = kept .. lane[1]
      end
    end
    for _, set in ipairs(groupSets(group, raw)) do
      if set[1] ~= GROUP_DEFAULT_LEVEL then
        before = before .. set[1]
      end
    end
    pick[3] = nextDue
    pick[8] = (kept ~= before) and kept or nil
    return taken
  end

  -- The sum of the weights of the groups whose turn has come ('turns'), so that the messages without a group, which
  -- count as one more group of weight 1, get their weighted share of a claim.
  local function groupWeight(turns)
    local _, weights = groupCaps(turns, controls and controls[8])
    local total = 0
    for _, group in ipairs(turns) do
      total = total + weights[group]
    end
    return total
  end

  -- A claim's pick among the groups whose turn has come, earliest turn first: 'turns' read already, and more read here
  -- while the claim has room ('more': whether more may be waiting, as many were read as asked for). In turn, each group
  -- gets a share of 'room' of up to its weight times 'quantum' (or what it is still owed of that), and the first in turn
  -- take theirs while the room lasts (see groupShares; the others keep their turns for the next claim); then what some
  -- leave unused is shared by weight among those that have more due, and so on. Never more than a group's cap leaves
  -- free nor than its tokens allow under a group rate limit (what a rate holds back goes to the others in the next
  -- round); only messages due by 'upTo'. Appends id, due score and group to chosen, dueOf and groupOf, and the level of
  -- a message of a group's level set to groupLevelOf. Returns per group picked {group, taken, due score of its next
  -- message (nil: none left; true: at its cap), weight, owed, first share, and for a group with levels: what it took of
  -- each set, and its levels' digits as the claim leaves them}, the caps, the counts in flight and the credits read.
  -- Commands: per batch of turns read, one HMGET of their controls and one of their counts in flight (and one of their
  -- buckets under group rate limits); per group and round, one ZRANGE (mostly one round), one more per level set of a
  -- group that has them. A claim reads a second batch only when the first left room (groups with fewer due than their
  -- share, or held back), then as many groups as it has room for.
  local function groupPick(turns, room, upTo, chosen, dueOf, groupOf, groupLevelOf, quantum, more)
    local defaultCap = controls and controls[8]
    -- (read per batch below: groupCaps and groupRates for its groups, and their counts in flight)
    local caps, weights, credits, levels
    local flight = {}
    groupRatesPicked = nil
    local limit = tonumber(upTo)
    local picks = {}
    local maxRead = math.max(#turns, room)

    -- one round of takes: each open pick takes its share (shares[i]); returns those that took it all and have more due
    local function takeShares(open, shares)
      local again = {}
      for i, pick in ipairs(open) do
        local group = pick[1]
        local take = shares[i]
        if caps[group] then
          take = math.min(take, math.max(0, caps[group] - flight[group] - pick[2]))
        end
        -- group rate limits: no more than its tokens allow (what it may not take goes to the others in the next round)
        local allowed = groupRateRoom(group, pick[2])
        if allowed and allowed < take then
          take = allowed
        end
        if take > 0 and levels[group] then
          -- priorities within the group: its take shared among its levels' sets (see groupLevelTake)
          local taken = groupLevelTake(group, pick, take, limit, levels[group], chosen, dueOf, groupOf, groupLevelOf)
          pick[2] = pick[2] + taken
          room = room - taken
          if taken == take and pick[3] and pick[3] <= limit and not (allowed and allowed <= taken) then
            again[#again + 1] = pick
          end
        elseif take > 0 then
          -- one more than it may take: the next message's due time is the group's next turn
          local head = redis.call('ZRANGE', groupKey(group), pick[2], pick[2] + take, 'WITHSCORES')
          local taken = 0
          pick[3] = nil
          for k = 1, #head, 2 do
            if taken < take and tonumber(head[k + 1]) <= limit then
              chosen[#chosen + 1] = head[k]
              dueOf[#chosen] = head[k + 1]
              groupOf[#chosen] = group
              taken = taken + 1
            else
              pick[3] = tonumber(head[k + 1])
              break
            end
          end
          pick[2] = pick[2] + taken
          room = room - taken
          if taken == take and pick[3] and pick[3] <= limit and not (allowed and allowed <= taken) then
            again[#again + 1] = pick
          end
        elseif caps[group] and flight[group] + pick[2] >= caps[group] then
          if pick[2] == 0 then
            -- at its cap already: held (see groupsServed)
            pick[3] = true
          end
        end
      end
      return again
    end

    local again = {}
    local batch = turns
    local read = 0
    while true do
      caps, weights, credits, levels = groupCaps(batch, defaultCap)
      -- group rate limits: the buckets of the rated groups (none read for a topic without group rates)
      local rates = groupRates(batch)
      if rates then
        groupRatesPicked = groupRatesPicked or {}
        for group, r in pairs(rates) do
          groupRatesPicked[group] = r
        end
      end
      -- the batch's counts in flight, read at once (and written at once by groupsServed)
      local counts = redis.call('HMGET', BASE .. 'gflight', unpack(batch))
      for i, group in ipairs(batch) do
        flight[group] = tonumber(counts[i]) or 0
      end
      local open, idle = {}, {}
      for _, group in ipairs(batch) do
        local turn = weights[group] * quantum
        -- (a debt is above zero: one that is not, from a build that could write such, counts as none)
        local owed = (credits[group] and credits[group] > 0) and math.min(credits[group], turn) or turn
        -- group rate limits: a group takes no more than its tokens allow, so its first share is no more than that; one
        -- without a whole token takes none and waits for its next token (its turn came, so it has a message due by
        -- 'upTo': see groupsServed), leaving its share to the others
        local allowed = groupRateRoom(group, 0)
        if allowed == 0 then
          idle[#idle + 1] = { group, 0, limit, weights[group], owed, 0 }
        else
          open[#open + 1] = { group, 0, nil, weights[group], (allowed and allowed < owed) and allowed or owed, 0 }
        end
      end
      local owed = 0
      for _, pick in ipairs(open) do
        owed = owed + pick[5]
      end
      local served = 0
      if owed <= room then
        -- room for every turn of the batch: the room shared among them by what each is owed (see groupShares)
        local shares = groupShares(open, room, 5)
        for i, pick in ipairs(open) do
          pick[6] = shares[i]
          picks[#picks + 1] = pick
        end
        served = #open
        for _, pick in ipairs(takeShares(open, shares)) do
          again[#again + 1] = pick
        end
      else
        -- less: in turn, each up to what it is owed of the room its predecessors left (a group with fewer due leaves
        -- the rest to the next); the first the room cuts short keeps its place and is owed the rest (see
        -- groupsServed), and the groups after it keep their turns for the next claim
        for _, pick in ipairs(open) do
          if room <= 0 then
            break
          end
          local share = math.min(pick[5], room)
          pick[6] = share
          picks[#picks + 1] = pick
          served = served + 1
          for _, more in ipairs(takeShares({ pick }, { share })) do
            again[#again + 1] = more
          end
        end
      end
      for _, pick in ipairs(idle) do
        picks[#picks + 1] = pick
      end
      read = read + #batch
      -- room left after every group read took its share: the next groups in turn, as many as there is room for (each
      -- has a message due)
      -- (no more groups read in all than the claim's room: groups held back by a cap or a rate take none of it, and
      -- a claim reads no further into them than a claim reading a group per message would)
      if room <= 0 or not more or served < #open or read >= maxRead then
        break
      end
      local size = math.min(room, maxRead - read)
      batch = redis.call('ZRANGEBYSCORE', GROUPS, '-inf', upTo, 'LIMIT', read, size)
      more = #batch == size
      if #batch == 0 then
        break
      end
    end
    local open = again
    while room > 0 and #open > 0 do
      open = takeShares(open, groupShares(open, room, 4))
    end
    return picks, caps, flight, credits
  end

  -- After a claim leased 'leased' (group -> ids) of the groups it picked: counts them in flight and takes them out of
  -- their groups' sets, and gives each group picked its next turn, behind every group not picked, those that took
  -- fewest for their weight first (so a group that got one less this time is ahead next time): the later of that and
  -- its next message's due time; none if it has no message left; held if it reached its cap; its place kept if the
  -- claim's room cut it short of what it was owed ('credits': what each was owed before). (A pick that read no next
  -- message took all its group had: what was read and not leased was buried or dropped, and left its set then.)
  -- 'leasedLevels' (group -> level -> ids) names the messages of a group's level sets, which leave those sets; a group
  -- whose level set the claim found empty has that level taken off its 'l:' field.
  local function groupsServed(picks, caps, flight, leased, nowScore, credits, leasedLevels)
    local turns, out, held, counts = {}, {}, {}, {}
    -- weights: what groups cut short are owed ('d:<group>') and, under group rate limits, the buckets spent
    -- ('t:<group>'): written to gcontrol at once
    local owe, paid = {}, {}
    local order = {}
    for i, pick in ipairs(picks) do
      order[i] = i
    end
    table.sort(order, function(a, b)
      -- fewest per weight first (taken * other weight: no fraction)
      local x, y = picks[a][2] * picks[b][4], picks[b][2] * picks[a][4]
      if x ~= y then
        return x < y
      end
      return a < b
    end)
    for rank, index in ipairs(order) do
      local pick = picks[index]
      local group = pick[1]
      local ids = leased[group]
      local n = ids and #ids or 0
      if n > 0 then
        local byLevel = leasedLevels and leasedLevels[group]
        if byLevel then
          for level, list in pairs(byLevel) do
            each('ZREM', groupLevelKey(group, level), list)
          end
        else
          each('ZREM', groupKey(group), ids)
        end
        flight[group] = flight[group] + n
        counts[#counts + 1] = group
        counts[#counts + 1] = flight[group]
      end
      local cap = caps[group]
      local nextDue = pick[3]
      local nextToken = groupRateSpent(group, n, owe)
      if pick[8] ~= nil then
        -- priorities within the group: a level whose set the claim emptied (or found empty) is listed no more
        if pick[8] == '' then
          paid[#paid + 1] = 'l:' .. group
        else
          owe[#owe + 1] = 'l:' .. group
          owe[#owe + 1] = pick[8]
        end
      end
      if cap and (flight[group] or 0) >= cap then
        out[#out + 1] = group
        if nextDue ~= nil then
          held[#held + 1] = group
        end
        -- (out of turn: it owes nothing when it comes back)
        if credits[group] then
          paid[#paid + 1] = 'd:' .. group
        end
      elseif nextDue == nil then
        out[#out + 1] = group
        if credits[group] then
          paid[#paid + 1] = 'd:' .. group
        end
      elseif pick[6] < pick[5] and pick[2] < pick[5] and pick[2] >= pick[6] and nextDue <= nowScore
          and nextToken == 0 then
        -- weights: a group that the claim's room cut short of what it was owed (its weight, or what was left of it) keeps
        -- its turn and is owed the rest (only a group of weight above 1 can be cut short); not one out of tokens, whose
        -- rate holds it back anyway: it waits for its next token below, its debt paid
        owe[#owe + 1] = 'd:' .. group
        owe[#owe + 1] = pick[5] - pick[2]
      else
        if credits[group] then
          paid[#paid + 1] = 'd:' .. group
        end
        -- a microsecond apart (a double of Redis-time milliseconds tells them apart well past this century)
        -- (and, under a rate limit, no earlier than its next token)
        turns[#turns + 1] = math.max(tonumber(nextDue) or 0, nowScore + rank / 1000, nextToken)
        turns[#turns + 1] = group
      end
    end
    each('HSET', BASE .. 'gflight', counts)
    each('ZREM', GROUPS, out)
    each('SADD', BASE .. 'gheld', held)
    each('ZADD', GROUPS, turns)
    each('HSET', BASE .. 'gcontrol', owe)
    each('HDEL', BASE .. 'gcontrol', paid)
  end

  -- A claim's messages without a group, shared among the priority levels: pending's candidates are ids/due as leaseDue
  -- read them (suspects, flagged in 'flags', passed over), the other levels' are read here (one command per level the
  -- topic ever stored, up to 'limit' each, due by 'upTo') and appended to ids and due, their levels in levelAt (index ->
  -- level). 'room' is the part of the claim that goes to the messages without a group, 'seed' draws the slots left over
  -- (see shareAmongLevels). Returns the indices chosen, higher levels first, and the rest, up to 'limit', as spare
  -- (higher levels first) for what the groups leave unused.
  local function priorityShare(ids, due, flags, room, limit, upTo, levelAt, strict, seed)
    local lanes = {}
    local common = {}
    for k = 1, #ids do
      if flags[k] ~= 1 and #common < limit then
        common[#common + 1] = k
      end
    end
    if #common > 0 then
      lanes[1] = { DEFAULT_LEVEL, common }
    end
    for _, level in ipairs(storedLevels()) do
      local part = redis.call('ZRANGEBYSCORE', levelKey(level), '-inf', upTo, 'WITHSCORES', 'LIMIT', 0, limit)
      if #part > 0 then
        local lane = { level, {} }
        for i = 1, #part, 2 do
          ids[#ids + 1] = part[i]
          due[2 * #ids - 1] = part[i]
          due[2 * #ids] = part[i + 1]
          levelAt[#ids] = level
          lane[2][#lane[2] + 1] = #ids
        end
        lanes[#lanes + 1] = lane
      end
    end
    table.sort(lanes, function(a, b)
      return a[1] > b[1]
    end)
    local takes = shareAmongLevels(lanes, math.min(room, limit), strict, seed)
    local picked, spare = {}, {}
    for i, lane in ipairs(lanes) do
      for j, k in ipairs(lane[2]) do
        if j <= takes[i] then
          picked[#picked + 1] = k
        elseif #picked + #spare < limit then
          spare[#spare + 1] = k
        end
      end
    end
    return picked, spare
  end

  return { groupWeight = groupWeight, groupPick = groupPick, groupsServed = groupsServed,
    priorityShare = priorityShare }
end

-- The earliest due time among the levels' sets, or nil (none, or a topic that never stored a priority).
local function earliestLevel()
  local keys = {}
  for _, level in ipairs(storedLevels()) do
    keys[#keys + 1] = levelKey(level)
  end
  return earliestIn(keys)
end

-- @section buckets -----------------------------------------------------------------------------------------------

-- The bucket count, read before anything is written: if it is unreadable no envelope can be found, so the script
-- stops with an error and changes nothing. And the largest power of two not above it.
local bucketCount = nil
local bucketLow = 1
do
  local raw
  if metaAlso then
    local values = redis.call('HMGET', META, 'buckets', unpack(metaAlso))
    for i, field in ipairs(metaAlso) do
      metaRead[field] = values[i + 1]
    end
    raw = values[1]
  else
    raw = redis.call('HGET', META, 'buckets')
  end
  bucketCount = count(raw)
  if bucketCount == nil then
    bucketCount = 1
  elseif not bucketCount or bucketCount < 2 or bucketCount > 16777216 then
    error({ err = 'delayqueue: corrupt bucket count ' .. tostring(raw) .. ' in ' .. META })
  end
  while bucketLow * 2 <= bucketCount do
    bucketLow = bucketLow * 2
  end
end

-- The bucket of an id's hash (bucketOf), and of an id with its hash (bodyOf). Linear hashing: buckets below the split
-- pointer (count - low) have been split already and use one more bit of the hash. schedule-plain.lua (messages without
-- a group or a priority, without this prelude) places ids (with the hashes its client computed, BucketHash.java) and
-- splits buckets itself: a change to either here is made there too.
local bodyKeys = {}
local function bucketOf(h)
  local index = h % bucketLow
  if index < bucketCount - bucketLow then
    index = h % (bucketLow * 2)
  end
  -- a claim or an acknowledgement looks up a bucket per message: each key name is built once per call
  local key = bodyKeys[index]
  if not key then
    -- '%d': Lua's own number to text goes through the floating-point printer
    key = string.format('%sbody:%d', BASE, index)
    bodyKeys[index] = key
  end
  return key
end

local function bodyOf(id)
  local h = tonumber(string.sub(redis.sha1hex(id), 1, 8), 16)
  return bucketOf(h), h
end

-- Growing and shrinking the buckets: built only by the calls that need it (every call of a script runs its whole
-- text, and defining functions costs time).
local function resizing()
  local resize = {}

  -- as bodyOf names them
  local function bucketKey(index)
    return string.format('%sbody:%d', BASE, index)
  end

  local function setCount(n)
    bucketCount = n
    bucketLow = 1
    while bucketLow * 2 <= n do
      bucketLow = bucketLow * 2
    end
    if n == 1 then
      redis.call('HDEL', META, 'buckets')
    else
      redis.call('HSET', META, 'buckets', n)
    end
  end

  -- A restricted Redis user given the rule of 0.2, which lacks +hlen (docs/reference/security.md), counts the sets as 0.2
  -- did instead (those of groups and levels, new in 0.3, left out), and Redis logs each refusal: add +hlen.
  local function counted()
    return redis.call('ZCARD', PENDING) + redis.call('ZCARD', BASE .. 'leased') + redis.call('ZCARD', BASE .. 'buried')
  end

  -- How many messages the topic stores, estimated from its buckets: every message has its envelope in one, whichever
  -- set it waits in (pending, a priority level's, a group's) and whether it is leased or dead, so the buckets count
  -- them all where counting the sets would cost a command per group. Ids spread evenly over the hashes, so a bucket's
  -- entries times the share of the hashes it holds estimate them all: a bucket split in this round (below the split
  -- pointer, or at or above bucketLow) holds the ids of one 2 * bucketLow-th, the others one bucketLow-th. Two buckets
  -- picked by the Redis clock's microseconds, not the one at the split pointer: splitting stops when the estimate
  -- falls to the threshold, so the bucket it stops at holds fewer than most, and estimating from that one bucket again
  -- kept the buckets lagging ever further behind a growing topic (twice the fill at 200,000 messages, simulated).
  -- Three commands. The estimate is noisy and a split is not undone, so the topic would end up split by its highest
  -- estimates: grow splits only past a quarter more than the fill (see grow).
  local function estimate()
    local t = redis.call('TIME')
    local r = tonumber(t[2]) + (tonumber(t[1]) % 1000) * 1000000
    local total = 0
    for _, j in ipairs({ r % bucketCount, math.floor(r / bucketCount) % bucketCount }) do
      local n = redis.pcall('HLEN', bucketKey(j))
      if type(n) == 'table' then
        return counted()
      end
      local split = j < bucketCount - bucketLow or j >= bucketLow
      total = total + n * (split and 2 * bucketLow or bucketLow)
    end
    return total / 2
  end

  -- The same from the two buckets the next merge joins, the last and the one it was split from, which together hold
  -- the ids of one 'half'-th of the hashes (half: bucketLow, or half of it when the count is a power of two): two
  -- commands, and twice the entries of one bucket, so that a bucket that happens to hold few does not merge a topic
  -- that is not shrinking.
  local function estimateForMerge()
    local half = (bucketCount > bucketLow) and bucketLow or bucketLow / 2
    local last = bucketCount - 1
    local a = redis.pcall('HLEN', bucketKey(last))
    if type(a) == 'table' then
      return counted()
    end
    return (a + redis.call('HLEN', bucketKey(last - half))) * half
  end

  -- Moves the entries of the bucket at the split pointer whose hash has the next bit set to their new bucket.
  local function split()
    local low = bucketLow
    local from = bucketCount - low
    local source = bucketKey(from)
    local entries = redis.call('HGETALL', source)
    local keep, move, gone = {}, {}, {}
    for i = 1, #entries, 2 do
      if tonumber(string.sub(redis.sha1hex(entries[i]), 1, 8), 16) % (low * 2) == from then
        keep[#keep + 1] = entries[i]
        keep[#keep + 1] = entries[i + 1]
      else
        move[#move + 1] = entries[i]
        move[#move + 1] = entries[i + 1]
        gone[#gone + 1] = entries[i]
      end
    end
    if #move > 0 then
      -- the target should not exist; if it does, its entries stay
      each('HSET', bucketKey(from + low), move)
      if #entries > 256 then
        -- grown past listpack size: written anew, compact again
        redis.call('DEL', source)
        each('HSET', source, keep)
      else
        each('HDEL', source, gone)
      end
    end
    setCount(bucketCount + 1)
  end

  -- Moves the entries of the last bucket back into the bucket it was split from.
  local function merge()
    local n = bucketCount
    local source = bucketKey(n - 1)
    local entries = redis.call('HGETALL', source)
    setCount(n - 1)
    if #entries > 0 then
      each('HSET', bucketKey(n - 1 - bucketLow), entries)
      redis.call('DEL', source)
    end
  end

  -- Splits buckets while the topic holds (or, with 'extra' more, will hold) over BUCKET_FILL messages per bucket (by
  -- an estimate a quarter over it, see estimate), at most as many per call as the call's own messages need, and two
  -- more (a call without 'extra' stands for the sixteen messages that sample the size once): a split costs about a
  -- tenth of a millisecond, and a noisy estimate asked for up to 64 at once, so calls of 250 messages that grew
  -- held Redis for 16 to 18 ms at a million waiting (docs/benchmarks-journal.md). The buckets still keep up: a call
  -- may split for more messages than it stores, so one that estimated low is caught up by the next.
  function resize.grow(extra)
    local total = estimate() + (extra or 0)
    local most = math.ceil(math.max(extra or 0, 16) / BUCKET_FILL) + 2
    local splits = 0
    while splits < most and total > bucketCount * BUCKET_FILL * 1.25 do
      split()
      splits = splits + 1
    end
  end

  -- Merges at most a few buckets while the topic holds under a quarter of BUCKET_FILL per bucket.
  function resize.shrink()
    local merges = 0
    while merges < 16 and bucketCount > 1 and estimateForMerge() * 4 < bucketCount * BUCKET_FILL do
      merge()
      merges = merges + 1
    end
  end

  return resize
end

-- @section leases ------------------------------------------------------------------------------------------------

local LEASED = BASE .. 'leased'
local LEASE = BASE .. 'lease'

-- Redis keeps a small hash or sorted set (up to 128 entries of up to 64 bytes, by default) as a listpack, which every
-- lookup, insert and removal scans: a claim or an acknowledgement of a hundred leases would scan the others' entries
-- for each. While any lease is held, 'leased' and 'lease' also hold this anchor, longer than a listpack entry may be
-- (and with spaces, so no message id can equal it), which keeps them in their hashed encodings: constant time per
-- lease. Its score is after any lease deadline; it goes with the last lease, so a topic that holds no lease has no
-- lease keys.
local ANCHOR = '  delayqueue lease anchor: keeps this key in its hashed encoding, see the prelude of the scripts  '
local ANCHOR_SCORE = '9007199254740992'

-- How many messages are leased (the anchor not counted).
local function leaseCount()
  local n = redis.call('ZCARD', LEASED)
  if n > 0 and redis.call('ZSCORE', LEASED, ANCHOR) then
    n = n - 1
  end
  return n
end

-- After leases ended: drops the anchor if no lease is left.
local function leasesEnded()
  if redis.call('ZCARD', LEASED) == 1 and redis.call('ZREM', LEASED, ANCHOR) == 1 then
    redis.call('HDEL', LEASE, ANCHOR)
  end
end

-- The earliest lease deadline (ms), or nil if no lease is held; drops the anchor if it is left alone (it sorts after
-- every lease, so first means alone). One command, where leasesEnded and a read of the deadline would take two.
local function earliestLeaseEnd()
  local first = redis.call('ZRANGE', LEASED, '0', '0', 'WITHSCORES')
  if first[1] == ANCHOR then
    redis.call('ZREM', LEASED, ANCHOR)
    redis.call('HDEL', LEASE, ANCHOR)
    return nil
  end
  return tonumber(first[2])
end

-- A lease record read from Redis: token, due score (text), attempt (0: not started), the group of a grouped
-- message (nil if none: see the groups section) and the level of a message of a priority other than the default
-- ('/<level>' after the attempt; nil if none: see the priorities section); nil if none or unreadable.
local function parseLease(raw)
  if not raw then
    return nil
  end
  local token, due, attempt, rest = string.match(raw, '^(%d+):([%-%d%.e+]+):(%d+)(.*)$')
  local d = tonumber(due)
  if not token or not d or d ~= d or d == math.huge or d == -math.huge then
    -- a due time Redis could not take as a score is unreadable too
    return nil
  end
  local level = nil
  if string.sub(rest, 1, 1) == '/' then
    level = tonumber(string.sub(rest, 2, 2))
    rest = string.sub(rest, 3)
    if not level then
      return nil
    end
  end
  local group = nil
  if rest ~= '' then
    group = string.match(rest, '^:(.+)$')
    if not group then
      return nil
    end
  end
  return token, due, tonumber(attempt), group, level
end

-- The group a lease record names, or nil, found without parsing the rest (an acknowledgement needs no more of it):
-- after the token's prefix of 'from' characters come the due time and ':', then the attempt, a level's '/<digit>'
-- perhaps, and ':<group>' for a grouped message. Neither the due time nor the attempt holds a ':'. Two plain finds.
local function recordGroup(record, from)
  local due = string.find(record, ':', from + 1, true)
  local at = due and string.find(record, ':', due + 1, true)
  if at and at < #record then
    return string.sub(record, at + 1)
  end
  return nil
end

-- The lease of an id (see parseLease).
local function leaseOf(id)
  return parseLease(redis.call('HGET', LEASE, id))
end

-- The ids in ARGV[from], ARGV[from + 2], ... ARGV[to - 1] whose token (the argument after each id) is their current
-- lease's, each once, with their leases read in one call: a list of {id, token, due, attempt, group, level}.
local function currentLeases(from, to)
  local ids = {}
  for i = from, to, 2 do
    ids[#ids + 1] = ARGV[i]
  end
  local raw = hmget(LEASE, ids)
  local current, seen = {}, {}
  for k, id in ipairs(ids) do
    local token, due, attempt, group, level = parseLease(raw[k])
    if token ~= nil and token == ARGV[from + 2 * k - 1] and not seen[id] then
      seen[id] = true
      current[#current + 1] = { id, token, due, attempt, group, level }
    end
  end
  return current
end

-- Puts leased messages back in pending, each at its score ('scores': score, id, ...), and ends their leases, uncounted
-- (a lone anchor left behind is the caller's: see leasesEnded). 'groups' (optional: id -> group) names the grouped
-- ones, which go back to their groups' sets instead (see the groups section); 'levels' (optional: id -> level) those
-- of a priority other than the default, which go back to their levels' sets (see the priorities section), or, for a
-- grouped one, to its group's set of its level. Returns how many of each group went back (group -> count).
local function unlease(ids, scores, groups, levels)
  local ended = {}
  if groups and next(groups) ~= nil then
    local common, byGroup = {}, {}
    for i = 1, #scores, 2 do
      local id = scores[i + 1]
      local group = groups[id]
      if group then
        local sets = byGroup[group]
        if not sets then
          sets = {}
          byGroup[group] = sets
        end
        local level = (levels and levels[id]) or GROUP_DEFAULT_LEVEL
        local list = sets[level]
        if not list then
          list = {}
          sets[level] = list
        end
        list[#list + 1] = scores[i]
        list[#list + 1] = id
        noteGroup(ended, group)
      else
        common[#common + 1] = scores[i]
        common[#common + 1] = id
      end
    end
    for group, sets in pairs(byGroup) do
      local earliestDue = nil
      local raw = nil
      for level, list in pairs(sets) do
        if level ~= GROUP_DEFAULT_LEVEL then
          -- priorities within a group: its level listed before its set gets the message (one read per group)
          raw = raw or groupLevelsRead(group) or ''
          groupLevelStored(group, level, raw)
          if not string.find(raw, tostring(level), 1, true) then
            raw = raw .. level
          end
        end
        each('ZADD', groupLevelKey(group, level), list)
        for i = 1, #list, 2 do
          if earliestDue == nil or tonumber(list[i]) < earliestDue then
            earliestDue = tonumber(list[i])
          end
        end
      end
      groupWaits(group, earliestDue)
    end
    scores = common
    groupLeasesEnded(ended)
  end
  scores = levelsWait(scores, levels)
  each('ZADD', PENDING, scores)
  each('ZREM', LEASED, ids)
  each('HDEL', LEASE, ids)
  return ended
end

-- After leased messages went back to pending (handed back, or a claim whose reply never came undone), the earliest
-- of them due at 'due' (a score): wakes the consumers, at once if it is due now ('0'), else at its due time as a
-- schedule does (messages leased ahead of their due time by a claim's lookahead go back before they are due), so that
-- nobody claims for messages not yet due. Skipped if 'woken' (slotsFreed woke them already).
local function wakeForHandedBack(due, nowUs, woken)
  if not woken then
    redis.call('PUBLISH', WAKE, delayTo(due, nowUs))
  end
end

local function endLease(id)
  redis.call('ZREM', LEASED, id)
  redis.call('HDEL', LEASE, id)
  leasesEnded()
end

-- @section dead --------------------------------------------------------------------------------------------------

local TRIES = BASE .. 'tries'
local SUSPECT = BASE .. 'suspect'
local BURIED = BASE .. 'buried'
local ERROR = BASE .. 'error'
-- id -> '<deadline ms>:<d|x>' for a message that must not be delivered after a deadline: dead-lettered (d) or
-- dropped (x) instead
local EXPIRY = BASE .. 'expiry'

-- Whether this call found none of tries, error, suspect and expiry (acknowledge's EXISTS) and wrote none of them
-- since: no message of the topic has an attempt count, an error, a suspect mark or an expiry deadline, so a claim
-- reads neither counts nor suspects (see leaseDue). What writes a count or a mark sets it back to false.
local noMarks = false

-- Deletes what the topic holds for an id besides its place in pending, leased or buried.
local function forget(id)
  redis.call('SREM', SUSPECT, id)
  redis.call('HDEL', bodyOf(id), id)
  redis.call('HDEL', TRIES, id)
  redis.call('HDEL', ERROR, id)
  redis.call('HDEL', LEASE, id)
  redis.call('HDEL', EXPIRY, id)
end

-- Deletes delivered messages whose lease presented is their current one: ids, tokens and the ids' bucket hashes in
-- ARGV[from..to] (id, token, hash, ...: the hash as eight hex digits, computed by the client as BucketHash.java does,
-- so that Redis need not compute a SHA-1 per message; one that does not find the envelope, a wrong one included, is
-- followed by the id's own bucket, so a client's hash is never trusted). A few commands for the whole batch, one per
-- message (its envelope's bucket). Returns how many. With 'anchorLater' the caller drops a lone anchor itself once it
-- is done (a claim may lease again at once, and would put it back).
local function acknowledge(from, to, anchorLater)
  local ids, n = {}, 0
  for i = from, to, 3 do
    n = n + 1
    ids[n] = ARGV[i]
  end
  local raw = hmget(LEASE, ids)
  -- a lease is current if its record starts with the token presented (the token's own digits, then ':'): an
  -- acknowledgement needs no more of the record, and a claim's acknowledgements mostly share one token (a record
  -- whose due time or attempt is unreadable is still acknowledged by its token: its handler finished under it)
  local done, seen, prefixes = {}, {}, {}
  local nDone = 0
  -- groups: the groups of the leases ended, read only in a topic that ever stored a grouped message
  local ended = grouped() and {} or nil
  for k = 1, n do
    local id = ids[k]
    local at = from + 3 * k - 2
    local token = ARGV[at]
    local prefix = prefixes[token]
    if not prefix then
      prefix = token .. ':'
      prefixes[token] = prefix
    end
    local record = raw[k]
    if record and string.sub(record, 1, #prefix) == prefix and not seen[id] then
      seen[id] = true
      nDone = nDone + 1
      done[nDone] = id
      local h = tonumber(ARGV[at + 1], 16)
      if not (h and redis.call('HDEL', bucketOf(h), id) == 1) then
        redis.call('HDEL', (bodyOf(id)), id)
      end
      if ended then
        noteGroup(ended, recordGroup(record, #prefix))
      end
    end
  end
  if #done == 0 then
    return 0
  end
  ids = done
  each('ZREM', LEASED, ids)
  each('HDEL', LEASE, ids)
  if not anchorLater then
    leasesEnded()
  end
  -- only a message that failed or was a suspect has a count, an error or a mark stored: none if the keys are absent
  if redis.call('EXISTS', TRIES, ERROR, SUSPECT, EXPIRY) > 0 then
    each('HDEL', TRIES, ids)
    each('HDEL', ERROR, ids)
    each('HDEL', EXPIRY, ids)
    -- a suspect whose handler finished did not kill its consumer
    each('SREM', SUSPECT, ids)
  else
    noMarks = true
  end
  if ended then
    groupLeasesEnded(ended)
  end
  slotsFreed()
  return #done
end

-- Deletes dead letters older than maxAge or beyond maxCount, oldest first, at most a hundred of each per call.
local function trimDead(now, maxCount, maxAge)
  local old = redis.call('ZRANGEBYSCORE', BURIED, '-inf', '(' .. int(now - maxAge), 'LIMIT', 0, 100)
  for _, id in ipairs(old) do
    redis.call('ZREM', BURIED, id)
    forget(id)
  end
  local excess = redis.call('ZCARD', BURIED) - maxCount
  if excess > 0 then
    for _, id in ipairs(redis.call('ZRANGE', BURIED, 0, math.min(excess, 100) - 1)) do
      redis.call('ZREM', BURIED, id)
      forget(id)
    end
  end
end

-- Moves an id to the dead letters with a reason (kept if a reason is recorded already and keepError is set).
local function bury(id, now, reason, keepError)
  noMarks = false
  endLease(id)
  redis.call('SREM', SUSPECT, id)
  redis.call('ZREM', PENDING, id)
  redis.call('ZADD', BURIED, int(now), id)
  if not keepError or redis.call('HEXISTS', ERROR, id) == 0 then
    redis.call('HSET', ERROR, id, reason)
  end
end

-- The attempt number of a handler about to start, from the count of starts stored for the message (absent:
-- none), or nil and a reason to bury the message instead.
local function charge(tries, maxAttempts)
  local n = count(tries)
  if n == false then
    return nil, 'Corrupt attempt count ' .. tostring(tries) .. ' stored for this message'
  end
  local attempt = (n or 0) + 1
  if attempt > maxAttempts then
    return nil, 'Lease expired: the consumer stopped without finishing attempt ' .. (attempt - 1)
  end
  return attempt
end

-- Wakes consumers if the message with this id is now the earliest of the topic (of 'key' if given: a priority
-- level's set).
local function wakeIfHead(id, due, nowUs, key)
  local head = redis.call('ZRANGE', key or PENDING, '0', '0')
  if head[1] == id then
    redis.call('PUBLISH', WAKE, delayTo(due, nowUs))
  end
end

-- @section claims -----------------------------------------------------------------------------------------------

-- When a claim that leased messages last did the topic's upkeep (Redis ms; 0: never), as leaseDue found it in
-- meta (read with the bucket count); nil if leaseDue did not run.
local lastUpkeep = nil

-- Leases up to 'limit' due messages, earliest first, under one new token. Batched messages are leased without
-- counting an attempt (their lease record says attempt 0): a consumer holds them in memory and runs them as handlers
-- come free; a failure is counted by the call that reports it (fail.lua), and a lease that runs out without an
-- outcome makes the message a suspect, uncharged, since nobody knows whether its handler started. A suspect (see the
-- 'suspect' key) is leased only if 'suspects' is 1, and then at most one and nothing beside it, with its attempt
-- counted in its lease record before its handler starts (the consumer runs it alone), so that a message that kills its
-- JVM uses up its own attempts and nobody else's, and leaves no other lease behind to make a suspect of. A message whose attempts are used up, or that has no stored envelope, goes to the dead
-- letters instead. Per message one command (its envelope's bucket); the rest once for the whole claim.
-- A message past its expiry deadline is not leased: it goes to the dead letters or is dropped, as it says, and counts
-- in out[6].
-- Batched messages are leased up to the score 'upTo' (the claim's lookahead past 'nowScore': the consumer holds them
-- until their due time), a suspect only once due ('nowScore'), since its attempt is counted as it is leased.
-- Sets out[4] to the id of the suspect leased (or leaves it ''), out[5] to the token, appends id, due score, attempt,
-- envelope and stored expiry ('' if none) per leased message to 'out'; returns how many it buried and the due time of the earliest due suspect
-- it left (one it may not lease), or nil.
local function leaseDue(limit, now, nowScore, upTo, leaseMillis, maxAttempts, deadMaxCount, deadMaxAge, suspects, out)
  -- (none to read if the acknowledgements found no counts and no marks: the usual claim of a drain)
  local suspectCount = noMarks and 0 or redis.call('SCARD', SUSPECT)
  -- groups: the groups whose turn has come share the claim with the messages without a group, which count as one
  -- more group (nil: a topic that never stored a grouped message, which takes up to the limit from pending as ever)
  -- (first as many as could take the whole claim, a turn's worth each: see groupPick, which reads more if they leave
  -- room)
  local quantum = groupQuantum(limit)
  local asked = math.max(1, math.ceil(limit / quantum))
  local turns = groupTurns(asked, upTo)
  local common = limit
  -- (the sharing among groups and levels, built only if the topic has either)
  local shares = nil
  if turns and #turns > 0 then
    shares = sharing()
  end
  -- (read up to the limit all the same: what the groups leave unused goes to them, with no command more)
  local due = redis.call('ZRANGEBYSCORE', PENDING, '-inf', upTo, 'WITHSCORES', 'LIMIT', 0, limit + suspectCount)
  -- (priorities: the levels' sets may hold due messages while pending holds none)
  if #due == 0 and not (turns and #turns > 0) and not metaRead.prio then
    return 0, nil
  end
  if shares then
    -- the messages without a group count as one more group of weight 1 among the groups whose turn has come: those
    -- read by their weights, and, when more may have come than were read, the others at 1 each (one ZCOUNT, only
    -- then and with messages without a group to lease)
    local weight = shares.groupWeight(turns)
    if #turns == asked and (#due > 0 or metaRead.prio) then
      weight = weight + redis.call('ZCOUNT', GROUPS, '-inf', upTo) - #turns
    end
    common = math.max(1, math.floor(limit / (weight + 1)))
  end
  -- (the loops over a claim's messages count their lists themselves: a # per message is a search each time)
  local ids, nIds = {}, 0
  local flags = {}
  for i = 1, #due, 2 do
    nIds = nIds + 1
    ids[nIds] = due[i]
  end
  if suspectCount > 0 then
    flags = hmget(SUSPECT, ids, 'SMISMEMBER')
  end
  -- the messages to lease: a due suspect alone, if one may be leased (a claim that leases it leases nothing else, so
  -- that if it kills its consumer, no other message is left leased by that consumer to become a suspect in turn);
  -- else the batched messages up to the limit, suspects passed over
  local chosen, dueOf = {}, {}
  local spare = {}
  local leftDue = nil
  local suspectLeased = nil
  if suspects == 1 and limit >= 1 then
    -- of the due suspects, the one charged for the fewest runs first (the earliest due among them): a message that
    -- killed its consumer as a suspect has been charged for it, so the neighbours that merely ran beside it (never
    -- charged) are cleared before it runs, and kills, again
    local dueSuspects, at = {}, {}
    for k, id in ipairs(ids) do
      if flags[k] == 1 and tonumber(due[2 * k]) <= tonumber(nowScore) then
        dueSuspects[#dueSuspects + 1] = id
        at[#dueSuspects] = k
      end
    end
    if #dueSuspects > 0 then
      local charged = hmget(TRIES, dueSuspects)
      local best, fewest = 1, nil
      for i = 1, #dueSuspects do
        local n = count(charged[i]) or 0
        if fewest == nil or n < fewest then
          best, fewest = i, n
        end
      end
      -- every due suspect has been charged for a run before (it may well be a message that kills its consumer): such
      -- suspects run one at a time across every consumer, so that they take down one consumer at a time while the
      -- others go on with the rest; the one running is named in meta ('srun') while it is leased
      local running = (fewest > 0) and redis.call('HGET', META, 'srun') or nil
      if not (running and redis.call('ZSCORE', LEASED, running)) then
        chosen[1] = dueSuspects[best]
        dueOf[1] = due[2 * at[best]]
        suspectLeased = chosen[1]
        if fewest > 0 then
          redis.call('HSET', META, 'srun', suspectLeased)
        end
      end
    end
  end
  local nChosen, nSpare = #chosen, 0
  for k = 1, nIds do
    local id = ids[k]
    local suspect = flags[k] == 1
    if suspectLeased then
      if suspect and id ~= suspectLeased and leftDue == nil and tonumber(due[2 * k]) <= tonumber(nowScore) then
        leftDue = due[2 * k]
      end
    elseif suspect and tonumber(due[2 * k]) > tonumber(nowScore) then
      -- not due yet: a suspect is leased only once due
    elseif not suspect and nChosen < common then
      nChosen = nChosen + 1
      chosen[nChosen] = id
      dueOf[nChosen] = due[2 * k]
    elseif not suspect and nChosen + nSpare < limit then
      -- groups: beyond the share of the messages without a group, for what the groups leave unused
      nSpare = nSpare + 1
      spare[nSpare] = k
    elseif suspect and leftDue == nil then
      leftDue = due[2 * k]
    end
  end
  -- priorities: the share of the messages without a group goes to the levels with due messages, higher first (none
  -- read for a topic that never stored a priority); a suspect leased runs alone
  local levelAt, levelOf = nil, {}
  if metaRead.prio and not suspectLeased then
    levelAt = {}
    local picked
    shares = shares or sharing()
    picked, spare = shares.priorityShare(ids, due, flags, common, limit, upTo, levelAt,
      controls ~= nil and controls[9] == 'strict', tonumber(metaRead.token) or 0)
    chosen, dueOf = {}, {}
    for _, k in ipairs(picked) do
      chosen[#chosen + 1] = ids[k]
      dueOf[#chosen] = due[2 * k]
      levelOf[#chosen] = levelAt[k]
    end
  end
  -- groups: then the groups' shares of what is left, unless a suspect is leased (it runs alone)
  local groupOf, picks, caps, flight, credits = {}, nil, nil, nil, nil
  -- (priorities within a group: the level of a message of a group that has levels)
  local groupLevelOf = {}
  if turns and #turns > 0 and not suspectLeased and #chosen < limit then
    -- (group rate limits count on the claim's Redis time)
    groupRateNow = now
    picks, caps, flight, credits = shares.groupPick(turns, limit - #chosen, upTo, chosen, dueOf, groupOf, groupLevelOf,
      quantum, #turns == asked)
  end
  if not suspectLeased then
    for _, k in ipairs(spare) do
      if #chosen >= limit then
        break
      end
      chosen[#chosen + 1] = ids[k]
      dueOf[#chosen] = due[2 * k]
      -- priorities: a spare of a level's set
      levelOf[#chosen] = levelAt and levelAt[k]
    end
  end
  local tries = noMarks and {} or hmget(TRIES, chosen)
  local expiries = {}
  -- only a topic that ever stored a message with an expiry has any: meta says so, read with the bucket count
  if metaRead.expiry then
    expiries = hmget(EXPIRY, chosen)
  end
  lastUpkeep = tonumber(metaRead.upkeep) or 0
  local token = count(metaRead.token)
  if token == false then
    -- unreadable: continue above any token a counter could have handed out
    token = now * 1000
  end
  token = int((token or 0) + 1)
  local leaseUntil = int(now + leaseMillis)
  local prefix = token .. ':'
  local leased, scores, records = {}, {}, {}
  local leasedGrouped = {}
  local leasedGroupLevels = nil
  local leasedLevels = nil
  local n, o = 0, #out
  local nLeased = 0
  local buried = 0
  for k = 1, #chosen do
    local id = chosen[k]
    local envelope = redis.call('HGET', bodyOf(id), id)
    local attempt, reason = nil, 'No stored envelope for this message'
    local deadline, onExpiry, expired = nil, nil, false
    if expiries[k] then
      deadline, onExpiry = string.match(expiries[k], '^(%d+):([dx])$')
      deadline = tonumber(deadline)
    end
    local group = groupOf[k]
    if envelope and deadline and deadline <= math.max(now, tonumber(dueOf[k])) then
      -- past its deadline: never delivered
      expired = true
      out[6] = out[6] + 1
      if onExpiry == 'x' then
        redis.call('ZREM', group and groupLevelKey(group, groupLevelOf[k]) or levelKey(levelOf[k]), id)
        forget(id)
        envelope = nil
        reason = nil
      else
        reason = 'Expired: not delivered by its deadline (' .. int(deadline) .. ' ms since the epoch)'
      end
    elseif envelope then
      if id == suspectLeased then
        attempt, reason = charge(tries[k], maxAttempts)
      else
        -- (no count stored: the usual message, and every one of a claim that read none)
        local n = nil
        if tries[k] ~= nil then
          n = count(tries[k])
        end
        if n == false then
          reason = 'Corrupt attempt count ' .. tostring(tries[k]) .. ' stored for this message'
        elseif (n or 0) >= maxAttempts then
          reason = 'Attempts used up: ' .. n .. ' of ' .. maxAttempts
        else
          attempt, reason = (n or 0) + 1, nil
        end
      end
    end
    if envelope == nil then
      -- dropped above
    elseif reason then
      -- shown in the dead letters with the reason, never dropped silently
      bury(id, now, reason, envelope ~= false and not expired)
      if group then
        redis.call('ZREM', groupLevelKey(group, groupLevelOf[k]), id)
      elseif levelOf[k] then
        redis.call('ZREM', levelKey(levelOf[k]), id)
      end
      buried = buried + 1
      if id == suspectLeased then
        suspectLeased = nil
      end
    else
      n = n + 1
      scores[2 * n - 1] = leaseUntil
      scores[2 * n] = id
      records[2 * n - 1] = id
      -- a suspect's attempt is counted now (the lease record carries it); a batched one's when it fails
      records[2 * n] = prefix .. dueOf[k] .. ((id == suspectLeased) and (':' .. attempt) or ':0')
      if levelOf[k] then
        -- priorities: its record names its level, and it leaves its level's set (see levelsServed)
        records[2 * n] = records[2 * n] .. '/' .. levelOf[k]
        leasedLevels = leasedLevels or {}
        local list = leasedLevels[levelOf[k]]
        if not list then
          list = {}
          leasedLevels[levelOf[k]] = list
        end
        list[#list + 1] = id
      elseif group then
        -- groups: a grouped message leaves its group's set (see groupsServed), and its record names the group
        local level = groupLevelOf[k]
        if level and level ~= DEFAULT_LEVEL then
          -- priorities within a group: and its level, before the group, as for a message without a group
          records[2 * n] = records[2 * n] .. '/' .. level
        end
        records[2 * n] = records[2 * n] .. ':' .. group
        local list = leasedGrouped[group]
        if not list then
          list = {}
          leasedGrouped[group] = list
        end
        list[#list + 1] = id
        if level then
          -- (a group that has levels: each leaves its own set)
          leasedGroupLevels = leasedGroupLevels or {}
          local byLevel = leasedGroupLevels[group] or {}
          leasedGroupLevels[group] = byLevel
          byLevel[level] = byLevel[level] or {}
          byLevel[level][#byLevel[level] + 1] = id
        end
      else
        nLeased = nLeased + 1
        leased[nLeased] = id
      end
      out[o + 1] = id
      out[o + 2] = dueOf[k]
      out[o + 3] = attempt
      out[o + 4] = envelope
      out[o + 5] = expiries[k] or ''
      o = o + 5
    end
  end
  -- added where they go before they leave where they were: a failure part way leaves a copy, never a loss; the
  -- anchor first, so that the keys take their hashed encodings before the leases go in
  if n > 0 then
    table.insert(scores, 1, ANCHOR)
    table.insert(scores, 1, ANCHOR_SCORE)
    table.insert(records, 1, ANCHOR)
    table.insert(records, 1, ANCHOR)
  end
  each('ZADD', LEASED, scores)
  each('HSET', LEASE, records)
  each('ZREM', PENDING, leased)
  if leasedLevels then
    levelsServed(leasedLevels)
  end
  if picks then
    -- groups: the buried and the dropped left their sets above
    shares.groupsServed(picks, caps, flight, leasedGrouped, tonumber(nowScore), credits, leasedGroupLevels)
  end
  if suspectLeased then
    -- it stays a suspect until its handler's outcome (ack, retry, dead letter) is known: handed back, or its
    -- lease running out again, it is still one
    out[4] = suspectLeased
  end
  if n > 0 then
    redis.call('HSET', META, 'token', token)
    out[5] = token
  end
  if buried > 0 then
    trimDead(now, deadMaxCount, deadMaxAge)
  end
  return buried, leftDue
end

-- id of a consumer -> '<claim number>:<token>:<lease end ms>' of its last claim that leased messages
local CLAIMS = BASE .. 'claims'

-- Before a consumer's claim numbered 'number' leases: if the consumer's last claim that leased messages has a number
-- after that of the last claim whose reply the consumer received ('received'), that reply never reached it (its
-- connection dropped; or this is that same claim, sent again by the client after a reconnect), and no handler of it
-- will run these messages. They go back to pending at their due time at once, uncharged (a suspect's count, carried by
-- its lease record, is dropped; it stays a suspect), rather than waiting out the lease and then running one at a time
-- as suspects. Returns how many went back, whether this claim is stale (a later claim of the consumer ran already:
-- this one is a copy the client sent again late, so it must lease nothing and leave the later one's record alone),
-- the earliest due score of those that went back (nil if none), and how many of each group went back (group -> count:
-- see groupGiveBack).
local function handBackUnseen(consumer, number, received)
  local record = redis.call('HGET', CLAIMS, consumer)
  if not record then
    return 0, false, nil
  end
  local last, token, ends = string.match(record, '^(%d+):(%d+):(%d+)$')
  last = tonumber(last)
  if last and last > number then
    return 0, true, nil
  end
  if last and last <= received then
    return 0, false, nil
  end
  redis.call('HDEL', CLAIMS, consumer)
  if not last then
    -- unreadable: nothing to go by
    return 0, false, nil
  end
  -- its leases end when the record says (nobody could extend them: nobody has their token), among any others of
  -- the same deadline, told apart by the token
  local candidates = redis.call('ZRANGEBYSCORE', LEASED, ends, ends)
  local leases = hmget(LEASE, candidates)
  local prefix = token .. ':'
  local ids, scores, groups, levels = {}, {}, {}, {}
  local earliestDue = nil
  for k, id in ipairs(candidates) do
    local lease = leases[k]
    if lease and string.sub(lease, 1, #prefix) == prefix then
      local _, due, _, group, level = parseLease(lease)
      if due then
        groups[id] = group
        levels[id] = level
        ids[#ids + 1] = id
        scores[#scores + 1] = due
        scores[#scores + 1] = id
        if earliestDue == nil or tonumber(due) < earliestDue then
          earliestDue = tonumber(due)
        end
      end
    end
  end
  local ended = unlease(ids, scores, groups, levels)
  return #ids, false, earliestDue, ended
end

-- meta's 'claims' when no record is held: after any time a record can end.
local NO_CLAIMS = '9007199254740992'

-- After a claims record was written whose lease ends at 'ends' (ms): keeps meta's 'claims' no later than the earliest
-- lease end among the records. One command, and only if this one ends earlier than meta says: mostly none, since a
-- consumer's records end later and later (a record rewritten or handed back leaves meta early, which costs the
-- upkeep one read of the records too many, never a record kept).
local function claimRecorded(ends)
  local known = tonumber(metaRead.claims)
  if known == nil or ends < known then
    metaRead.claims = int(ends)
    redis.call('HSET', META, 'claims', metaRead.claims)
  end
end

-- Forgets the last claims whose leases have ended (their consumers claim no more, or have claimed nothing since):
-- part of the upkeep. Reads the records only once the earliest lease end among them (meta's 'claims', read with the
-- bucket count) has passed, so that an upkeep with nothing to forget costs no command; then notes the earliest end
-- among those left.
local function forgetClaims(now)
  local known = tonumber(metaRead.claims)
  if known ~= nil and known >= now then
    return
  end
  local all = redis.call('HGETALL', CLAIMS)
  local gone = {}
  local earliestEnd = nil
  for i = 1, #all, 2 do
    local ends = tonumber(string.match(all[i + 1], ':(%d+)$'))
    if not ends or ends < now then
      gone[#gone + 1] = all[i]
    elseif earliestEnd == nil or ends < earliestEnd then
      earliestEnd = ends
    end
  end
  each('HDEL', CLAIMS, gone)
  metaRead.claims = earliestEnd and int(earliestEnd) or NO_CLAIMS
  redis.call('HSET', META, 'claims', metaRead.claims)
end

-- The earliest score in a sorted set (a due time, a lease deadline), or nil if it is empty.
local function earliest(key)
  local first = redis.call('ZRANGE', key, '0', '0', 'WITHSCORES')
  if first[1] == ANCHOR then
    return nil
  end
  return tonumber(first[2])
end

-- The earliest due time in the pending set; if 'left' is set (a claim left a due suspect it could not lease), the
-- suspects are passed over: they wait for a consumer that may lease them and are not due now for this one.
local function earliestBeyond(key, left)
  if left == nil then
    return earliest(key)
  end
  local n = redis.call('SCARD', SUSPECT)
  local first = redis.call('ZRANGE', key, 0, n, 'WITHSCORES')
  if #first == 0 then
    return nil
  end
  local ids = {}
  for i = 1, #first, 2 do
    ids[#ids + 1] = first[i]
  end
  local flags = {}
  if n > 0 then
    flags = hmget(SUSPECT, ids, 'SMISMEMBER')
  end
  for k = 1, #ids do
    if flags[k] ~= 1 then
      return tonumber(first[2 * k])
    end
  end
  return nil
end

-- The topic's controls applied to a claim of up to 'limit' messages: none while paused, no more than the cap leaves
-- free, no more than the rate's tokens allow (the bucket refilled on the Redis clock). Returns the limit and what
-- cut it, {paused = true} or {cap = <cap>} and/or {rate = r, burst = b, tokens = t}, or nil for a topic without
-- controls (one command).
local function admit(limit, now)
  local c = controls or readControls()
  if not c[1] and not c[2] and not c[6] then
    return limit, nil
  end
  if c[1] then
    return 0, { paused = true }
  end
  local cut = {}
  if c[6] then
    local cap = tonumber(c[6])
    local free = math.max(0, cap - leaseCount())
    if free < limit then
      limit = free
      cut.cap = cap
    end
  end
  if c[2] then
    local tokens, rate, burst = tokensAt(c, now)
    cut.rate, cut.burst, cut.tokens = rate, burst, tokens
    if tokens < limit then
      limit = math.floor(tokens)
    end
  end
  return limit, cut
end

-- Spends a token per message leased (a topic with a rate limit) and returns the Redis time (ms score) at which the
-- consumer may claim again: when as many tokens as it asked for (at most the burst) have come, so that a fast rate
-- does not make every consumer claim every millisecond; nil if tokens are left now.
local function spend(cut, leased, now, wanted)
  if not cut or not cut.rate then
    return nil
  end
  local tokens = cut.tokens - leased
  redis.call('HSET', CONTROL, 'tokens', tostring(tokens), 'at', int(now))
  if tokens >= 1 then
    return nil
  end
  local target = math.max(1, math.min(wanted, cut.burst))
  return now + math.ceil((target - tokens) * 1000 / cut.rate)
end

-- Whether the cap, reached, left due messages behind: the consumer waits to be woken when a lease ends (and the
-- next lease's end), rather than claiming again.
local function capReached(cut)
  if not cut.cap or leaseCount() < cut.cap then
    return false
  end
  redis.call('HSET', CONTROL, 'refused', '1')
  return true
end

-- @section v1 ----------------------------------------------------------------------------------------------------

-- format 1's keys: read and migrated, never written
local V1_MSGS = BASE .. 'msgs'
local V1_DUE = BASE .. 'due'
local V1_INFLIGHT = BASE .. 'inflight'
local V1_ATTEMPTS = BASE .. 'attempts'
local V1_DEAD = BASE .. 'dead'
local V1_ERRORS = BASE .. 'errors'

-- @section format1 -----------------------------------------------------------------------------------------------

-- Moves one format-1 message (already taken off its format-1 set) into set 'into' at 'score'.
local function adopt(id, score, into)
  -- (it may carry an attempt count or an error over)
  noMarks = false
  local envelope = redis.call('HGET', V1_MSGS, id)
  if envelope and redis.call('HSETNX', bodyOf(id), id, envelope) == 0 then
    -- the id was scheduled in both formats (a 0.1 producer during a rolling upgrade): the format-2 message
    -- keeps the id; the format-1 one is set aside, not lost
    redis.call('HSET', BASE .. 'format1-conflicts', id, envelope)
  elseif envelope then
    redis.call('ZADD', into, math.max(0, tonumber(score) or 0), id)
    local attempts = count(redis.call('HGET', V1_ATTEMPTS, id))
    if attempts and attempts > 0 then
      redis.call('HSET', TRIES, id, attempts)
    end
    local error = redis.call('HGET', V1_ERRORS, id)
    if error then
      redis.call('HSET', ERROR, id, error)
    end
  end
  redis.call('HDEL', V1_MSGS, id)
  redis.call('HDEL', V1_ATTEMPTS, id)
  redis.call('HDEL', V1_ERRORS, id)
  return envelope ~= false
end

-- Adopts the format-1 message with this id if it waits or is dead there (not while a format-1 consumer holds it).
local function adoptOne(id)
  local due = redis.call('ZSCORE', V1_DUE, id)
  if due then
    redis.call('ZREM', V1_DUE, id)
    return adopt(id, due, PENDING)
  end
  local died = redis.call('ZSCORE', V1_DEAD, id)
  if died then
    redis.call('ZREM', V1_DEAD, id)
    return adopt(id, died, BURIED)
  end
  return false
end

-- Adopts up to 'limit' format-1 messages of each kind: waiting, dead, and leased ones whose lease has expired.
-- Returns how many format-1 messages remain (leased ones included).
local function migrate(limit, now)
  if redis.call('EXISTS', V1_DUE, V1_INFLIGHT, V1_DEAD) == 0 then
    return 0
  end
  local waiting = redis.call('ZRANGE', V1_DUE, 0, limit - 1, 'WITHSCORES')
  for i = 1, #waiting, 2 do
    redis.call('ZREM', V1_DUE, waiting[i])
    adopt(waiting[i], waiting[i + 1], PENDING)
  end
  local dead = redis.call('ZRANGE', V1_DEAD, 0, limit - 1, 'WITHSCORES')
  for i = 1, #dead, 2 do
    redis.call('ZREM', V1_DEAD, dead[i])
    adopt(dead[i], dead[i + 1], BURIED)
  end
  local expired = redis.call('ZRANGEBYSCORE', V1_INFLIGHT, '-inf', int(now), 'WITHSCORES', 'LIMIT', 0, limit)
  for i = 1, #expired, 2 do
    redis.call('ZREM', V1_INFLIGHT, expired[i])
    adopt(expired[i], expired[i + 1], PENDING)
  end
  resizing().grow()
  return redis.call('ZCARD', V1_DUE) + redis.call('ZCARD', V1_INFLIGHT) + redis.call('ZCARD', V1_DEAD)
end

-- ----------------------------------------------------------------------------------------------------------------
