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
  -- pages (stored format 5): the messages of a first wait, merged with pending's by due time (none read in a topic
  -- without pages); what is leased, buried or dropped of them leaves its page at the end (pagesTake)
  local pageOf = nil
  if paged() then
    pageOf = {}
    due = mergeDue(due, pagesDue(upTo, limit, pageOf))
  end
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
  if pageOf then
    pagesTake(chosen, pageOf)
  end
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
