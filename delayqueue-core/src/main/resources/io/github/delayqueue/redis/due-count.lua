-- uses: pages, v1
-- Counts the waiting messages (scheduled or waiting for a retry, in both formats) by when they fall due, in
-- consecutive windows: one ZCOUNT per window, O(log n) each, and no message read, however many wait; in a topic with
-- pages (stored format 5) one ZCOUNT more per page due before the last window ends (see pagesWindows).
-- ARGV: the windows' edges as due scores (ms, to the microsecond), ascending: window k holds the messages due at or
-- after ARGV[k] and before ARGV[k + 1], so a message due exactly on an edge is counted once, in the window the edge
-- starts.
-- Returns {due before ARGV[1], the count of each window, due at or after ARGV[#ARGV]}.
local format1 = redis.call('EXISTS', V1_DUE) == 1
-- priorities (see the prelude's priorities section): the waiting messages of levels other than the default wait in
-- their own sets, listed in meta's 'prio' (one command, and none more for a topic that never stored a priority)
local levels = {}
for digit in string.gmatch(redis.call('HGET', BASE .. 'meta', 'prio') or '', '%d') do
  levels[#levels + 1] = BASE .. 'p' .. digit
end
local function between(min, max)
  local n = redis.call('ZCOUNT', PENDING, min, max)
  for _, key in ipairs(levels) do
    n = n + redis.call('ZCOUNT', key, min, max)
  end
  if format1 then
    n = n + redis.call('ZCOUNT', V1_DUE, min, max)
  end
  return n
end
local out = { between('-inf', '(' .. ARGV[1]) }
for k = 1, #ARGV - 1 do
  out[#out + 1] = between(ARGV[k], '(' .. ARGV[k + 1])
end
out[#out + 1] = between(ARGV[#ARGV], '+inf')
-- pages (stored format 5): the messages of a first wait (none read for a topic without pages), added window by window
local inPages = tonumber(redis.call('HGET', META, 'paged')) or 0
if inPages > 0 then
  local counts = pagesWindows(ARGV, inPages)
  for k = 1, #out do
    out[k] = out[k] + counts[k]
  end
end
return out
