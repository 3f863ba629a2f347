-- uses: controls, groups, priorities, pages, leases, dead, v1
-- Counts a topic's messages by state at one instant, in both formats, and finds the next due time.
-- Returns {ready, waiting, leased, dead, next due score (ms; false: nothing waits), retrying}: retrying counts the
-- messages that failed at least once and are not dead (their last error is kept until they are delivered, and every
-- dead letter has one), waiting for their next attempt or running it.
local _, nowUs = clock()
local nowText = score(nowUs)
local ready = redis.call('ZCOUNT', PENDING, '-inf', nowText) + redis.call('ZCOUNT', V1_DUE, '-inf', nowText)
local total = redis.call('ZCARD', PENDING) + redis.call('ZCARD', V1_DUE)
local next = false
for _, key in ipairs({PENDING, V1_DUE}) do
  local head = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if head[2] and (not next or tonumber(head[2]) < tonumber(next)) then
    next = head[2]
  end
end
-- pages (stored format 5): the messages of a first wait, counted in meta; those due counted page by page (a page is
-- at most 96 messages: a ZCOUNT per hundred or so of the due ones, none for a topic without pages)
local inPages = tonumber(redis.call('HGET', META, 'paged')) or 0
if inPages > 0 then
  total = total + inPages
  ready = ready + pagesDueBy(nowText)
  local pageNext = pagesHead()
  if pageNext and (not next or pageNext < tonumber(next)) then
    next = string.format('%.17g', pageNext)
  end
end
-- groups: the messages waiting in groups' sets, of the first thousand groups with a turn and the first thousand held
-- (a bounded read: one command a group; none for a topic without groups)
if redis.call('EXISTS', GROUPS, BASE .. 'gheld') > 0 then
  local names = redis.call('ZRANGE', GROUPS, 0, 999)
  local held = redis.call('SMEMBERS', BASE .. 'gheld')
  for i = 1, math.min(#held, 1000) do
    names[#names + 1] = held[i]
  end
  -- (priorities within a group: and each of its levels' sets, listed in gcontrol, read in one command)
  local fields = {}
  for i, group in ipairs(names) do
    fields[i] = 'l:' .. group
  end
  local levels = hmget(BASE .. 'gcontrol', fields)
  local seen = {}
  for i, group in ipairs(names) do
    if not seen[group] then
      seen[group] = true
      for _, set in ipairs(groupSets(group, levels[i])) do
        local key = set[2]
        local groupReady = redis.call('ZCOUNT', key, '-inf', nowText)
        ready = ready + groupReady
        total = total + redis.call('ZCARD', key)
        local head = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
        if head[2] and (not next or tonumber(head[2]) < tonumber(next)) then
          next = head[2]
        end
      end
    end
  end
end
-- priorities: the messages waiting in the levels' sets (none read for a topic that never stored a priority)
for _, level in ipairs(storedLevels(redis.call('HGET', META, 'prio') or false)) do
  local key = levelKey(level)
  ready = ready + redis.call('ZCOUNT', key, '-inf', nowText)
  total = total + redis.call('ZCARD', key)
  local head = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if head[2] and (not next or tonumber(head[2]) < tonumber(next)) then
    next = head[2]
  end
end
local dead = redis.call('ZCARD', BURIED) + redis.call('ZCARD', V1_DEAD)
-- HLEN joined the README's ACL rule in 0.3: a user still given the 0.2 rule counts no retrying message (0) rather
-- than failing every count
local function length(key)
  local n = redis.pcall('HLEN', key)
  return (type(n) == 'number') and n or 0
end
local failed = length(ERROR) + length(V1_ERRORS)
return {ready, total - ready, leaseCount() + redis.call('ZCARD', V1_INFLIGHT), dead, next,
  math.max(0, failed - dead)}
