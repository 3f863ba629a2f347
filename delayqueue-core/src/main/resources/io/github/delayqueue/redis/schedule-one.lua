-- uses: none
-- schedule.lua for one message without a group (a lone call: a web request scheduling its order's timeout): the same
-- checks, writes and reply, with none of the prelude. A call of a script runs its whole text, and the prelude's base
-- and buckets sections (their helpers, key names and checks) made a fifth of the instructions Redis ran for a lone
-- schedule (153 k against 123 k per call, callgrind, a topic growing past 20,000), so this script names the few keys
-- and does the few steps it needs itself. What it does the prelude does too, and must do
-- alike: the bucket of an id and the split are the prelude's bodyOf and resizing().split (the buckets section); the
-- due time is its dueScore, the wake-up its delayTo. RedisMessageStoreTests compare the two layouts.
-- KEYS[1] the topic's pending set. ARGV: id, kind ('d' delay in microseconds | 'a' absolute epoch ms), value,
-- envelope (format 2: a message with a group or a priority other than the default goes through schedule.lua),
-- expiry ('<deadline ms>:<d|x>', '' for none), the id's bucket hash: the first eight hex digits of the SHA-1 of its
-- bytes, as bodyOf computes it (the client computes it: a redis.sha1hex here cost 6 % of the call)
-- Returns 1 (stored) or 0 (the id exists, waiting, leased or dead, in either format: nothing changed): a number, not
-- schedule.lua's list of one (a list reply cost 4 % of the call).
local PENDING = KEYS[1]
local BASE = string.sub(PENDING, 1, -8)
local META = BASE .. 'meta'
local id = ARGV[1]
local hash = ARGV[6] or ''
local h = tonumber(hash, 16)
if not h or #hash ~= 8 then
  error({ err = 'delayqueue: bucket hash must be eight hex digits, got \'' .. hash .. '\'' })
end
-- format 1's envelopes: an id stored there exists too
if redis.call('EXISTS', BASE .. 'msgs') == 1 and redis.call('HEXISTS', BASE .. 'msgs', id) == 1 then
  return 0
end
-- the bucket count, as the prelude reads and checks it: a script that cannot find envelopes changes nothing
local raw = redis.call('HGET', META, 'buckets')
local count = 1
if raw then
  count = tonumber(raw)
  if not count or count < 2 or count > 16777216 or count ~= math.floor(count) then
    error({ err = 'delayqueue: corrupt bucket count ' .. tostring(raw) .. ' in ' .. META })
  end
end
local low = 1
while low * 2 <= count do
  low = low * 2
end
local index = h % low
if index < count - low then
  index = h % (low * 2)
end
if redis.call('HSETNX', string.format('%sbody:%d', BASE, index), id, ARGV[4]) == 0 then
  return 0
end
-- the Redis clock, read only when needed: for a delay, or (below) for the wake-up's delay to a new earliest
local nowUs = nil
local due = ARGV[3]
if ARGV[2] == 'd' then
  local t = redis.call('TIME')
  nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])
  due = (nowUs + tonumber(due)) / 1000
end
redis.call('ZADD', PENDING, due, id)
if ARGV[5] ~= '' then
  redis.call('HSET', BASE .. 'expiry', id, ARGV[5])
  -- claims read the expiry hash only in a topic that ever stored an expiry (see the prelude's meta)
  redis.call('HSET', META, 'expiry', '1')
end
-- sizing the buckets: one message in sixteen (by its hash) estimates the messages the topic stores from two buckets,
-- this message's and one picked by other bits of its hash (each one's entries times the share of the hashes it holds:
-- one 2 * low-th for a bucket split in this round, below the split pointer or at or above low, else one low-th; two
-- commands), so the buckets lag the growth by a few messages at most; 20 messages per bucket on average (the
-- prelude's BUCKET_FILL), at most 64 splits per call; a split moves the entries of the bucket at the split pointer
-- whose hash has the next bit set to their new bucket (the prelude's resizing().grow, estimate and split, whose
-- comments tell why; and why a user whose rule lacks +hlen counts the sets instead)
if h % 16 == 0 then
  local total = 0
  for _, j in ipairs({ index, math.floor(h / 65536) % count }) do
    local n = redis.pcall('HLEN', string.format('%sbody:%d', BASE, j))
    if type(n) == 'table' then
      total = nil
      break
    end
    total = total + n * ((j < count - low or j >= low) and 2 * low or low) / 2
  end
  if total == nil then
    total = redis.call('ZCARD', PENDING) + redis.call('ZCARD', BASE .. 'leased') + redis.call('ZCARD', BASE .. 'buried')
  end
  local splits = 0
  -- (a quarter over the fill: the estimate is noisy and a split is not undone, see the prelude's estimate)
  while splits < 64 and total > count * 25 do
    splits = splits + 1
    local from = count - low
    local source = string.format('%sbody:%d', BASE, from)
    local entries = redis.call('HGETALL', source)
    local keep, move, gone = {}, {}, {}
    for i = 1, #entries, 2 do
      if tonumber(string.sub(redis.sha1hex(entries[i]), 1, 8), 16) % (low * 2) == from then
        keep[#keep + 1] = entries[i]
        keep[#keep + 1] = entries[i + 1]
      else
        move[#move + 1] = entries[i]
        move[#move + 1] = entries[i + 1]
        gone[#gone + 1] = entries[i]
      end
    end
    if #move > 0 then
      for i = 1, #move, 1000 do
        redis.call('HSET', string.format('%sbody:%d', BASE, from + low), unpack(move, i, math.min(#move, i + 999)))
      end
      if #entries > 256 then
        redis.call('DEL', source)
        for i = 1, #keep, 1000 do
          redis.call('HSET', source, unpack(keep, i, math.min(#keep, i + 999)))
        end
      else
        for i = 1, #gone, 1000 do
          redis.call('HDEL', source, unpack(gone, i, math.min(#gone, i + 999)))
        end
      end
    end
    count = count + 1
    if count == low * 2 then
      low = count
    end
    redis.call('HSET', META, 'buckets', count)
  end
end
-- the new earliest (or tying with it): wake the consumers with the delay to it, rounded up. ZRANK answers with a
-- number, where ZRANGE's reply is a list with the head's id (a table and a string for Lua): 2.5 % of the call. A
-- restricted Redis user whose rule predates 0.3 may lack +zrank (docs/reference/security.md): then the head is read
-- as before, so that nothing breaks (Redis logs each refusal: add +zrank)
local rank = redis.pcall('ZRANK', PENDING, id)
if type(rank) == 'table' then
  rank = (redis.call('ZRANGE', PENDING, '0', '0')[1] == id) and 0 or 1
end
if rank == 0 then
  if not nowUs then
    local t = redis.call('TIME')
    nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])
  end
  redis.call('PUBLISH', BASE .. 'wake', string.format('%.0f', math.max(0, math.ceil(tonumber(due) - nowUs / 1000))))
end
return 1
