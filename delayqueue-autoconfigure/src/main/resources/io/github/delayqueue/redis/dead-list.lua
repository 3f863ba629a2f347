-- Lists dead letters, oldest first.
-- KEYS[1] msgs, KEYS[2] dead, KEYS[3] attempts, KEYS[4] errors; ARGV[1] offset, ARGV[2] limit
-- Returns per dead letter: id, died at ms, attempts (or false), error (or false), envelope (or false).
local offset = tonumber(ARGV[1])
local ids = redis.call('ZRANGE', KEYS[2], offset, offset + tonumber(ARGV[2]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #ids, 2 do
  local id = ids[i]
  out[#out + 1] = id
  out[#out + 1] = ids[i + 1]
  out[#out + 1] = redis.call('HGET', KEYS[3], id)
  out[#out + 1] = redis.call('HGET', KEYS[4], id)
  out[#out + 1] = redis.call('HGET', KEYS[1], id)
end
return out
