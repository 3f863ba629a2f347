-- uses: controls, buckets, leases, dead, v1, format1
-- Moves the due time of a waiting message.
-- ARGV[1] id, ARGV[2] kind ('d' delay in microseconds | 'a' absolute epoch ms), ARGV[3] value
-- Returns 1 if it was waiting and has moved, else 0.
local id = ARGV[1]
if not redis.call('ZSCORE', PENDING, id) and not (redis.call('ZSCORE', V1_DUE, id) and adoptOne(id)) then
  return 0
end
local _, nowUs = clock()
local due = dueScore(ARGV[2], ARGV[3], nowUs)
redis.call('ZADD', PENDING, 'XX', due, id)
wakeIfHead(id, due, nowUs)
return 1
