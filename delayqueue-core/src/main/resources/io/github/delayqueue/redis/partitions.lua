-- uses:
-- Reads, and may set, how many partitions a topic has: kept in the meta hash of its first partition (the topic's
-- own keys), absent for one.
-- KEYS[1]: the pending set of the topic's first partition. ARGV[1]: the count to keep, or '' to only read it.
-- Returns the count kept before this call.
local stored = tonumber(redis.call('HGET', META, 'partitions') or '1')
local wanted = ARGV[1]
if wanted ~= '' then
  if tonumber(wanted) == 1 then
    redis.call('HDEL', META, 'partitions')
  else
    redis.call('HSET', META, 'partitions', wanted)
  end
end
return stored
