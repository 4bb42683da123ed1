--[[
  wake(zset): puts the phone (ARGV[1]) in a lane's zset, due now, unless it is there; 1 when nobody is on it (it
  was not there, or it is due with no lease and no backoff: its wake-up was lost), so that the caller tells a
  runner; else 0.
]]
--- @include "now"
local function wake (zset)
  local at = redis.call('ZSCORE', zset, ARGV[1])
  if not at then
    redis.call('ZADD', zset, now, ARGV[1])
    return 1
  end
  if tonumber(at) <= now then return 1 end
  return 0
end
