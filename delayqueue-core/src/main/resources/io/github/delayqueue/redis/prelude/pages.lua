-- Pages (stored format 5, docs/reference/stored-format.md): where a topic's freshly scheduled plain messages wait (no
-- group, the default priority), in small sorted sets by due time instead of the one pending set. A sorted set of more
-- than 128 entries is a skiplist (about 111 bytes a message); one of at most PAGE_MOST stays a listpack (about a third
-- of that), so a waiting message costs about 100 bytes instead of 170 (docs/benchmarks-journal.md). Keys, all of the
-- topic (a subscription has none: its messages wait in its own pending):
--   pages    ZSET  every score 0, so ordered by member: '<fence>\0<n>' per page, where the fence is the page's lowest
--                  (due, id) when it was made, as order() writes it, and n its number; the first page always has an
--                  empty fence (a page that becomes the first has its fence taken off: refence), so that it holds
--                  every message below the second page's. Page n holds the messages from its fence up to the next
--                  page's: a message's page is the one with the greatest fence at or below the message's own
--   p:<n>    ZSET  id -> due time, at most PAGE_MOST entries: a page
--   pcount   HASH  n -> how many messages page n holds, kept with every write to a page (its HINCRBY answers what a
--                  ZCARD would, so a schedule or a cancel runs no command more for it), so that a count over many
--                  pages reads their sizes a hundred at a time instead of a ZCOUNT each
--   meta     HASH  paged -> how many messages the pages hold (absent or 0: none; read with the bucket count, so that a
--                  topic without pages pays no command for them); page -> the last page number handed out
-- A message in a page has an envelope of format 5 (Envelope.java): its version byte 5 and its due time (8 bytes, a
-- big-endian double), in front of format 2's fields, so that a cancel or a look-up finds its page from the id. Only
-- a message's first wait is in a page: one that waits again (a retry, a lease handed back or run out, a reschedule, a
-- replacement, a replay) waits in pending, which every script reads too, so that the due time in front of an
-- envelope is read only to find a page and never has to be written again. Groups and priorities keep their own sets.
local PAGE_MOST = 96
local PAGE_LEAST = 24
local PAGE_MERGED_MOST = 72
-- Redis's zset-max-listpack-entries as it ships: a sorted set past it is a skiplist
local PAGE_LISTPACK_MOST = 128

