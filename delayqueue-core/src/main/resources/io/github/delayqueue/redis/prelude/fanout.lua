-- Subscriptions (docs/reference/subscriptions.md): a topic may have named subscriptions, each of which receives every
-- message of the topic once. A message waits in its topic's sets until it falls due, as any other (so a cancel or a
-- replacement before then is one for all, and a waiting message costs the same bytes whatever the number of
-- subscriptions); then a claim of any subscription, or of the topic, moves it into the same sets of every subscription
-- (pending, its priority level's, its group's), where each leases, retries, buries and acknowledges it on its own. Its
-- envelope stays in the topic's buckets, stored once, until the last subscription is done with it (the topic's fan
-- hash counts the subscriptions that still hold it: see dropEnvelope in the dead module). Keys (the topic's):
--   subs  HASH  subscription name -> the Redis time (ms) it was declared: a message fans out to the subscriptions
--               declared when it falls due
-- The topic's meta says 'subs' -> '1' once a subscription was declared: a claim of a topic without it reads none of
-- this. A subscription's keys are <topic's prefix>s:<name>:<part> (see the base module).
local SUBS = TOPIC_BASE .. 'subs'

-- The most messages one call fans out: the claim leases from what it moved and the next one moves more, so that no
-- call holds Redis for long however many fall due at once.
local FAN_OUT_MOST = 512

-- Moves the messages a claim took from the topic's sets ('moves': {key, level, group, ids, scores as score, id, ...})
-- into the same sets of the subscription whose keys start with 'sub', with what the topic held for them ('marks':
-- nil, or {tries, suspect flags, expiries} in the order of 'ids'). A few commands per set and per subscription.
local function fanInto(sub, moves, ids, marks)
  local levels, grouped = '', false
  for _, move in ipairs(moves) do
    local level, group, scores = move[2], move[3], move[5]
    if group then
      -- as groupLevelStored and groupWaits do for the topic's own: the group's levels, and its turn unless it is held
      if level ~= GROUP_DEFAULT_LEVEL then
        local raw = redis.call('HGET', sub .. 'gcontrol', 'l:' .. group) or ''
        if not string.find(raw, tostring(level), 1, true) then
          redis.call('HSET', sub .. 'gcontrol', 'l:' .. group, raw .. level)
        end
      end
      each('ZADD', groupLevelKey(group, level, sub), scores)
      if redis.call('SISMEMBER', sub .. 'gheld', group) == 0 then
        redis.call('ZADD', sub .. 'groups', 'LT', scores[1], group)
      end
      grouped = true
    else
      each('ZADD', levelKey(level, sub), scores)
      if level ~= DEFAULT_LEVEL then
        levels = levels .. level
      end
    end
  end
  local meta = {}
  if grouped then
    meta[#meta + 1] = 'groups'
    meta[#meta + 1] = '1'
  end
  if levels ~= '' then
    local known = redis.call('HGET', sub .. 'meta', 'prio') or ''
    local added = known
    for digit in string.gmatch(levels, '%d') do
      if not string.find(added, digit, 1, true) then
        added = added .. digit
      end
    end
    if added ~= known then
      meta[#meta + 1] = 'prio'
      meta[#meta + 1] = added
    end
  end
  if marks then
    local tries, suspects, expiries = {}, {}, {}
    for k, id in ipairs(ids) do
      if marks[1][k] then
        tries[#tries + 1] = id
        tries[#tries + 1] = marks[1][k]
      end
      if marks[2][k] == 1 then
        suspects[#suspects + 1] = id
      end
      if marks[3][k] then
        expiries[#expiries + 1] = id
        expiries[#expiries + 1] = marks[3][k]
      end
    end
    each('HSET', sub .. 'tries', tries)
    each('SADD', sub .. 'suspect', suspects)
    each('HSET', sub .. 'expiry', expiries)
    if #expiries > 0 then
      meta[#meta + 1] = 'expiry'
      meta[#meta + 1] = '1'
    end
  end
  if #meta > 0 then
    redis.call('HSET', sub .. 'meta', unpack(meta))
  end
  if sub == BASE then
    -- the claiming subscription's own: what this call read of its meta (and found of its marks) is stale now
    for i = 1, #meta, 2 do
      metaRead[meta[i]] = meta[i + 1]
    end
    if marks then
      noMarks = false
    end
  end
end

-- The topic's own leases (from a listener of the topic before its first subscription) that ran out, at most a hundred
-- per call: back to the topic's pending, each a suspect, as a claim of the topic puts them (see claim.lua), so that they
-- fan out; a subscription's claim does it, since the topic's own claims stop once it has subscriptions. Returns the
-- earliest lease end left (a number; nil: none). Two commands when there is none.
local function topicLeasesEnded(now, nowScore, leaseMillis)
  local leased, lease = TOPIC_BASE .. 'leased', TOPIC_BASE .. 'lease'
  local expired = redis.call('ZRANGEBYSCORE', leased, '-inf', int(now), 'LIMIT', 0, 100)
  if #expired > 0 then
    local records = hmget(lease, expired)
    local scores, tries = {}, {}
    for k, id in ipairs(expired) do
      local _, due, attempt = parseLease(records[k])
      local at = due or nowScore
      if attempt and attempt > 0 then
        -- a suspect's run, counted when it was leased: it waits a lease more before it runs again
        tries[#tries + 1] = id
        tries[#tries + 1] = attempt
        at = math.max(at, nowScore + leaseMillis)
      end
      scores[#scores + 1] = at
      scores[#scores + 1] = id
    end
    each('ZADD', TOPIC_BASE .. 'pending', scores)
    each('HSET', TOPIC_BASE .. 'tries', tries)
    each('SADD', TOPIC_BASE .. 'suspect', expired)
    each('ZREM', leased, expired)
    each('HDEL', lease, expired)
  end
  return tonumber(redis.call('ZRANGE', leased, 0, 0, 'WITHSCORES')[2])
end

-- Moves up to FAN_OUT_MOST of the topic's messages due at 'upTo' (a score) or before, from pending, its priority levels'
-- sets and its groups' sets, into the same sets of every subscription declared, with their attempt counts, suspect
-- marks and expiry deadlines; each then counts in the fan hash until every subscription is done with it. Returns the
-- earliest due time left in the topic's sets (a number; nil: none), and whether the subscription whose keys start with
-- BASE is declared (false for a topic's own call).
local function fanOut(upTo)
  local names = redis.call('HKEYS', SUBS)
  local declared = false
  for _, name in ipairs(names) do
    if SUBSCRIBED and TOPIC_BASE .. 's:' .. name .. ':' == BASE then
      declared = true
    end
  end
  local topicMeta = redis.call('HMGET', TOPIC_META, 'prio', 'groups', 'paged')
  local pending = TOPIC_BASE .. 'pending'
  local heads = { pending }
  local moves, room = {}, FAN_OUT_MOST
  -- (a move's set: nil for the pages)
  local function move(key, level, group, due)
    if #due > 0 then
      local ids, scores = {}, {}
      for i = 1, #due, 2 do
        ids[#ids + 1] = due[i]
        scores[#scores + 1] = due[i + 1]
        scores[#scores + 1] = due[i]
      end
      moves[#moves + 1] = { key, level, group, ids, scores }
      room = room - #ids
    end
  end
  local function take(key, level, group)
    if room > 0 and #names > 0 then
      move(key, level, group, redis.call('ZRANGEBYSCORE', key, '-inf', upTo, 'WITHSCORES', 'LIMIT', 0, room))
    end
  end
  take(pending, DEFAULT_LEVEL, nil)
  -- pages (stored format 5): the topic's messages first scheduled wait there; they leave by pagesTake below
  local pageOf = nil
  if (tonumber(topicMeta[3]) or 0) > 0 and room > 0 and #names > 0 then
    pageOf = {}
    move(nil, DEFAULT_LEVEL, nil, pagesDue(upTo, room, pageOf))
  end
  for _, level in ipairs(storedLevels(topicMeta[1] or false)) do
    local key = levelKey(level, TOPIC_BASE)
    heads[#heads + 1] = key
    take(key, level, nil)
  end
  local touched = {}
  if topicMeta[2] then
    local turns = TOPIC_BASE .. 'groups'
    heads[#heads + 1] = turns
    if #names > 0 and room > 0 then
      for _, group in ipairs(redis.call('ZRANGEBYSCORE', turns, '-inf', upTo, 'LIMIT', 0, room)) do
        local raw = redis.call('HGET', TOPIC_BASE .. 'gcontrol', 'l:' .. group)
        touched[#touched + 1] = { group, raw }
        for _, set in ipairs(groupSets(group, raw, TOPIC_BASE)) do
          take(set[2], set[1], group)
        end
      end
    end
  end
  if #moves > 0 then
    local ids = {}
    for _, move in ipairs(moves) do
      for _, id in ipairs(move[4]) do
        ids[#ids + 1] = id
      end
    end
    -- what the topic holds for them besides their place (only a message retried, suspected or given a deadline before
    -- a subscription was declared has any): one command if none
    local marks = nil
    local tries, suspect, expiry, errors = TOPIC_BASE .. 'tries', TOPIC_BASE .. 'suspect', TOPIC_BASE .. 'expiry',
        TOPIC_BASE .. 'error'
    if redis.call('EXISTS', tries, suspect, expiry, errors) > 0 then
      marks = { hmget(tries, ids), hmget(suspect, ids, 'SMISMEMBER'), hmget(expiry, ids) }
    end
    -- added where they go, and counted, before they leave the topic's sets (as a claim leases before it removes): a
    -- call that fails part-way leaves a message in both, never in neither
    for _, name in ipairs(names) do
      fanInto(TOPIC_BASE .. 's:' .. name .. ':', moves, ids, marks)
    end
    local held = {}
    for _, id in ipairs(ids) do
      held[#held + 1] = id
      held[#held + 1] = #names
    end
    each('HSET', FAN, held)
    for _, move in ipairs(moves) do
      if move[1] then
        each('ZREM', move[1], move[4])
      else
        pagesTake(move[4], pageOf)
      end
    end
    if marks then
      each('HDEL', tries, ids)
      each('SREM', suspect, ids)
      each('HDEL', expiry, ids)
      each('HDEL', errors, ids)
    end
    -- a group whose sets emptied loses its turn; the others take the turn of their earliest message
    for _, entry in ipairs(touched) do
      local group, raw = entry[1], entry[2]
      local keys = {}
      for _, set in ipairs(groupSets(group, raw, TOPIC_BASE)) do
        keys[#keys + 1] = set[2]
      end
      local head = earliestIn(keys)
      if head then
        redis.call('ZADD', TOPIC_BASE .. 'groups', head, group)
      else
        redis.call('ZREM', TOPIC_BASE .. 'groups', group)
        if raw then
          redis.call('HDEL', TOPIC_BASE .. 'gcontrol', 'l:' .. group)
        end
      end
    end
  end
  local first = earliestIn(heads)
  if (tonumber(topicMeta[3]) or 0) > 0 then
    local pageFirst = pagesHead()
    if pageFirst and (first == nil or pageFirst < first) then
      first = pageFirst
    end
  end
  return first, declared
end
