-- uses: buckets
-- Stores messages unless their id exists in the topic (waiting, leased or dead, in either format), and wakes
-- consumers when one becomes the new head.
-- ARGV: per message: id, kind ('d' delay in microseconds | 'a' absolute epoch ms), value, envelope
-- Returns per message 1 (stored) or 0 (the id exists: nothing changed).
local _, nowUs = clock()
local head = redis.call('ZRANGE', PENDING, 0, 0, 'WITHSCORES')
local headDue = tonumber(head[2])
local earliest = nil
local batch = #ARGV / 4
local check = false
-- a batch makes room first, so its messages go straight to the buckets they stay in
if batch >= 16 then
  resizing().grow(batch)
end
-- format 1's envelopes (see the prelude's v1 section): an id stored there exists too
local V1_MSGS = BASE .. 'msgs'
local format1 = redis.call('EXISTS', V1_MSGS) == 1
local out = {}
local scores = {}
for i = 1, #ARGV, 4 do
  local id = ARGV[i]
  local due = dueScore(ARGV[i + 1], ARGV[i + 2], nowUs)
  local body, h = bodyOf(id)
  if not (format1 and redis.call('HEXISTS', V1_MSGS, id) == 1) and redis.call('HSETNX', body, id, ARGV[i + 3]) == 1 then
    -- counting the topic costs three commands: a single message does it one time in sixteen (by its hash), so the
    -- buckets lag the growth by a few messages at most
    check = check or (batch < 16 and h % 16 == 0)
    scores[#scores + 1] = due
    scores[#scores + 1] = id
    out[#out + 1] = 1
    if earliest == nil or tonumber(due) < tonumber(earliest) then
      earliest = due
    end
  else
    out[#out + 1] = 0
  end
end
for i = 1, #scores, 1000 do
  redis.call('ZADD', PENDING, unpack(scores, i, math.min(#scores, i + 999)))
end
if check then
  resizing().grow()
end
if earliest ~= nil and (headDue == nil or tonumber(earliest) < headDue) then
  redis.call('PUBLISH', WAKE, delayTo(earliest, nowUs))
end
return out
