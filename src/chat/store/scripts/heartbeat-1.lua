--[[
  This instance is alive for another while (or leaving); answers the instances whose time ran out, so that one
  instance only looks for their phones. One reported is kept, marked reported (its time negated, a while later),
  and reported once more if it is still silent then: between the first report and its stop it may have taken
  phones that the first sweep did not see (reported while slow, then stopped before its next beat). A beat of its
  own puts it back as alive; after the second report it is removed.

  Input:
    KEYS[1] instances  owner -> alive until, epoch ms (negative: reported, again at that time unless it beats)

    ARGV[1] owner
    ARGV[2] alive for, ms ('0' = leaving)

  Output:
    {others, gone}: how many other instances beat in time (alive, not reported); the owners whose time ran out
]]
--- @include "now"
local gone, marked, ended = {}, {}, {}
local others = 0
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local alive = tonumber(all[i + 1])
  if all[i] ~= ARGV[1] and alive > now then others = others + 1 end
  if all[i] ~= ARGV[1] and math.abs(alive) <= now then
    gone[#gone + 1] = all[i]
    if alive >= 0 then
      marked[#marked + 1] = all[i]
      marked[#marked + 1] = -(now + tonumber(ARGV[2]))
    else
      ended[#ended + 1] = all[i]
    end
  end
end
if #ended > 0 then redis.call('HDEL', KEYS[1], unpack(ended)) end
if #marked > 0 then redis.call('HSET', KEYS[1], unpack(marked)) end
redis.call('HSET', KEYS[1], ARGV[1], now + tonumber(ARGV[2]))
return {others, gone}
