-- A topic's controls, set by operators and followed by every instance (absent for a topic that uses none): paused
-- ('1'), rate (handler starts per second) with burst (the most tokens saved up) and the token bucket's state (tokens,
-- at: ms), cap (the most messages leased at once), refused ('1' while a claim was cut by the cap).
local CONTROL = BASE .. 'control'

-- What a claim read of the controls (see readControls), so that it pays one command for them, not two; nil: not read.
local controls = nil

-- After leases ended (acknowledged, failed, handed back): if the cap cut a claim short, wake the consumers, since a
-- slot is free now. One command for a topic without a cap; none if the controls were read (readControls) and no
-- claim was cut short. Returns whether it woke them.
local function slotsFreed()
  if controls ~= nil and not controls[7] then
    -- read at the start of this script: no claim was cut short
    return false
  end
  if redis.call('HDEL', CONTROL, 'refused') == 1 then
    redis.call('PUBLISH', WAKE, '0')
    return true
  end
  return false
end

-- Reads the topic's controls once for the whole script: paused, rate, burst, tokens, at, cap, refused, the default
-- cap of its groups (see the groups section), its priority mode ('strict', or absent: weighted; see the priorities
-- section), the default rate limit of its groups and whether any group has a rate of its own (see the groups' rate
-- limits).
-- Read whole (the hash holds these fields and no others): a topic that uses no control has no hash, and its empty
-- reply costs a claim far less than eleven absent fields of an HMGET would; an absent field is nil.
local function readControls()
  local raw = redis.call('HGETALL', CONTROL)
  controls = {}
  if #raw > 0 then
    local byName = {}
    for i = 1, #raw, 2 do
      byName[raw[i]] = raw[i + 1]
    end
    for i, field in ipairs({ 'paused', 'rate', 'burst', 'tokens', 'at', 'cap', 'refused', 'gcap', 'pmode', 'grate',
        'grated' }) do
      controls[i] = byName[field]
    end
  end
  return controls
end

-- The tokens in the rate's bucket at 'now' (ms), refilled on the Redis clock since they were last counted (a full
-- bucket if they never were), from the controls read; the rate and the burst too.
local function tokensAt(c, now)
  local rate, burst = tonumber(c[2]), tonumber(c[3])
  return math.min(burst, (tonumber(c[4]) or burst) + math.max(0, now - (tonumber(c[5]) or now)) * rate / 1000),
      rate, burst
end

-- After 'n' leased messages went back to pending unstarted (a consumer handed them back, or a claim whose reply never
-- came was undone): under a rate limit, their tokens go back to the bucket, so that a message does not pay again when
-- it is leased anew. A rate counts handler starts, and a claim spends a token per message it leases; a message handed
-- back unstarted did not start. The tokens go back to the bucket they came from, which never holds more than the
-- burst: no token is made that the rate did not give, and the starts over any time are bounded as before (a consumer
-- that held the messages could have started them at this moment just as well). A token comes back for each message
-- whether or not its lease spent one (one leased before the rate was set, say), which the burst bounds too. O(1): one
-- command for the whole hand-back, and only for a topic with a rate. Needs the controls read (readControls).
local function giveBack(n, now)
  local c = controls
  if n <= 0 or not c[2] then
    return
  end
  local tokens, _, burst = tokensAt(c, now)
  c[4], c[5] = tostring(math.min(burst, tokens + n)), int(now)
  redis.call('HSET', CONTROL, 'tokens', c[4], 'at', c[5])
end
