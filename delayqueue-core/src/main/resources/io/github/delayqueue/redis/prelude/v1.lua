-- format 1's keys: read and migrated, never written
local V1_MSGS = BASE .. 'msgs'
local V1_DUE = BASE .. 'due'
local V1_INFLIGHT = BASE .. 'inflight'
local V1_ATTEMPTS = BASE .. 'attempts'
local V1_DEAD = BASE .. 'dead'
local V1_ERRORS = BASE .. 'errors'
