-- uses:
-- Replaces a recurring schedule's definition only if it is still the one the caller read (compare and set), so that
-- two instances changing one schedule at the same time (a definition here, a pause there) never lose each other's
-- change: the one that finds it changed reads it again. KEYS[1] is the hash of definitions (not a topic's key).
-- ARGV: name, '1' if the caller read a definition ('0' if none), the definition read, the new definition
-- Returns 1 (replaced) or 0 (it had changed: nothing changed).
local current = redis.call('HGET', KEYS[1], ARGV[1])
if (ARGV[2] == '1' and current ~= ARGV[3]) or (ARGV[2] ~= '1' and current) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
return 1
