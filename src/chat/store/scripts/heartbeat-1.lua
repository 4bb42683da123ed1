--[[
  This instance is alive for another while (or leaving); answers the instances whose time ran out, removed here so
  that one instance only looks for their phones.

  Input:
    KEYS[1] instances  owner -> alive until, epoch ms

    ARGV[1] owner
    ARGV[2] alive for, ms ('0' = leaving)

  Output:
    the owners whose time ran out
]]
--- @include "now"
local gone = {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if all[i] ~= ARGV[1] and tonumber(all[i + 1]) <= now then gone[#gone + 1] = all[i] end
end
if #gone > 0 then redis.call('HDEL', KEYS[1], unpack(gone)) end
redis.call('HSET', KEYS[1], ARGV[1], now + tonumber(ARGV[2]))
return gone
