-- uses: buckets, leases, dead
-- Deletes delivered messages, each only if its lease is the current one.
-- ARGV: id, token, id, token, ...
-- Returns how many were deleted.
local n = 0
for i = 1, #ARGV, 2 do
  if acknowledge(ARGV[i], ARGV[i + 1]) then
    n = n + 1
  end
end
return n