if metaAlso then
  metaAlso[#metaAlso + 1] = 'paged'
else
  metaAlso = { 'paged' }
end
local PAGES = TOPIC_BASE .. 'pages'
local PCOUNT = TOPIC_BASE .. 'pcount'

-- Whether the topic's pages hold any message, by meta's count as read with the bucket count (false in a subscription's
-- script: its own meta has no pages).
local function paged()
  local n = tonumber(metaRead.paged)
  return n ~= nil and n > 0
end

-- A page's number, from its member in the index.
local function pageNumber(member)
  return string.match(member, '%z(%d+)$')
end

-- A page's key, from its member in the index.
local function pageKey(member)
  return TOPIC_BASE .. 'p:' .. pageNumber(member)
end

-- A page's count after 'delta' messages came (or, negative, left): its pcount entry, but read from the page itself
-- where the entry says the page was empty before (a new page) or, after a removal, is small (one that may join its
-- neighbour or be gone), so that an entry that went wrong is put right where it matters.
local function recount(member, key, delta)
  local n = pageNumber(member)
  local count = redis.call('HINCRBY', PCOUNT, n, delta)
  if count == delta or (delta < 0 and count < PAGE_LEAST) then
    local real = redis.call('ZCARD', key)
    if real ~= count and real > 0 then
      redis.call('HSET', PCOUNT, n, real)
    end
    count = real
  end
  if count == 0 then
    -- (a page emptied leaves the index: so does its entry)
    redis.call('HDEL', PCOUNT, n)
  end
  return count
end

-- A message's place in the pages' order, (due, id), as bytes that sort the same way: a positive double, big-endian,
-- sorts as its value does, and Redis orders equal scores by the members' bytes.
local function order(due, id)
  return struct.pack('>d', tonumber(due)) .. id
end

-- Whether a due time can go in a page (order() sorts positive due times only; a due time before 1970 waits in pending).
local function pageable(due)
  local n = tonumber(due)
  return n ~= nil and n >= 1 and n < math.huge
end

-- The due time written in front of a format-5 envelope, or nil.
local function frontDue(envelope)
  if envelope and string.byte(envelope, 1) == 5 and #envelope >= 9 then
    return (struct.unpack('>d', envelope, 2))
  end
  return nil
end

-- An envelope of format 2 with a due time in front: format 5.
local function withFront(envelope, due)
  return '\5' .. struct.pack('>d', tonumber(due)) .. string.sub(envelope, 2)
end

-- The index's upper bound for a message's page: below (due, id) and any page member whose fence equals it, since ids
-- hold no control characters. One concatenation: every string made is interned.
local function boundOf(due, id)
  return '(' .. struct.pack('>d', tonumber(due)) .. id .. '\1'
end

-- The page a message due at 'due' with this id belongs in: its member and key; nil if there is no page.
local function pageAt(due, id)
  local member = redis.call('ZREVRANGEBYLEX', PAGES, boundOf(due, id), '-', 'LIMIT', 0, 1)[1]
  if member then
    return member, pageKey(member)
  end
  return nil, nil
end

-- After a page left the index: the first page's fence goes, so that it takes every message below the second page's
-- (a page with a fence that became the first would hold none below its fence, and a message due earlier would go
-- to it all the same: its split would then fence a page below its own, out of order).
local function refence()
  local first = redis.call('ZRANGE', PAGES, 0, 0)[1]
  if first and string.byte(first, 1) ~= 0 then
    redis.call('ZREM', PAGES, first)
    redis.call('ZADD', PAGES, 0, '\0' .. string.match(first, '%z(%d+)$'))
  end
end

-- The page a schedule's first message belongs in, found as pageAt finds it, but with the command's refusal caught: a
-- Redis user whose ACL rule predates the pages (docs/reference/security.md) gets false, and the call writes pending
-- instead, before writing anything. Else the member (or false: no page yet).
local function pageProbe(due, id)
  local reply = redis.pcall('ZREVRANGEBYLEX', PAGES, boundOf(due, id), '-', 'LIMIT', 0, 1)
  if reply.err then
    return nil
  end
  return reply[1] or false
end

-- A reply of ZRANGE ... WITHSCORES (id, score, ...) as ZADD takes it (score, id, ...).
local function asScores(entries)
  local scores = {}
  for i = 1, #entries, 2 do
    scores[i] = entries[i + 1]
    scores[i + 1] = entries[i]
  end
  return scores
end

-- A new page's number.
local function newPage()
  return redis.call('HINCRBY', TOPIC_META, 'page', 1)
end

-- Cuts a page that holds more than PAGE_MOST ('card' entries) into pages of PAGE_MOST / 2 in order, the last taking
-- what is left (at most PAGE_MOST): the entries past the first half go to new pages, each fenced by its first entry,
-- added before they leave the page. A page that went past PAGE_LISTPACK_MOST (a batch's messages added at once) is a
-- skiplist now: all of it moves, its first part to a new page under its own fence, so that every page is a listpack.
local function splitPage(member, key, card)
  local half = PAGE_MOST / 2
  local whole = card > PAGE_LISTPACK_MOST
  local entries = redis.call('ZRANGE', key, whole and 0 or half, -1, 'WITHSCORES')
  local sizes, left = {}, #entries / 2
  while left > 0 do
    local take = (left <= PAGE_MOST and not (whole and #sizes == 0)) and left or half
    sizes[#sizes + 1] = take
    left = left - take
  end
  local last = redis.call('HINCRBY', TOPIC_META, 'page', #sizes)
  local index, i = {}, 1
  for c, take in ipairs(sizes) do
    local n = last - #sizes + c
    redis.call('ZADD', TOPIC_BASE .. 'p:' .. n, unpack(asScores({ unpack(entries, i, i + 2 * take - 1) })))
    local fence
    if whole and c == 1 then
      fence = string.match(member, '^(.*)%z%d+$')
    else
      fence = order(entries[i + 1], entries[i])
    end
    index[2 * c - 1] = 0
    index[2 * c] = fence .. '\0' .. n
    i = i + 2 * take
  end
  redis.call('ZADD', PAGES, unpack(index))
  local counts = {}
  for c, take in ipairs(sizes) do
    counts[2 * c - 1] = last - #sizes + c
    counts[2 * c] = take
  end
  if not whole then
    counts[#counts + 1] = pageNumber(member)
    counts[#counts + 1] = half
  end
  redis.call('HSET', PCOUNT, unpack(counts))
  if whole then
    redis.call('ZREM', PAGES, member)
    redis.call('DEL', key)
    redis.call('HDEL', PCOUNT, pageNumber(member))
  else
    redis.call('ZREMRANGEBYRANK', key, half, -1)
  end
end

-- Whether id a sorts before id b as Redis orders members, byte by byte (Lua's < on strings follows the server's
-- locale).
local function idBefore(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x < y
    end
  end
  return #a < #b
end

-- A page member's fence as a due time and an id; nil for the first page's empty fence.
local function fenceOf(member)
  if string.byte(member, 1) == 0 then
    return nil, nil
  end
  local n = string.match(member, '%z(%d+)$')
  return (struct.unpack('>d', member)), string.sub(member, 9, #member - #n - 1)
end

-- Where the page of a member ends: the next page's fence (due, id), or nil if it is the last.
local function rangeOf(member)
  local range = { member = member }
  range.lowDue, range.lowId = fenceOf(member)
  local after = redis.call('ZRANGEBYLEX', PAGES, '(' .. member, '+', 'LIMIT', 0, 1)[1]
  if after then
    range.highDue, range.highId = fenceOf(after)
  end
  return range
end

-- Whether a message due at 'due' (a number) with this id belongs in the page of 'range': at or after its fence and
-- before the next page's, as pageAt would find it.
local function within(range, due, id)
  if range.lowDue and (due < range.lowDue or (due == range.lowDue and idBefore(id, range.lowId))) then
    return false
  end
  return not range.highDue or due < range.highDue or (due == range.highDue and idBefore(id, range.highId))
end

-- Puts messages in their pages: 'scores' as ZADD takes them (due, id, ...), each due time pageable. Counts them in
-- meta. Every message's page is found before any page is written (so that the messages a page takes all lie in its
-- range, whatever their order in the call), then each page takes its messages with one ZADD and is counted once. Two
-- messages in a row found in one page have the call read where that page ends, and the messages after them that fall
-- in it need no look-up: a batch of messages due in order (timeouts of one length, scheduled in a burst) costs a few
-- commands a page, where a look-up, a ZADD and a ZCARD a message cost about three commands more a message; a batch in
-- no order, a look-up a message. A page that grows past PAGE_MOST splits, so that every page stays a listpack.
-- Returns the member and key of the last message's page as it was found (a split may since have moved the message to
-- the page after it), and whether any went to the first page (the unfenced one, the only one that can hold the
-- topic's head). 'first': the first message's page member as pageProbe found it (false: none), or nil.
local function pagesAdd(scores, first)
  local member
  local members, byMember = {}, {}
  local range, found = nil, nil
  for i = 1, #scores, 2 do
    local due, id = scores[i], scores[i + 1]
    if range and within(range, tonumber(due), id) then
      member = range.member
    else
      if i == 1 and first ~= nil then
        member = first or nil
      else
        member = pageAt(due, id)
      end
      if not member then
        -- no page yet: the first, unfenced, which then takes every message of the call
        member = '\0' .. newPage()
        redis.call('ZADD', PAGES, 0, member)
        range = { member = member }
      elseif member == found then
        range = rangeOf(member)
      else
        range = nil
      end
      found = member
    end
    local list = byMember[member]
    if not list then
      list = {}
      byMember[member] = list
      members[#members + 1] = member
    end
    list[#list + 1] = due
    list[#list + 1] = id
  end
  local head = false
  for _, m in ipairs(members) do
    if string.byte(m, 1) == 0 then
      head = true
    end
    local key = pageKey(m)
    local list = byMember[m]
    for j = 1, #list, 1000 do
      redis.call('ZADD', key, unpack(list, j, math.min(#list, j + 999)))
    end
    local card = recount(m, key, #list / 2)
    if card > PAGE_MOST then
      splitPage(m, key, card)
    end
  end
  redis.call('HINCRBY', TOPIC_META, 'paged', #scores / 2)
  return member, pageKey(member), head
end

-- After messages left a page: an empty page leaves the index, and one left with fewer than PAGE_LEAST joins its
-- neighbour (the one before it; the first page takes the one after it) if the two hold at most PAGE_MERGED_MOST, so
-- that a topic whose messages are mostly cancelled keeps its pages full.
local function settlePage(member, key)
  local n = recount(member, key, -1)
  if n == 0 then
    redis.call('ZREM', PAGES, member)
    refence()
    return
  end
  if n >= PAGE_LEAST then
    return
  end
  local into, from, fromMember
  local before = redis.call('ZREVRANGEBYLEX', PAGES, '(' .. member, '-', 'LIMIT', 0, 1)[1]
  if before then
    into, from, fromMember = pageKey(before), key, member
  else
    local after = redis.call('ZRANGEBYLEX', PAGES, '(' .. member, '+', 'LIMIT', 0, 1)[1]
    if not after then
      return
    end
    into, from, fromMember = key, pageKey(after), after
  end
  local joined = redis.call('ZCARD', into) + redis.call('ZCARD', from)
  if joined > PAGE_MERGED_MOST then
    return
  end
  -- added where they go before they leave where they were
  redis.call('ZADD', into, unpack(asScores(redis.call('ZRANGE', from, 0, -1, 'WITHSCORES'))))
  redis.call('HSET', PCOUNT, string.match(into, ':p:(%d+)$'), joined)
  redis.call('ZREM', PAGES, fromMember)
  redis.call('DEL', from)
  redis.call('HDEL', PCOUNT, pageNumber(fromMember))
end

-- The page a message's envelope (as stored) names by the due time in front of it: its member and key; nil if the
-- envelope has no due time in front (the message never waited in a page) or there is no page.
local function pageOfEnvelope(id, envelope)
  local due = frontDue(envelope)
  if not due then
    return nil, nil
  end
  return pageAt(due, id)
end

-- The due time of a message waiting in a page, found from its envelope (as stored), or nil.
local function pageScore(id, envelope)
  local _, key = pageOfEnvelope(id, envelope)
  return key and redis.call('ZSCORE', key, id) or nil
end

-- Takes a message out of its page, found from its envelope (as stored); true if it was there.
local function pageRemove(id, envelope)
  local member, key = pageOfEnvelope(id, envelope)
  if not member or redis.call('ZREM', key, id) == 0 then
    return false
  end
  redis.call('HINCRBY', TOPIC_META, 'paged', -1)
  settlePage(member, key)
  return true
end

-- Up to 'limit' messages due at 'upTo' or before from the pages, earliest first, as ZRANGEBYSCORE's reply gives them
-- (id, due, ...), and the member of each one's page in 'pageOf' (id -> member). Reads at most eight pages.
local function pagesDue(upTo, limit, pageOf)
  local found = {}
  if limit <= 0 then
    return found
  end
  for _, member in ipairs(redis.call('ZRANGE', PAGES, 0, 7)) do
    local part = redis.call('ZRANGEBYSCORE', pageKey(member), '-inf', upTo, 'WITHSCORES', 'LIMIT', 0, limit)
    for i = 1, #part, 2 do
      found[#found + 1] = part[i]
      found[#found + 1] = part[i + 1]
      pageOf[part[i]] = member
    end
    limit = limit - #part / 2
    -- (a page that gave fewer than asked either ran out, or holds the rest later: then so do the pages after it)
    if limit <= 0 or #part == 0 then
      break
    end
  end
  return found
end

-- Takes messages read by pagesDue out of their pages: 'ids' (a list; those not in 'pageOf' are left alone).
local function pagesTake(ids, pageOf)
  local byPage, members = {}, {}
  local n = 0
  for _, id in ipairs(ids) do
    local member = pageOf[id]
    if member then
      local list = byPage[member]
      if not list then
        list = {}
        byPage[member] = list
        members[#members + 1] = member
      end
      list[#list + 1] = id
    end
  end
  local emptied = false
  for _, member in ipairs(members) do
    local key = pageKey(member)
    local taken = redis.call('ZREM', key, unpack(byPage[member]))
    n = n + taken
    if taken > 0 then
      -- (the page itself says whether it is empty: a listed empty page would stop the claims that read the pages)
      if redis.call('EXISTS', key) == 0 then
        redis.call('ZREM', PAGES, member)
        redis.call('HDEL', PCOUNT, pageNumber(member))
        emptied = true
      else
        recount(member, key, -taken)
      end
    end
  end
  if emptied then
    refence()
  end
  if n > 0 then
    redis.call('HINCRBY', TOPIC_META, 'paged', -n)
  end
end

-- Two lists of (id, due, ...) in due order, merged in due order.
local function mergeDue(a, b)
  if #b == 0 then
    return a
  elseif #a == 0 then
    return b
  end
  local out, i, j = {}, 1, 1
  while i <= #a or j <= #b do
    if j > #b or (i <= #a and tonumber(a[i + 1]) <= tonumber(b[j + 1])) then
      out[#out + 1] = a[i]
      out[#out + 1] = a[i + 1]
      i = i + 2
    else
      out[#out + 1] = b[j]
      out[#out + 1] = b[j + 1]
      j = j + 2
    end
  end
  return out
end

-- The earliest due time in the pages (a number), and its id; nil if they hold none.
local function pagesHead()
  local first = redis.call('ZRANGE', PAGES, 0, 0)[1]
  if not first then
    return nil, nil
  end
  local head = redis.call('ZRANGE', pageKey(first), 0, 0, 'WITHSCORES')
  return tonumber(head[2]), head[1]
end

-- The due time of a page's fence, from its member (nil: the empty fence of the first page made).
local function fenceDue(member)
  if string.byte(member, 1) == 0 then
    return nil
  end
  return (struct.unpack('>d', member))
end

-- The counts of the pages of these index members (member -> number, nil where pcount has none).
local function sizesOf(members)
  local sizes = {}
  if #members == 0 then
    return sizes
  end
  local fields = {}
  for i, member in ipairs(members) do
    fields[i] = pageNumber(member)
  end
  local values = redis.call('HMGET', PCOUNT, unpack(fields))
  for i, member in ipairs(members) do
    sizes[member] = tonumber(values[i])
  end
  return sizes
end

-- How many messages the pages hold due at 'max' or before (a score as ZCOUNT takes it: 'x' or '(x'): a ZCOUNT per page
-- from the first to the one where 'max' falls.
local function pagesDueBy(max)
  local high = tonumber((string.gsub(max, '^%(', '')))
  local bound = '-'
  local total = 0
  -- the page before the one read: counted whole (its pcount entry) when the next page's fence is due before 'high',
  -- since then all of it is; else by a ZCOUNT
  local previous, previousSize = nil, nil
  local function countPrevious(wholly)
    if previous then
      if wholly and previousSize then
        total = total + previousSize
      else
        total = total + redis.call('ZCOUNT', pageKey(previous), '-inf', max)
      end
    end
  end
  while true do
    local members = redis.call('ZRANGEBYLEX', PAGES, bound, '+', 'LIMIT', 0, 100)
    local sizes = sizesOf(members)
    for _, member in ipairs(members) do
      local fence = fenceDue(member)
      countPrevious(fence ~= nil and fence < high)
      if fence and fence > high then
        return total
      end
      previous, previousSize = member, sizes[member]
    end
    if #members < 100 then
      countPrevious(false)
      return total
    end
    bound = '(' .. members[#members]
  end
end

-- How many messages the pages hold before 'edges[1]' and between each edge and the next (scores, ascending), as
-- due-count.lua counts its windows: a page within one window by its count (pcount, read a hundred pages at a time),
-- one across several by a ZCOUNT for each window it spans, walking the pages in order up to the one holding the last
-- edge, at most 'most' pages a call, so that no call holds Redis for long however many pages a window spans. 'from':
-- '' for the first call, else the place in the pages' order (a fence, as order() writes it) where the last call
-- stopped: this call counts the messages from there on, from the page that holds that place now (pages split,
-- join and lose their fence between calls; a message's place in the order never changes, so each is counted by one
-- call). Returns the counts (windows 1 to #edges: those at or after the last edge are the caller's, from meta's
-- count) and the place to go on from in the next call, or false when the walk is done.
local function pagesWindows(edges, from, most)
  local m = #edges
  local counts = {}
  for k = 1, m do
    counts[k] = 0
  end
  local last = tonumber(edges[m])
  local values = {}
  for k = 1, m do
    values[k] = tonumber(edges[k])
  end
  -- the window of a due time: the number of edges at or below it, plus one
  local function window(due)
    if due == nil then
      return 1
    end
    local lo, hi = 1, m + 1
    while lo < hi do
      local mid = math.floor((lo + hi) / 2)
      if values[mid] <= due then
        lo = mid + 1
      else
        hi = mid
      end
    end
    return lo
  end
  local function countIn(key, k)
    if k > m then
      return
    end
    local min = (k == 1) and '-inf' or edges[k - 1]
    counts[k] = counts[k] + redis.call('ZCOUNT', key, min, '(' .. edges[k])
  end
  -- a page counted from the place 'from' on only (the first page of a call after the first): in the window of the
  -- place's due time, the messages due after it, and those due at it whose id does not sort before the place's
  local startDue, startId = nil, nil
  local function countFrom(key, k)
    if k > m then
      return
    end
    if k ~= window(startDue) then
      countIn(key, k)
      return
    end
    local due = string.format('%.17g', startDue)
    local n = redis.call('ZCOUNT', key, '(' .. due, '(' .. edges[k])
    for _, id in ipairs(redis.call('ZRANGEBYSCORE', key, due, due)) do
      if not idBefore(id, startId) then
        n = n + 1
      end
    end
    counts[k] = counts[k] + n
  end
  local bound = '-'
  local previous = nil
  if from ~= '' then
    startDue = (struct.unpack('>d', from))
    startId = string.sub(from, 9)
    local holder = redis.call('ZREVRANGEBYLEX', PAGES, '(' .. from .. '\1', '-', 'LIMIT', 0, 1)[1]
    if not holder then
      return counts, false
    end
    previous = { pageKey(holder), window(startDue), nil, true }
    bound = '(' .. holder
  end
  local walked = 0
  while true do
    local members = redis.call('ZRANGEBYLEX', PAGES, bound, '+', 'LIMIT', 0, 100)
    local sizes = sizesOf(members)
    for _, member in ipairs(members) do
      local fence = fenceDue(member)
      if previous then
        -- the page before this one ends where this one's fence is: a page within one window is counted whole (its
        -- pcount entry), one across several by a ZCOUNT for each
        local to = window(fence)
        if previous[4] then
          for k = previous[2], to do
            countFrom(previous[1], k)
          end
        elseif to == previous[2] and previous[3] and to <= m then
          counts[to] = counts[to] + previous[3]
        else
          for k = previous[2], to do
            countIn(previous[1], k)
          end
        end
        walked = walked + 1
      end
      if fence and fence >= last then
        return counts, false
      end
      if walked >= most then
        -- the next call goes on from this page's fence
        return counts, string.sub(member, 1, #member - #pageNumber(member) - 1)
      end
      previous = { pageKey(member), window(fence), sizes[member], false }
    end
    if #members < 100 then
      break
    end
    bound = '(' .. members[#members]
  end
  if previous then
    -- the last page: window by window until all of it is counted (its count says when, for a page counted whole)
    local left = (not previous[4]) and previous[3] or nil
    for k = previous[2], m do
      if left and left <= 0 then
        break
      end
      local before = counts[k]
      if previous[4] then
        countFrom(previous[1], k)
      else
        countIn(previous[1], k)
      end
      left = left and (left - (counts[k] - before))
    end
  end
  return counts, false
end
