-- uses: controls
-- Reads or changes a topic's controls (one partition's), which every instance's claims follow: pause and resume, a
-- rate limit (handler starts per second, with a burst) and a cap on the messages leased at once. A change wakes the
-- consumers, so that a resumed or loosened topic delivers what is due at once.
-- ARGV[1] 'read' | 'pause' | 'resume' | 'limit'; for 'limit': ARGV[2] rate ('' for none), ARGV[3] burst, ARGV[4] cap
-- ('' for none)
-- Returns {paused (0 or 1), rate (false: none), burst (false: none), cap (false: none)}.
local op = ARGV[1]
if op == 'pause' then
  redis.call('HSET', CONTROL, 'paused', '1')
elseif op == 'resume' then
  if redis.call('HDEL', CONTROL, 'paused') == 1 then
    redis.call('PUBLISH', WAKE, '0')
  end
elseif op == 'limit' then
  if ARGV[2] == '' then
    redis.call('HDEL', CONTROL, 'rate', 'burst', 'tokens', 'at')
  else
    -- a new rate starts with a full bucket; the same rate set again (a restart applying its properties) keeps the
    -- bucket as it is, so a restart is no burst
    if redis.call('HGET', CONTROL, 'rate') ~= ARGV[2] then
      redis.call('HDEL', CONTROL, 'tokens', 'at')
    end
    redis.call('HSET', CONTROL, 'rate', ARGV[2], 'burst', ARGV[3])
  end
  if ARGV[4] == '' then
    redis.call('HDEL', CONTROL, 'cap', 'refused')
  else
    redis.call('HSET', CONTROL, 'cap', ARGV[4])
  end
  redis.call('PUBLISH', WAKE, '0')
end
local c = redis.call('HMGET', CONTROL, 'paused', 'rate', 'burst', 'cap')
return {c[1] and 1 or 0, c[2], c[3], c[4]}
