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

-- The set a message without a group of this level waits in (nil or the default: pending); with 'base', a
-- subscription's (see the fanout module).
local function levelKey(level, base)
  if level == nil or level == DEFAULT_LEVEL then
    return base and (base .. 'pending') or PENDING
  end
  return (base or BASE) .. 'p' .. level
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
