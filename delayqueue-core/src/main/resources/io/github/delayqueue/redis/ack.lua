-- uses: controls, groups, buckets, leases, dead
-- Deletes delivered messages, each only if its lease is the current one.
-- ARGV: id, token, id, token, ...
-- Returns how many were deleted.
return acknowledge(1, #ARGV)
