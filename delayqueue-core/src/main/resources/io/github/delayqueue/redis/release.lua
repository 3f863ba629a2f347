-- uses: leases
-- Hands current leases back at once (graceful shutdown, or a consumer that will not start them): the messages are
-- pending at their due time again, and no attempt is counted (a suspect's count, carried by its lease record, is
-- dropped; it stays a suspect).
-- ARGV: id, token, id, token, ...
-- Returns how many were handed back.
local ids, scores = {}, {}
for _, lease in ipairs(currentLeases(1, #ARGV)) do
  ids[#ids + 1] = lease[1]
  scores[#scores + 1] = lease[3]
  scores[#scores + 1] = lease[1]
end
if #ids > 0 then
  unlease(ids, scores)
  leasesEnded()
  redis.call('PUBLISH', WAKE, '0')
end
return #ids
