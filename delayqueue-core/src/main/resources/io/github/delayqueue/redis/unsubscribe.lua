-- uses: groups, priorities, buckets, leases, dead
-- Removes a subscription (KEYS[1]: its pending set, see the fanout module), a chunk at a time: the first call takes it
-- off its topic's list, so that no message fans out to it any more (and a topic left without subscriptions leases its
-- own messages again); each call then forgets up to ARGV[1] of the messages it holds (waiting, leased or dead), each
-- envelope deleted once no other subscription holds its message; the call that finds none left deletes the rest of
-- its keys. The caller repeats it until it returns 0.
-- ARGV[2] '1' on the first call (which takes it off the list), '' on the others (so that a listener that declared it
-- again meanwhile keeps it declared; its claims lease nothing while it is not).
-- Returns how many messages the subscription still holds (0: it is gone).
if not SUBSCRIBED then
  error({ err = 'delayqueue: ' .. PENDING .. ' is not a subscription\'s' })
end
-- BASE is TOPIC_BASE .. 's:' .. name .. ':'
local name = string.sub(BASE, #TOPIC_BASE + 3, -2)
if ARGV[2] == '1' then
  redis.call('HDEL', TOPIC_BASE .. 'subs', name)
  if redis.call('HLEN', TOPIC_BASE .. 'subs') == 0 then
    redis.call('HDEL', TOPIC_META, 'subs')
  end
end
local room = tonumber(ARGV[1])
-- each message forgotten with what the subscription keeps for it (its lease record above all: a listener still
-- running must not acknowledge, fail or release it afterwards, which would count it off its topic's envelope twice)
local function forgetIn(key)
  if room <= 0 then
    return
  end
  local ids = {}
  for _, id in ipairs(redis.call('ZRANGE', key, 0, room - 1)) do
    -- (the leases' anchor is no message: it goes with the last lease, below)
    if id ~= ANCHOR then
      ids[#ids + 1] = id
    end
  end
  if #ids > 0 then
    dropEnvelopes(ids, {})
    each('ZREM', key, ids)
    each('HDEL', LEASE, ids)
    each('HDEL', TRIES, ids)
    each('HDEL', ERROR, ids)
    each('HDEL', EXPIRY, ids)
    each('SREM', SUSPECT, ids)
    room = room - #ids
  end
end
local sets = { PENDING, LEASED, BURIED }
for _, level in ipairs(storedLevels(redis.call('HGET', META, 'prio') or false)) do
  sets[#sets + 1] = levelKey(level)
end
for _, key in ipairs(sets) do
  forgetIn(key)
end
-- groups: those whose turn is kept, and those held (paused or at their cap)
local held = BASE .. 'gheld'
local groups = redis.call('ZRANGE', GROUPS, 0, 99)
for _, group in ipairs(redis.call('SRANDMEMBER', held, 100)) do
  groups[#groups + 1] = group
end
for _, group in ipairs(groups) do
  local keys = {}
  for _, set in ipairs(groupSets(group, redis.call('HGET', BASE .. 'gcontrol', 'l:' .. group))) do
    forgetIn(set[2])
    keys[#keys + 1] = set[2]
  end
  if redis.call('EXISTS', unpack(keys)) == 0 then
    redis.call('ZREM', GROUPS, group)
    redis.call('SREM', held, group)
  end
end
local left = redis.call('ZCARD', GROUPS) + redis.call('SCARD', held)
for _, key in ipairs(sets) do
  left = left + ((key == LEASED) and leaseCount() or redis.call('ZCARD', key))
end
if left == 0 then
  local rest = { LEASED, LEASE, TRIES, SUSPECT, ERROR, EXPIRY, BASE .. 'claims', BASE .. 'control', BASE .. 'gflight',
    BASE .. 'gcontrol' }
  redis.call('DEL', unpack(rest))
  -- the lease token counter alone stays: a subscription declared again never hands out a token an old handler holds
  local token = redis.call('HGET', META, 'token')
  redis.call('DEL', META)
  if token then
    redis.call('HSET', META, 'token', token)
  end
end
return left
