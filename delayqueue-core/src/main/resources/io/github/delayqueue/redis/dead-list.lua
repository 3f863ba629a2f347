-- uses: controls, groups, buckets, leases, dead, v1, format1
-- Lists dead letters, oldest first (adopting format-1 dead letters first), after trimming those past their age.
-- ARGV[1] offset, ARGV[2] limit, ARGV[3] dead letter max count, ARGV[4] dead letter max age ms
-- Returns per dead letter: id, died at ms, attempts (or false), error (or false), envelope (or false).
local now = clock()
migrate(1000, now)
trimDead(now, tonumber(ARGV[3]), tonumber(ARGV[4]))
local offset = tonumber(ARGV[1])
local ids = redis.call('ZRANGE', BURIED, offset, offset + tonumber(ARGV[2]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #ids, 2 do
  local id = ids[i]
  out[#out + 1] = id
  out[#out + 1] = ids[i + 1]
  out[#out + 1] = redis.call('HGET', TRIES, id)
  out[#out + 1] = redis.call('HGET', ERROR, id)
  out[#out + 1] = redis.call('HGET', bodyOf(id), id)
end
return out
