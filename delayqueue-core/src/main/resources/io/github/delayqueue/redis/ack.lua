-- uses: controls, groups, buckets, leases, dead
-- Deletes delivered messages, each only if its lease is the current one.
-- ARGV: id, token, hash, id, token, hash, ... (the hash of the id as BucketHash.java computes it: see acknowledge)
-- Returns how many were deleted.
return acknowledge(1, #ARGV)
