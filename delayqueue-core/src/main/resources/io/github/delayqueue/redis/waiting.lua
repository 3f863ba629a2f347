-- uses: controls, groups, priorities, pages, buckets, leases, dead
-- Lists waiting messages (scheduled or waiting for a retry) by due time, then id (the pending set's own order: ids
-- by their bytes), a page at a time: a few commands to find where the page starts, however many wait, then the page.
-- ARGV[1] from (due score, inclusive; '-inf' for none), ARGV[2] to (inclusive; '+inf'), ARGV[3] the due score of the
-- last message of the previous page ('' for the first page), ARGV[4] its id, ARGV[5] the page size
-- Returns per message: id, due score, attempts counted (or false), envelope (or false), expiry (or false).
local from, to, afterScore, afterId = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local limit = tonumber(ARGV[5])

-- Whether id a sorts after id b by their bytes, as Redis orders members of equal score (Lua's own comparison
-- follows the server's locale).
local function after(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x > y
    end
  end
  return #a > #b
end

local start
if afterScore == '' then
  start = redis.call('ZCOUNT', PENDING, '-inf', '(' .. from)
  if from == '-inf' then
    start = 0
  end
else
  -- the first message due later than the last one listed, or due at the same time with an id after its id (found
  -- by halving the run of messages due at that time), whether or not the last one still waits
  local lo = redis.call('ZCOUNT', PENDING, '-inf', '(' .. afterScore)
  local hi = lo + redis.call('ZCOUNT', PENDING, afterScore, afterScore)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local id = redis.call('ZRANGE', PENDING, mid, mid)[1]
    if after(id, afterId) then
      hi = mid
    else
      lo = mid + 1
    end
  end
  start = lo
end
local page = redis.call('ZRANGE', PENDING, start, start + limit - 1, 'WITHSCORES')
local upper = tonumber(to) or math.huge
local ids, scores = {}, {}
for i = 1, #page, 2 do
  if tonumber(page[i + 1]) > upper then
    break
  end
  ids[#ids + 1] = page[i]
  scores[#scores + 1] = page[i + 1]
end
-- groups: grouped messages wait in their groups' sets: each of the first thousand groups with a turn and the first
-- thousand held gives its own page from the same position, and the pages are merged by due time, then id (bounded:
-- one or two commands a group; none for a topic without groups)
-- priorities: so do the messages of priorities other than the default, in their levels' sets (none for a topic that
-- never stored a priority)
if grouped() or metaRead.prio or paged() then
  local names = grouped() and redis.call('ZRANGE', GROUPS, 0, 999) or {}
  local held = grouped() and redis.call('SMEMBERS', BASE .. 'gheld') or {}
  for i = 1, math.min(#held, 1000) do
    names[#names + 1] = held[i]
  end
  local keys = {}
  for _, level in ipairs(storedLevels()) do
    keys[#keys + 1] = levelKey(level)
  end
  local lower = (afterScore ~= '') and afterScore or from
  local entries = {}
  for k, id in ipairs(ids) do
    entries[#entries + 1] = { id, scores[k] }
  end
  -- (priorities within a group: and each of its levels' sets, listed in gcontrol, read in one command)
  local fields = {}
  for i, group in ipairs(names) do
    fields[i] = 'l:' .. group
  end
  local levels = hmget(BASE .. 'gcontrol', fields)
  local seen = {}
  for i, group in ipairs(names) do
    if not seen[group] then
      seen[group] = true
      for _, set in ipairs(groupSets(group, levels[i])) do
        keys[#keys + 1] = set[2]
      end
    end
  end
  for _, key in ipairs(keys) do
    do
      local ties = (afterScore ~= '') and redis.call('ZCOUNT', key, afterScore, afterScore) or 0
      local part = redis.call('ZRANGEBYSCORE', key, lower, to, 'WITHSCORES', 'LIMIT', 0, limit + ties)
      for i = 1, #part, 2 do
        if afterScore == '' or tonumber(part[i + 1]) > tonumber(afterScore) or after(part[i], afterId) then
          entries[#entries + 1] = { part[i], part[i + 1] }
        end
      end
    end
  end
  -- pages (stored format 5): the messages of a first wait, page by page from the one where the listing starts, up to
  -- a page's worth (a page is at most 96 messages)
  if paged() then
    local startDue, startId = lower, (afterScore ~= '') and afterId or ''
    local bound = '-'
    if pageable(startDue) then
      local member = pageAt(startDue, startId)
      if member then
        bound = '[' .. member
      end
    end
    local upper = tonumber(to)
    local taken = 0
    while taken < limit do
      local members = redis.call('ZRANGEBYLEX', PAGES, bound, '+', 'LIMIT', 0, 16)
      for _, member in ipairs(members) do
        local fence = fenceDue(member)
        if upper and fence and fence > upper then
          taken = limit
          break
        end
        local part = redis.call('ZRANGEBYSCORE', pageKey(member), lower, to, 'WITHSCORES')
        for i = 1, #part, 2 do
          if afterScore == '' or tonumber(part[i + 1]) > tonumber(afterScore) or after(part[i], afterId) then
            entries[#entries + 1] = { part[i], part[i + 1] }
            taken = taken + 1
          end
        end
        if taken >= limit then
          break
        end
      end
      if #members < 16 then
        break
      end
      bound = '(' .. members[#members]
    end
  end
  table.sort(entries, function(a, b)
    local x, y = tonumber(a[2]), tonumber(b[2])
    if x ~= y then
      return x < y
    end
    return after(b[1], a[1])
  end)
  ids, scores = {}, {}
  for i = 1, math.min(#entries, limit) do
    ids[i] = entries[i][1]
    scores[i] = entries[i][2]
  end
end
local tries = hmget(TRIES, ids)
local expiries = {}
if redis.call('EXISTS', EXPIRY) == 1 then
  expiries = hmget(EXPIRY, ids)
end
local out = {}
for k, id in ipairs(ids) do
  out[#out + 1] = id
  out[#out + 1] = scores[k]
  out[#out + 1] = tries[k]
  out[#out + 1] = redis.call('HGET', bodyOf(id), id)
  out[#out + 1] = expiries[k] or false
end
return out
