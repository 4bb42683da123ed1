--[[
  The shard's phones with work in each lane (leased or backing off ones too), in one command.

  Input:
    KEYS[1] ready     the shard's phones with mail
    KEYS[2] sendable  the shard's phones with replies

    ARGV[1] at most this many phones with mail (0 = none)
    ARGV[2] at most this many phones with replies (0 = none)

  Output:
    {turn, send}: each a flat list of phone, ms until it may be taken (0: now)
]]
--- @include "now"
local function due (key, limit)
  local found = {}
  if tonumber(limit) == 0 then return found end
  local r = redis.call('ZRANGE', key, '-inf', '+inf', 'BYSCORE', 'LIMIT', 0, limit, 'WITHSCORES')
  for i = 1, #r, 2 do
    found[#found + 1] = r[i]
    found[#found + 1] = math.max(0, tonumber(r[i + 1]) - now)
  end
  return found
end
return {due(KEYS[1], ARGV[1]), due(KEYS[2], ARGV[2])}
