-- The prelude's first module, which every delayqueue script uses (fixed resources: no script text is ever built from
-- input). Stored format 2. The prelude is in modules, one file each in this folder: base, controls, claimread, expiryread,
-- groups, priorities, pages, buckets, leases, dead, fanout, claims, v1, format1 (ScriptLibrary.MODULES, in that order).
--
-- KEYS[1] is the topic's pending set, <prefix>:{<topic>}:pending; KEYS[2], its meta hash, is declared beside it and not
-- read from KEYS (Script.metaKeyOf: a cluster slot on the move runs a call where both are). Every other key of the topic shares its hash tag
-- (so a script touches one cluster slot) and is named here:
--   pending   ZSET  id -> due time (Redis-clock ms, to the microsecond): scheduled and retry-waiting messages (a plain
--                   message's first wait is in a page instead, stored format 5: see the pages module)
--   leased    ZSET  id -> lease deadline (ms): claimed messages, whether their handler has started or not
--   lease     HASH  id -> "<token>:<due ms>:<attempt>" for every leased message: the attempt counted for a suspect
--                   before its handler starts, 0 for a message leased in a batch (counted only if it fails); the
--                   token (one per claim) fences every later call (ack, extend, fail, release), so a stale consumer
--                   never touches a later claim
--   body:<n>  HASH  id -> envelope, in buckets that grow and shrink with the topic (linear hashing), so that each
--                   stays a small listpack-encoded hash: a message costs a few bytes more than its id and envelope
--   meta      HASH  buckets -> bucket count; token -> last lease token handed out; upkeep -> when a claim that
--                   leased messages last did the upkeep (ms); expiry -> '1' once the topic stored a message with an
--                   expiry deadline (only then do claims read the expiry hash; absent in a topic stored before 0.3,
--                   which had no expiries); claims -> no later than the earliest lease end among the claims records
--                   (ms; past them all if there is none): the upkeep reads the records only once it has passed
--                   (absent: not known, read at the next upkeep)
--   tries     HASH  id -> attempts counted so far (failures, and suspects' runs; absent before the first); while a
--                   suspect is leased, its lease record carries the count
--   suspect   SET   ids of messages whose lease ran out without an outcome (the message may have killed its consumer),
--                   until a handler's outcome is known (ack, retry, dead letter); a claim leases at most one, and
--                   only to a consumer that runs no other suspect and runs it alone, so that a message that kills its
--                   JVM uses up its own attempts and never takes its neighbours down with it again
--   buried    ZSET  id -> time it died (ms): dead letters; their envelopes stay in the buckets
--   error     HASH  id -> last error of a retrying or dead message
-- and the pub/sub channel <prefix>:{<topic>}:wake, on which the delay to a new earliest due time is published.
-- Format 1 keys (msgs, due, inflight, attempts, dead, errors) are read and migrated, never written.
--   claims  HASH  consumer id -> '<claim number>:<token>:<lease end>' of its last claim that leased messages, until
--                   the upkeep after that lease ended: a claim whose reply its consumer never received is undone
--                   (handBackUnseen)
--   control HASH  the topic's pause, rate limit and concurrency cap (see the controls section)
--   expiry  HASH  id -> deadline of a message that carries one (see meta's expiry field)
-- Modules: 'base' is in every script; a script names the others it uses on a '-- uses:' line, and gets them in
-- that order. A module may use the ones before it: leases and dead use buckets, format1 uses v1. Each module names
-- the keys it uses. A module's top level holds helpers (local function), constants (local NAME = <literal>) and
-- its per-call set-up (every other statement: key names, state, reads such as the bucket count's): the library form
-- (ScriptLibrary.java) defines the helpers and constants once and runs the set-up per call, so keep to that shape.
local PENDING = KEYS[1]
local BASE = string.sub(PENDING, 1, -8)
-- A subscription's keys nest in its topic's, <prefix>:{<topic>}:s:<name>:<part> (docs/reference/subscriptions.md): its
-- own sets, leases, counts, marks and controls, with the messages' envelopes (and their buckets' count, in the topic's
-- meta) and the wake channel of its topic. For a topic (and a key outside any topic, such as the recurring
-- definitions), TOPIC_BASE is BASE.
local TOPIC_BASE = string.match(BASE, '^.-}:') or BASE
local SUBSCRIBED = TOPIC_BASE ~= BASE
local META = BASE .. 'meta'
local TOPIC_META = TOPIC_BASE .. 'meta'
local WAKE = TOPIC_BASE .. 'wake'

-- What a script reads of meta besides the bucket count, in the same command (see the buckets section): a list of
-- fields, set by a section such as claimread; nil for a script that reads the bucket count alone. What it read goes
-- in metaRead (field -> value, false if absent).
local metaAlso = nil
local metaRead = {}

-- Messages per bucket on average before a bucket splits; the fullest buckets hold about twice this, well under
-- the 128 entries up to which Redis keeps a hash listpack-encoded by default. 20 since 0.3 (40 before: a topic stored
-- then splits as it grows): an HSETNX or HGET scans its bucket's listpack, and at 20 a lone schedule ran 4 % fewer
-- instructions for the same splitting work (schedule-plain.lua uses the same number).
local BUCKET_FILL = 20

-- An integer as Redis text (no exponent, no fraction).
local function int(value)
  return string.format('%.0f', value)
end

-- The Redis clock: milliseconds (for leases and deaths) and microseconds (for due times).
local function clock()
  local t = redis.call('TIME')
  local us = tonumber(t[1]) * 1000000 + tonumber(t[2])
  return math.floor(us / 1000), us
end

-- A time in microseconds as a score in milliseconds, to the microsecond (a double: Redis keeps scores as doubles, so
-- comparing scores compares the microseconds up to the 22nd century, and a message is never due before server time
-- at scheduling plus the delay it was sent: its delay less the time its call had taken before it was sent).
local function score(us)
  return us / 1000
end

-- A due time from a schedule argument: a delay in microseconds from now ('d'), or an absolute time in ms ('a').
local function dueScore(kind, value, nowUs)
  if kind == 'd' or kind == 'D' then
    return score(nowUs + tonumber(value))
  end
  return value
end

-- The delay from now (ms) to a due score, rounded up: what the wake channel carries.
local function delayTo(due, nowUs)
  return int(math.max(0, math.ceil(tonumber(due) - nowUs / 1000)))
end

-- The delay from now in microseconds to a score, rounded up: what claims return, for a precise wake-up.
local function delayUs(due, nowUs)
  return int(math.max(0, math.ceil(tonumber(due) * 1000 - nowUs)))
end

-- A non-negative integer read from Redis (below 2^53, so exact), or nil if absent; false if present but not such an
-- integer ('inf', a fraction, text...).
local function count(raw)
  if not raw then
    return nil
  end
  local n = tonumber(raw)
  if not n or n < 0 or n >= 9007199254740992 or n ~= math.floor(n) then
    return false
  end
  return n
end

-- Runs a command that takes a key and any number of arguments over a list of them, a thousand at a time (unpack is
-- limited by Lua's stack): one call per batch of messages, not one per message. Lists of pairs stay whole.
local function each(command, key, args)
  for i = 1, #args, 1000 do
    redis.call(command, key, unpack(args, i, math.min(#args, i + 999)))
  end
end

-- The earliest score among the sorted sets 'keys' (a number; nil: all empty or absent). One command per set.
local function earliestIn(keys)
  local first = nil
  for _, key in ipairs(keys) do
    local head = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
    if head and (first == nil or head < first) then
      first = head
    end
  end
  return first
end

-- HMGET over a list of fields (none: an empty list); absent fields are false. With 'command' SMISMEMBER: 1 or 0 per
-- member.
local function hmget(key, fields, command)
  command = command or 'HMGET'
  if #fields <= 1000 then
    return (#fields > 0) and redis.call(command, key, unpack(fields)) or {}
  end
  local values = {}
  for i = 1, #fields, 1000 do
    local part = redis.call(command, key, unpack(fields, i, math.min(#fields, i + 999)))
    for k = 1, #part do
      values[#values + 1] = part[k]
    end
  end
  return values
end
