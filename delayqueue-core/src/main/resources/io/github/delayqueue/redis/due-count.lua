-- uses: pages, v1
-- Counts the waiting messages (scheduled or waiting for a retry, in both formats) by when they fall due, in
-- consecutive windows: one ZCOUNT per window, O(log n) each, and no message read, however many wait; in a topic with
-- pages (stored format 5) one ZCOUNT more per page due before the last window ends (see pagesWindows), at most
-- ARGV[2] pages a call: a count that spans more goes on in further calls, each given where the last stopped.
-- ARGV[1]: '' for the first call, else the place in the pages' order the previous call returned (see pagesWindows); ARGV[2] the most pages a call
-- walks (at least 1; the client's 1,000 are a few milliseconds of Redis time); then the windows' edges as due
-- scores (ms, to the microsecond), ascending: window k holds the messages due at or after edge k and before edge
-- k + 1, so a message due exactly on an edge is counted once, in the window the edge starts.
-- Returns {the place to go on from ('' when done), the pages' count of messages now (meta's), how many of the pages' messages this call counted, due before the first edge, the count of each window,
-- due at or after the last edge}: a first call counts pending, the priority levels and format 1 and the pages it
-- walks; a further call only the pages it walks; the messages in pages at or after the last edge are for the caller
-- to add: the pages' count less all that the calls counted of them.
local from = ARGV[1]
local most = tonumber(ARGV[2])
if not most or most < 1 then
  error({ err = 'delayqueue: the most pages a count walks must be a number of at least 1, got ' .. tostring(ARGV[2]) })
end
local edges = {}
for k = 3, #ARGV do
  edges[k - 2] = ARGV[k]
end
local first = from == ''
local format1 = first and redis.call('EXISTS', V1_DUE) == 1
-- priorities (see the prelude's priorities section): the waiting messages of levels other than the default wait in
-- their own sets, listed in meta's 'prio' (one command, and none more for a topic that never stored a priority)
local levels = {}
for digit in string.gmatch(first and redis.call('HGET', BASE .. 'meta', 'prio') or '', '%d') do
  levels[#levels + 1] = BASE .. 'p' .. digit
end
local function between(min, max)
  if not first then
    return 0
  end
  local n = redis.call('ZCOUNT', PENDING, min, max)
  for _, key in ipairs(levels) do
    n = n + redis.call('ZCOUNT', key, min, max)
  end
  if format1 then
    n = n + redis.call('ZCOUNT', V1_DUE, min, max)
  end
  return n
end
local out = { '', 0, 0, between('-inf', '(' .. edges[1]) }
for k = 1, #edges - 1 do
  out[#out + 1] = between(edges[k], '(' .. edges[k + 1])
end
out[#out + 1] = between(edges[#edges], '+inf')
-- pages (stored format 5): the messages of a first wait (none read for a topic without pages), added window by window
local inPages = tonumber(redis.call('HGET', META, 'paged')) or 0
if inPages > 0 or not first then
  local counts, next = pagesWindows(edges, from, most)
  local counted = 0
  for k = 1, #counts do
    out[k + 3] = out[k + 3] + counts[k]
    counted = counted + counts[k]
  end
  out[1] = next or ''
  out[2] = inPages
  out[3] = counted
end
return out
