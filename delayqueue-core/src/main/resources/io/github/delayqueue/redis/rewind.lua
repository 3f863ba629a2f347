-- uses: controls, groups, buckets, leases, dead
-- A recurring schedule's definition changed (defined, edited, paused, resumed or removed): records the digest of the
-- definition now stored (tick.lua stores no tick computed from another, so a tick computed from a definition read
-- before the change is refused), and unless only resumed, withdraws its tick messages that wait for a tick after
-- the Redis clock's now (never one that was attempted) and sets its cursor to now (the later of the Redis clock's and
-- the caller's), so that its next ticks are computed afresh from the new definition and never again at or below a
-- tick that was delivered. A tick that stays (attempted, or leased ahead of its time) keeps the cursor at or past it,
-- so that tick.lua never takes it for another message's id. A tick stored under an alias (see tick.lua) is withdrawn
-- under its alias, and the message whose id it avoided is left alone.
-- The candidates are the ticks up to the cursor the caller read: a reset is refused if the cursor has moved since (an
-- instance that read the definition before the change stored a later tick meanwhile, which the candidates miss), so
-- that the caller reads it again and names that tick too; once the digest is recorded no such tick is stored.
-- ARGV: name, digest of the stored definition ('-' once removed), reset ('1' or '0'), the caller's now (epoch ms),
-- the cursor the candidates were computed up to ('' if none was stored, '*' to skip the check), then candidate tick
-- ids ('<name>@<tick ms>')
-- Returns how many waiting ticks were withdrawn, or -1 (the cursor moved since the caller read it: nothing changed).
local CURSOR = BASE .. 'recurring'
local name = ARGV[1]
if ARGV[3] == '1' and ARGV[5] ~= '*' then
  local current = redis.call('HGET', CURSOR, name)
  if (ARGV[5] == '' and current) or (ARGV[5] ~= '' and tonumber(current) ~= tonumber(ARGV[5])) then
    return -1
  end
end
redis.call('HSET', CURSOR, name .. ':def', ARGV[2])
if ARGV[3] ~= '1' then
  return 0
end
local nowMs = clock()
local ALIASES = name .. '@'
local aliasOf = {}
for alias in string.gmatch(redis.call('HGET', CURSOR, ALIASES) or '', '%S+') do
  local id = string.match(alias, '^(.*)~%d+$')
  if id then
    aliasOf[id] = alias
  end
end
redis.call('HDEL', CURSOR, ALIASES)
local withdrawn = 0
local cursor = math.max(nowMs, tonumber(ARGV[4]))
for i = 6, #ARGV do
  local id = aliasOf[ARGV[i]] or ARGV[i]
  local tick = tonumber(string.match(ARGV[i], '@(%d+)$'))
  local score = redis.call('ZSCORE', PENDING, id)
  if score and tonumber(score) > nowMs and redis.call('HEXISTS', TRIES, id) == 0 then
    redis.call('ZREM', PENDING, id)
    forget(id)
    withdrawn = withdrawn + 1
  elseif tick and tick > cursor and redis.call('HEXISTS', (bodyOf(id)), id) == 1 then
    cursor = tick
  end
end
redis.call('HSET', CURSOR, name, int(cursor))
return withdrawn
