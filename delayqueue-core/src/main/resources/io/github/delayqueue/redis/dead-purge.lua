-- uses: controls, groups, buckets, leases, dead, v1, format1
-- Deletes dead letters.
-- ARGV[1] id ('' for the oldest ARGV[2] dead letters), ARGV[2] limit
-- Returns how many were deleted.
local ids
if ARGV[1] ~= '' then
  adoptOne(ARGV[1])
  ids = {ARGV[1]}
else
  migrate(tonumber(ARGV[2]), clock())
  ids = redis.call('ZRANGE', BURIED, 0, tonumber(ARGV[2]) - 1)
end
local n = 0
for _, id in ipairs(ids) do
  if redis.call('ZREM', BURIED, id) == 1 then
    forget(id)
    n = n + 1
  end
end
if bucketCount > 1 then
  resizing().shrink()
end
return n
