-- uses: controls, groups, priorities, leases
-- Hands current leases back at once (graceful shutdown, or a consumer that will not start them): the messages are
-- pending at their due time again, and no attempt is counted (a suspect's count, carried by its lease record, is
-- dropped; it stays a suspect). Wakes the consumers: at once if one of them is due now or the cap had cut a claim
-- short, else at the earliest one's due time (a message leased ahead of its due time goes back before it). Under a
-- rate limit, their tokens go back to the bucket (see giveBack): none of them started; under group rate limits, the
-- grouped ones' tokens go back to their groups' buckets (see groupGiveBack).
-- ARGV: id, token, id, token, ...
-- Returns how many were handed back.
local ids, scores, groups, levels = {}, {}, {}, {}
local earliestDue = nil
for _, lease in ipairs(currentLeases(1, #ARGV)) do
  ids[#ids + 1] = lease[1]
  -- groups: a grouped message goes back to its group's set
  groups[lease[1]] = lease[5]
  -- priorities: a message of a priority other than the default goes back to its level's set
  levels[lease[1]] = lease[6]
  scores[#scores + 1] = lease[3]
  scores[#scores + 1] = lease[1]
  local due = tonumber(lease[3])
  if earliestDue == nil or due < earliestDue then
    earliestDue = due
  end
end
if #ids > 0 then
  local ended = unlease(ids, scores, groups, levels)
  leasesEnded()
  local now, nowUs = clock()
  readControls()
  giveBack(#ids, now)
  groupGiveBack(ended, now)
  wakeForHandedBack(earliestDue, nowUs, slotsFreed())
end
return #ids
