-- uses:
-- Reads, and may set, how many partitions a topic has: kept in the meta hash of its first partition (the topic's
-- own keys); none kept yet for a topic never used with more than one.
-- KEYS[1]: the pending set of the topic's first partition.
-- ARGV[1]: '' to only read; else the count to keep, kept only if the count kept now is ARGV[2] ('0': none yet).
-- Returns the count kept before this call (0: none).
local stored = tonumber(redis.call('HGET', META, 'partitions') or '0')
if ARGV[1] ~= '' and stored == tonumber(ARGV[2]) then
  redis.call('HSET', META, 'partitions', ARGV[1])
end
return stored
