-- uses: pages
-- schedule.lua for plain messages: without a group and of the default priority (one message alone, a web request
-- scheduling its order's timeout, or a batch of them: the group commits of concurrent or asynchronous calls, a
-- scheduleAll). The same checks, writes and outcomes, with only the prelude's base and pages modules (the key names,
-- and a page's placement and split for stored format 5): a call of a script runs its whole text, and the prelude's
-- other sections (their helpers, key names and checks) made a fifth of the instructions Redis ran for a lone schedule
-- (153 k against 123 k per call, callgrind, a topic growing past 20,000); schedule.lua costs 15 % more per message for
-- a group commit of four and 28 % more in calls of 250 (docs/benchmarks-journal.md). So this script does the few
-- steps it needs itself. What it does the prelude does too, and must do
-- alike: the bucket of an id and the split are the prelude's bodyOf and resizing().split (the buckets section); the
-- due time is its dueScore, the wake-up its delayTo. RedisMessageStoreTests and BucketHashTests compare the two.
-- KEYS[1] the topic's pending set. ARGV: per message six: id, kind ('d' delay in microseconds | 'a' absolute epoch
-- ms; 'D' | 'A' the same, to wait in a page with an envelope of format 5, see the pages module), value, envelope (format 2), expiry ('<deadline ms>:<d|x>', '' for none), the id's bucket hash: the first eight
-- hex digits of the SHA-1 of its bytes, as bodyOf computes it (the client computes it: a redis.sha1hex here cost 6 %
-- of a lone call)
-- Returns, for one message, 1 (stored) or 0 (the id exists, waiting, leased or dead, in either format: nothing
-- changed): a number, not a list of one (a list reply cost 4 % of a lone call); for several, per message 1 or 0 (0
-- too for an id that came earlier in the same call).
local n = #ARGV / 6
if n < 1 or n ~= math.floor(n) then
  error({ err = 'delayqueue: six arguments per message, got ' .. #ARGV })
end
-- every argument the script reads is checked before anything is written: bad input changes nothing (the client's
-- hash is trusted to be the id's: BucketHashTests)
local hashes = {}
local sample = nil
for k = 1, n do
  local hash = ARGV[k * 6]
  if not string.find(hash, '^%x%x%x%x%x%x%x%x$') then
    error({ err = 'delayqueue: bucket hash must be eight hex digits, got \'' .. hash .. '\'' })
  end
  local kind, value = ARGV[k * 6 - 4], ARGV[k * 6 - 3]
  if (kind ~= 'd' and kind ~= 'a' and kind ~= 'D' and kind ~= 'A') or not tonumber(value) then
    error({ err = 'delayqueue: a due time is \'d\', \'a\', \'D\' or \'A\' and a number, got \'' .. kind .. '\' \''
      .. value .. '\'' })
  end
  local h = tonumber(hash, 16)
  hashes[k] = h
  -- the topic's size is estimated (below) for one lone message in sixteen (by its hash), and for every call of
  -- sixteen or more (as schedule.lua makes room for a batch)
  if not sample and (h % 16 == 0 or n >= 16) then
    sample = h
  end
end
-- format 1's envelopes: an id stored there exists too
local V1_MSGS = BASE .. 'msgs'
local format1 = redis.call('EXISTS', V1_MSGS) == 1
-- the bucket count, as the prelude reads and checks it: a script that cannot find envelopes changes nothing
local raw = redis.call('HGET', META, 'buckets')
local count = 1
if raw then
  count = tonumber(raw)
  if not count or count < 2 or count > 16777216 or count ~= math.floor(count) then
    error({ err = 'delayqueue: corrupt bucket count ' .. tostring(raw) .. ' in ' .. META })
  end
end
local low = 1
while low * 2 <= count do
  low = low * 2
end

local function indexOf(h)
  local index = h % low
  if index < count - low then
    index = h % (low * 2)
  end
  return index
end

-- sizing the buckets, before anything is written, so that the messages go straight to the buckets they stay in: the
-- call estimates the messages the topic stores from two buckets, the sampled message's and one picked by other bits
-- of its hash (each one's entries times the share of the hashes it holds: one 2 * low-th for a bucket split in this
-- round, below the split pointer or at or above low, else one low-th; two commands), plus this call's messages, so
-- the buckets lag the growth by a few messages at most; 20 messages per bucket on average (the prelude's
-- BUCKET_FILL), at most as many splits per call as its messages need and two more (a lone message stands for the
-- sixteen that sample the size once); a split moves the entries of the bucket at the split pointer whose hash
-- has the next bit set to their new bucket (the prelude's resizing().grow, estimate and split, whose comments tell
-- why; and why a user whose rule lacks +hlen counts the sets instead)
if sample then
  local total = n
  for _, j in ipairs({ indexOf(sample), math.floor(sample / 65536) % count }) do
    local entries = redis.pcall('HLEN', string.format('%sbody:%d', BASE, j))
    if type(entries) == 'table' then
      total = nil
      break
    end
    total = total + entries * ((j < count - low or j >= low) and 2 * low or low) / 2
  end
  if total == nil then
    total = n + redis.call('ZCARD', PENDING) + redis.call('ZCARD', BASE .. 'leased')
        + redis.call('ZCARD', BASE .. 'buried') + (tonumber(redis.call('HGET', META, 'paged')) or 0)
  end
  local splits = 0
  local most = math.ceil(math.max(n, 16) / 20) + 2
  -- (a quarter over the fill: the estimate is noisy and a split is not undone, see the prelude's estimate)
  while splits < most and total > count * 25 do
    splits = splits + 1
    local from = count - low
    local source = string.format('%sbody:%d', BASE, from)
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
      for i = 1, #move, 1000 do
        redis.call('HSET', string.format('%sbody:%d', BASE, from + low), unpack(move, i, math.min(#move, i + 999)))
      end
      if #entries > 256 then
        redis.call('DEL', source)
        for i = 1, #keep, 1000 do
          redis.call('HSET', source, unpack(keep, i, math.min(#keep, i + 999)))
        end
      else
        for i = 1, #gone, 1000 do
          redis.call('HDEL', source, unpack(gone, i, math.min(#gone, i + 999)))
        end
      end
    end
    count = count + 1
    if count == low * 2 then
      low = count
    end
    redis.call('HSET', META, 'buckets', count)
  end
end

-- the writes: each message's envelope into its bucket unless its id exists (HSETNX: one command checks and stores),
-- then the due times in one ZADD, or into their pages (a page's message has its due time in front of its envelope).
-- The Redis clock is read once, and only when needed: for a delay, or (below) for the wake-up's delay to a new
-- earliest
local nowUs = nil
local out = {}
local scores = {}
local pageScores = nil
local expiries = nil
local earliest, earliestId = nil, nil
-- the first paged message's page, looked up before anything is written (nil: not yet; false: no page), and whether
-- the Redis user may not use the pages (then this call writes pending)
local probed, probedId, refused = nil, nil, false
for k = 1, n do
  local i = k * 6 - 5
  local id = ARGV[i]
  out[k] = 0
  local kind = ARGV[i + 1]
  local due = ARGV[i + 2]
  if kind == 'd' or kind == 'D' then
    if not nowUs then
      local t = redis.call('TIME')
      nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])
    end
    due = (nowUs + tonumber(due)) / 1000
  end
  local paging = (kind == 'D' or kind == 'A') and not refused and pageable(due)
  if paging and probedId == nil then
    probed = pageProbe(due, id)
    probedId = id
    if probed == nil then
      refused = true
      paging = false
    end
  end
  local envelope = ARGV[i + 3]
  if paging then
    envelope = withFront(envelope, due)
  end
  if not (format1 and redis.call('HEXISTS', V1_MSGS, id) == 1)
      and redis.call('HSETNX', string.format('%sbody:%d', BASE, indexOf(hashes[k])), id, envelope) == 1 then
    out[k] = 1
    if paging then
      pageScores = pageScores or {}
      pageScores[#pageScores + 1] = due
      pageScores[#pageScores + 1] = id
    else
      scores[#scores + 1] = due
      scores[#scores + 1] = id
    end
    if ARGV[i + 4] ~= '' then
      expiries = expiries or {}
      expiries[#expiries + 1] = id
      expiries[#expiries + 1] = ARGV[i + 4]
    end
    local at = tonumber(due)
    if earliest == nil or at < earliest then
      earliest, earliestId = at, id
    end
  end
end
if earliest == nil then
  return (n == 1) and 0 or out
end
for i = 1, #scores, 1000 do
  redis.call('ZADD', PENDING, unpack(scores, i, math.min(#scores, i + 999)))
end
local loneMember, loneKey, pagedHead = nil, nil, false
if pageScores then
  -- (the probe's answer for the first paged message, false too: no page yet, and no look-up again)
  local first = nil
  if pageScores[2] == probedId then
    first = probed
  end
  loneMember, loneKey, pagedHead = pagesAdd(pageScores, first)
end
if expiries then
  redis.call('HSET', BASE .. 'expiry', unpack(expiries))
  -- claims read the expiry hash only in a topic that ever stored an expiry (see the prelude's meta)
  redis.call('HSET', META, 'expiry', '1')
end
-- the new earliest (or tying with it): wake the consumers with the delay to it, rounded up. For one message ZRANK
-- answers with a number, where ZRANGE's reply is a list with the head's id (a table and a string for Lua: 2.5 % of a
-- lone call); several messages ask whether the head is one of theirs (one of them may tie with their earliest and
-- sort before it: the head is read with its score, and looked for among them only when it ties). A restricted Redis
-- user whose rule predates 0.3 may lack +zrank (docs/reference/security.md): then the head is read as for several,
-- so that nothing breaks (Redis logs each refusal: add +zrank)
local woken
-- (a lone message in a page after the first is not the head: the first page is never empty; no command)
-- (and messages that all went to pages after the first neither)
local later = pageScores ~= nil and #scores == 0 and not pagedHead
local rank = (n == 1 and not later) and redis.pcall('ZRANK', loneKey or PENDING, earliestId) or nil
if later then
  woken = false
elseif n == 1 and loneKey and type(rank) == 'number' then
  -- a lone message in the first page (the one without a fence): the topic's head only if first in its page, and
  -- nothing earlier waits in pending; a page split since moved it only if it was not the first of its page
  woken = rank == 0
  if woken then
    local head = redis.call('ZRANGE', PENDING, 0, 0, 'WITHSCORES')
    woken = head[2] == nil or tonumber(head[2]) >= earliest
  end
elseif type(rank) == 'number' then
  woken = rank == 0
else
  local head = redis.call('ZRANGE', PENDING, '0', '0', 'WITHSCORES')
  local headId, headDue = head[1], tonumber(head[2])
  if pageScores then
    -- (the topic's head: the earlier of pending's and the pages')
    local pageDue, pageId = pagesHead()
    if pageDue and (headDue == nil or pageDue < headDue) then
      headId, headDue = pageId, pageDue
    end
    for k = 1, #pageScores do
      scores[#scores + 1] = pageScores[k]
    end
  end
  woken = headId == earliestId
  if not woken and headDue == earliest then
    -- a tie: the head is ours if this call stored it (rare, so the scan)
    for k = 2, #scores, 2 do
      if scores[k] == headId then
        woken = true
        break
      end
    end
  end
end
if woken then
  if not nowUs then
    local t = redis.call('TIME')
    nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])
  end
  redis.call('PUBLISH', BASE .. 'wake', string.format('%.0f', math.max(0, math.ceil(earliest - nowUs / 1000))))
end
return (n == 1) and 1 or out
