-- uses: controls, groups
-- Counts of many groups of a topic (one partition's), bounded: no message is read, only the size of each group's set.
-- ARGV[1] 'top': the groups with the most messages waiting: ARGV[2] how many (n), ARGV[3] the most groups looked at
-- of those with a turn (by turn: the longest overdue first) and as many of the held (paused or at their cap: one
-- SMEMBERS, their names only); one ZCARD per group looked at, then one HMGET each for the counts in flight, the pauses
-- and the weights of the n kept. A group's waiting messages include those of its levels' sets (priorities within a
-- group: one HMGET for the levels of the groups looked at, and one ZCARD more per level set).
-- ARGV[1] 'read': ARGV[2], ARGV[3], ... the groups to count (one ZCARD each, one per level set, and the same HMGETs).
-- Returns {1 if every group with messages waiting was looked at, else 0; then per group: group, waiting, in flight,
-- paused (0 or 1), weight (false: the default, 1)}, the most waiting first for 'top'.
local GFLIGHT = BASE .. 'gflight'
local GCONTROL = BASE .. 'gcontrol'
local names, complete, waitingOf = {}, 1, {}
if ARGV[1] == 'top' then
  local n, most = tonumber(ARGV[2]), tonumber(ARGV[3])
  local turns = redis.call('ZRANGE', GROUPS, 0, most)
  if #turns > most then
    complete = 0
    turns[#turns] = nil
  end
  local held = redis.call('SMEMBERS', BASE .. 'gheld')
  if #held > most then
    complete = 0
  end
  local seen, counted = {}, {}
  local looked = {}
  for _, group in ipairs(turns) do
    looked[#looked + 1] = group
  end
  for i = 1, math.min(#held, most) do
    looked[#looked + 1] = held[i]
  end
  local fields = {}
  for i, group in ipairs(looked) do
    fields[i] = 'l:' .. group
  end
  local levels = hmget(GCONTROL, fields)
  for i, group in ipairs(turns) do
    seen[group] = true
    counted[#counted + 1] = { group, groupWaiting(group, levels[i]) }
  end
  for i = 1, math.min(#held, most) do
    local group = held[i]
    if not seen[group] then
      seen[group] = true
      local waiting = groupWaiting(group, levels[#turns + i])
      -- a held group with nothing waiting (at its cap with its last messages leased) is no group to list
      if waiting > 0 then
        counted[#counted + 1] = { group, waiting }
      end
    end
  end
  table.sort(counted, function(a, b)
    if a[2] ~= b[2] then
      return a[2] > b[2]
    end
    return a[1] < b[1]
  end)
  for i = 1, math.min(n, #counted) do
    names[i] = counted[i][1]
    waitingOf[names[i]] = counted[i][2]
  end
else
  for i = 2, #ARGV do
    names[#names + 1] = ARGV[i]
  end
end
local out = { complete }
if #names == 0 then
  return out
end
local flight = redis.call('HMGET', GFLIGHT, unpack(names))
local fields = {}
for i, group in ipairs(names) do
  fields[2 * i - 1] = 'p:' .. group
  fields[2 * i] = 'w:' .. group
end
local controlled = redis.call('HMGET', GCONTROL, unpack(fields))
for i, group in ipairs(names) do
  out[#out + 1] = group
  out[#out + 1] = waitingOf[group] or groupWaiting(group)
  out[#out + 1] = tonumber(flight[i]) or 0
  out[#out + 1] = controlled[2 * i - 1] and 1 or 0
  out[#out + 1] = controlled[2 * i] or false
end
return out
