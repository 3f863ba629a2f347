-- uses:
-- Hands a recurring schedule's cursor over from the partition where builds before 0.3.0 kept it (the partition of
-- the schedule's name by the instance's own partition count) to the topic's first partition, where every instance
-- keeps it now whatever its count. Run on the old partition: marks its definition digest as moved, so that a tick
-- computed by an instance of an earlier build is refused there from now on (tick.lua of that build checks it), and
-- returns what was there, atomically.
-- ARGV: name
-- Returns {digest or false, cursor or false}.
local CURSOR = BASE .. 'recurring'
local name = ARGV[1]
local digest = redis.call('HGET', CURSOR, name .. ':def')
local cursor = redis.call('HGET', CURSOR, name)
if digest and digest ~= 'moved' then
  redis.call('HSET', CURSOR, name .. ':def', 'moved')
elseif digest == 'moved' then
  digest = false
end
return { digest, cursor }
