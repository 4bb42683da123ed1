--[[
  Which of these instances no longer beat (heartbeat-1): not listed, or their time ran out.

  Input:
    KEYS[1] instances  owner -> alive until, epoch ms

    ARGV[1...] owners

  Output:
    the owners among them that are gone
]]
--- @include "now"
local gone = {}
local alive = redis.call('HMGET', KEYS[1], unpack(ARGV))
for i = 1, #ARGV do
  if not alive[i] or tonumber(alive[i]) <= now then gone[#gone + 1] = ARGV[i] end
end
return gone
