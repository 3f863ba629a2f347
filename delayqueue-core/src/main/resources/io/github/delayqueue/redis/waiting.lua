-- uses: controls, groups, buckets, leases, dead
-- Lists waiting messages (scheduled or waiting for a retry) by due time, then id (the pending set's own order: ids
-- by their bytes), a page at a time: a few commands to find where the page starts, however many wait, then the page.
-- ARGV[1] from (due score, inclusive; '-inf' for none), ARGV[2] to (inclusive; '+inf'), ARGV[3] the due score of the
-- last message of the previous page ('' for the first page), ARGV[4] its id, ARGV[5] the page size
-- Returns per message: id, due score, attempts counted (or false), envelope (or false), expiry (or false).
local from, to, afterScore, afterId = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local limit = tonumber(ARGV[5])

-- Whether id a sorts after id b by their bytes, as Redis orders members of equal score (Lua's own comparison
-- follows the server's locale).
local function after(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x > y
    end
  end
  return #a > #b
end

local start
if afterScore == '' then
  start = redis.call('ZCOUNT', PENDING, '-inf', '(' .. from)
  if from == '-inf' then
    start = 0
  end
else
  -- the first message due later than the last one listed, or due at the same time with an id after its id (found
  -- by halving the run of messages due at that time), whether or not the last one still waits
  local lo = redis.call('ZCOUNT', PENDING, '-inf', '(' .. afterScore)
  local hi = lo + redis.call('ZCOUNT', PENDING, afterScore, afterScore)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local id = redis.call('ZRANGE', PENDING, mid, mid)[1]
    if after(id, afterId) then
      hi = mid
    else
      lo = mid + 1
    end
  end
  start = lo
end
local page = redis.call('ZRANGE', PENDING, start, start + limit - 1, 'WITHSCORES')
local upper = tonumber(to) or math.huge
local ids, scores = {}, {}
for i = 1, #page, 2 do
  if tonumber(page[i + 1]) > upper then
    break
  end
  ids[#ids + 1] = page[i]
  scores[#scores + 1] = page[i + 1]
end
local tries = hmget(TRIES, ids)
local expiries = {}
if redis.call('EXISTS', EXPIRY) == 1 then
  expiries = hmget(EXPIRY, ids)
end
local out = {}
for k, id in ipairs(ids) do
  out[#out + 1] = id
  out[#out + 1] = scores[k]
  out[#out + 1] = tries[k]
  out[#out + 1] = redis.call('HGET', bodyOf(id), id)
  out[#out + 1] = expiries[k] or false
end
return out
