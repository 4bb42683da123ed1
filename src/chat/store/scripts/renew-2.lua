--[[
  Extends a lease the owner still holds (its time may have run out, as long as nobody took the phone since).

  Input:
    KEYS[1] zset    ready or sendable
    KEYS[2] owners  owners or senders

    ARGV[1] phone
    ARGV[2] owner
    ARGV[3] lease, ms

  Output:
    1 renewed, 0 the lease was lost (another owner took it, or it was released)
]]
--- @include "now"
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
-- fenced by the owner, not by the clock: a lease whose time ran out is still the owner's until another takes the
-- phone (a take names its owner), so a slow Redis that let the time pass does not undo work nobody else started
if not due then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[3]), ARGV[1])
return 1
