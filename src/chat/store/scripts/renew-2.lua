--[[
  Extends a lease the owner still holds.

  Input:
    KEYS[1] zset    ready or sendable
    KEYS[2] owners  owners or senders

    ARGV[1] phone
    ARGV[2] owner
    ARGV[3] lease, ms

  Output:
    1 renewed, 0 the lease was lost
]]
--- @include "now"
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not due or tonumber(due) <= now then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[3]), ARGV[1])
return 1
