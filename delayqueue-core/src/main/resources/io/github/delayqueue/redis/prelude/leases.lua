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
