-- uses: buckets
-- Stores messages unless their id exists in the topic (waiting, leased or dead, in either format), and wakes
-- consumers when one becomes the new head.
-- ARGV: per message: id, kind ('d' delay in microseconds | 'a' absolute epoch ms), value, envelope
-- Returns per message 1 (stored) or 0 (the id exists: nothing changed).
local _, nowUs = clock()
local head = redis.call('ZRANGE', PENDING, 0, 0, 'WITHSCORES')
local headDue = tonumber(head[2])
local earliest = nil
local check = #ARGV >= 64
local out = {}
for i = 1, #ARGV, 4 do
  local id = ARGV[i]
  local due = dueScore(ARGV[i + 1], ARGV[i + 2], nowUs)
  local body, h = bodyOf(id)
  if redis.call('HEXISTS', V1_MSGS, id) == 0 and redis.call('HSETNX', body, id, ARGV[i + 3]) == 1 then
    check = check or h % 16 == 0
    redis.call('ZADD', PENDING, due, id)
    out[#out + 1] = 1
    if earliest == nil or tonumber(due) < tonumber(earliest) then
      earliest = due
    end
  else
    out[#out + 1] = 0
  end
end
-- counting the topic costs three commands: a single message does it one time in sixteen (by its hash), so the
-- buckets lag the growth by a few messages at most; a batch of sixteen or more messages always does it
if check then
  grow()
end
if earliest ~= nil and (headDue == nil or tonumber(earliest) < headDue) then
  redis.call('PUBLISH', WAKE, delayTo(earliest, nowUs))
end
return out
