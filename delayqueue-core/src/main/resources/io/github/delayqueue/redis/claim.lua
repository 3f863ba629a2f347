-- uses: controls, claimread, groups, priorities, pages, buckets, leases, dead, fanout, claims, v1, format1
-- What a consumer sends for more messages: acknowledges what its handlers delivered (each only if its lease is the
-- current one), returns expired leases to the pending set at their original due time (each a suspect now, its
-- attempt counted if it was a suspect's), adopts some format-1 messages; then leases up to ARGV[1] due messages under
-- one token (see leaseDue); then trims dead letters past their age and merges buckets, if it leased none, or else at
-- most once a second.
-- ARGV[1] messages to lease (0: only the acknowledgements and the upkeep), ARGV[2] lease ms, ARGV[3] max attempts,
-- ARGV[4] dead letter max count, ARGV[5] dead letter max age ms, ARGV[6] 1 if a suspect may be leased, else 0,
-- ARGV[7] the Redis time (ms) after which the caller no longer waits for the reply (0: none): run later, the claim
-- acknowledges and does its upkeep but leases nothing (no message waits for a consumer that gave up on it);
-- ARGV[8] the lookahead in microseconds: messages due that soon are leased too (0: only those due now; the consumer
-- starts none before its due time, reckoned from this call's Redis time); ARGV[9] the consumer's id ('' for none: then
-- ARGV[10] and ARGV[11] are not read), ARGV[10] this claim's number (a consumer numbers its claims, one at a time, in
-- order), ARGV[11] the number of the consumer's last claim whose reply it received (0: none), so that the messages of a
-- claim whose reply it never received go back at once (see handBackUnseen; the claims hash keeps each consumer's last
-- claim that leased messages), and a copy of a claim that runs after a later claim of its consumer leases nothing;
-- then id, token, hash, id, token, hash, ... to acknowledge (the hash of each id as BucketHash.java computes it: see the
-- prelude's acknowledge)
-- The topic's controls (pause, cap, rate: see admit) may lease fewer; the delay then says when a claim may lease
-- again (the next token; none while paused or at the cap, whose consumers are woken when it changes).
-- Returns {the Redis time (microseconds) as the script ends, delay in microseconds to the next due time or lease deadline (-1: none), buried count,
-- the id of the suspect leased ('' if none), the token of the leases ('' if none), expired count, then per message: id,
-- due score (ms, to the microsecond), attempt, envelope, expiry ('<deadline ms>:<d|x>'; '' if none)}. A suspect left because it could not be leased does not count as due
-- now for the delay.
-- the controls, read before the acknowledgements, which wake consumers if the cap had cut a claim short
readControls()
acknowledge(12, #ARGV, true)
local now, nowUs = clock()
local consumer = (ARGV[9] ~= '') and ARGV[9] or nil
local stale = false
if consumer then
  local handedBack, earliestBack, groupsBack
  handedBack, stale, earliestBack, groupsBack = handBackUnseen(consumer, tonumber(ARGV[10]), tonumber(ARGV[11]))
  if handedBack > 0 then
    -- none of them started: under a rate limit their tokens go back (before this claim counts its own), and under
    -- group rate limits their groups' tokens
    giveBack(handedBack, now)
    groupGiveBack(groupsBack, now)
    -- pending again: other consumers may take what this claim has no room for, once due; under a cap, their slots are
    -- free again
    wakeForHandedBack(earliestBack, nowUs, slotsFreed())
  end
end
local nowScore = score(nowUs)
local limit = tonumber(ARGV[1])
local leaseMillis = tonumber(ARGV[2])
local maxAttempts = tonumber(ARGV[3])
local deadMaxCount = tonumber(ARGV[4])
local deadMaxAge = tonumber(ARGV[5])
local suspects = tonumber(ARGV[6])
local deadline = tonumber(ARGV[7])
local lookahead = tonumber(ARGV[8])
if (deadline > 0 and now > deadline) or stale then
  limit = 0
end

migrate(100, now)
local expired = redis.call('ZRANGEBYSCORE', LEASED, '-inf', int(now), 'LIMIT', 0, 1000)
if #expired > 0 then
  -- (they get suspect marks and maybe counts)
  noMarks = false
  local leases = hmget(LEASE, expired)
  local unreadable = {}
  for k, id in ipairs(expired) do
    if parseLease(leases[k]) == nil then
      unreadable[#unreadable + 1] = id
    end
  end
  local unreadableTries = hmget(TRIES, unreadable)
  local tries, scores, u = {}, {}, 0
  -- groups: a grouped message whose lease ran out leaves its group's count, and waits in pending as a suspect
  local ended = {}
  for k, id in ipairs(expired) do
    local _, due, attempt, group = parseLease(leases[k])
    noteGroup(ended, group)
    if due == nil then
      -- unreadable lease: count an attempt, as if it had been a suspect's (never a crash loop)
      u = u + 1
      attempt = (count(unreadableTries[u]) or 0) + 1
    end
    local at = due or nowScore
    if attempt > 0 then
      -- a suspect's run, counted when it was leased: the count stays; and it waits a lease more before it runs again
      -- (it may well have killed its consumer once more), so that consumers do not die one after another as fast
      -- as its leases run out
      tries[#tries + 1] = id
      tries[#tries + 1] = attempt
      at = math.max(at, nowScore + leaseMillis)
    end
    scores[#scores + 1] = at
    scores[#scores + 1] = id
  end
  each('ZADD', PENDING, scores)
  each('HSET', TRIES, tries)
  -- no outcome came: any of them may have killed its consumer, and each runs alone from now on
  each('SADD', SUSPECT, expired)
  each('ZREM', LEASED, expired)
  each('HDEL', LEASE, expired)
  groupLeasesEnded(ended)
end
-- subscriptions: the topic's due messages move to every subscription's sets first (one fan-out serves them all); a topic
-- with subscriptions leases none of its own, since its messages are theirs
local topicLeft = nil
local fanning = SUBSCRIBED or metaRead.subs
if fanning then
  local topicLease = SUBSCRIBED and topicLeasesEnded(now, nowScore, leaseMillis) or nil
  local declared
  topicLeft, declared = fanOut(nowScore + lookahead / 1000)
  if topicLease and (topicLeft == nil or topicLease < topicLeft) then
    topicLeft = topicLease
  end
  -- (a subscription being removed leases nothing more: what it holds is being forgotten)
  if not declared then
    limit = 0
  end
end
local out = {int(nowUs), -1, 0, '', '', 0}
local left = nil
local cut = nil
local wanted = limit
if limit > 0 then
  limit, cut = admit(limit, now)
end
if limit > 0 then
  -- no lookahead for a topic with controls: its rate counts starts, and a pause or its cap stops what is not due yet
  local upTo = (cut == nil) and (nowScore + lookahead / 1000) or nowScore
  out[3], left = leaseDue(limit, now, nowScore, upTo, leaseMillis, maxAttempts, deadMaxCount, deadMaxAge, suspects, out)
end

if consumer and not stale and out[5] ~= '' then
  local ends = now + leaseMillis
  redis.call('HSET', CLAIMS, consumer, ARGV[10] .. ':' .. out[5] .. ':' .. int(ends))
  claimRecorded(ends)
end

local next = earliestBeyond(PENDING, left)
-- pages (stored format 5): their earliest (none read in a topic without pages)
if paged() then
  local pageNext = pagesHead()
  if pageNext and (next == nil or pageNext < next) then
    next = pageNext
  end
end
-- groups: the earliest turn of a group (none read for a topic without groups)
local turn = earliestTurn()
if turn and (next == nil or turn < next) then
  next = turn
end
-- priorities: the earliest due time among the levels' sets (none read for a topic that never stored a priority)
local levelNext = earliestLevel()
if levelNext and (next == nil or levelNext < next) then
  next = levelNext
end
-- subscriptions: the earliest message still waiting in the topic's sets, which fans out when due
if topicLeft and (next == nil or topicLeft < next) then
  next = topicLeft
end
if cut then
  local token = spend(cut, (#out - 6) / 5, now, wanted)
  if next and (cut.paused or (next <= nowScore and capReached(cut))) then
    -- nothing is leased while paused; under the cap, a lease that ends wakes the consumers
    next = nil
  elseif next and token and next < token then
    next = token
  end
end
-- the earliest lease deadline; a lone anchor goes here (the acknowledgements above ended the last leases, or a 0.2
-- consumer beside this version did)
local lease = earliestLeaseEnd()
if lease and (next == nil or lease < next) then
  next = lease
end
-- the upkeep (dead letters past their age, fewer buckets for a topic that shrank) on a claim that leased nothing, and
-- at most once a second on those that did, so that the claims that carry messages to their handlers stay short
if #out == 6 or lastUpkeep == nil or now - lastUpkeep >= 1000 or lastUpkeep > now then
  if #out > 6 then
    redis.call('HSET', META, 'upkeep', now)
  end
  trimDead(now, deadMaxCount, deadMaxAge)
  forgetClaims(now)
  if bucketCount > 1 then
    resizing().shrink()
  end
end
if #out > 6 then
  -- the time the reply leaves (not the start's): a consumer that reckons due times from it is closer to them, and
  -- never ahead of Redis, since its reply comes later still; the delay below counts from it too
  local _, endUs = clock()
  nowUs = endUs
  out[1] = int(nowUs)
end
if next ~= nil then
  out[2] = delayUs(next, nowUs)
end
return out
