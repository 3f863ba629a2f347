-- Stores messages unless their id exists in the topic (waiting, leased or dead, in either format), and wakes
-- consumers when one becomes the new head.
-- ARGV: per message: id, kind ('d' delay in microseconds | 'a' absolute epoch ms), value, envelope
-- Returns per message 1 (stored) or 0 (the id exists: nothing changed).
local _, nowUs = clock()
local head = redis.call('ZRANGE', PENDING, 0, 0, 'WITHSCORES')
local headDue = tonumber(head[2])
local earliest = nil
local fullest = 0
local out = {}
for i = 1, #ARGV, 4 do
  local id = ARGV[i]
  local due = dueScore(ARGV[i + 1], ARGV[i + 2], nowUs)
  local body = bodyOf(id)
  if redis.call('HEXISTS', V1_MSGS, id) == 0 and redis.call('HSETNX', body, id, ARGV[i + 3]) == 1 then
    fullest = math.max(fullest, redis.call('HLEN', body))
    redis.call('ZADD', PENDING, due, id)
    out[#out + 1] = 1
    if earliest == nil or tonumber(due) < tonumber(earliest) then
      earliest = due
    end
  else
    out[#out + 1] = 0
  end
end
-- the topic can only need more buckets once a bucket holds BUCKET_FILL messages: count the topic only then
if fullest >= BUCKET_FILL then
  grow()
end
if earliest ~= nil and (headDue == nil or tonumber(earliest) < headDue) then
  redis.call('PUBLISH', WAKE, delayTo(earliest, nowUs))
end
return out
