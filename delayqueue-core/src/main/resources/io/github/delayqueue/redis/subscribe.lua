-- uses:
-- Declares a subscription of a topic (see the fanout module): from this call on, the topic's messages that fall due
-- fan out to it too; or lists them.
-- KEYS[1]: the topic's (or one of its partitions') pending set.
-- ARGV[1]: the subscription's name ('' to only list).
-- Returns the subscriptions declared, name and the Redis time (ms) it was declared, name, time, ... (before this call).
local subs = TOPIC_BASE .. 'subs'
local declared = redis.call('HGETALL', subs)
if ARGV[1] ~= '' then
  local now = clock()
  if redis.call('HSETNX', subs, ARGV[1], int(now)) == 1 then
    redis.call('HSET', TOPIC_META, 'subs', '1')
  end
end
return declared
