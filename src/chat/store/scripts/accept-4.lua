--[[
  Accepts a delivery's letters for one phone: stores each whose id the phone has not seen within the
  de-duplication window (none when the phone saw the delivery key), notes when the phone wrote, and wakes the
  turn lane.

  Input:
    KEYS[1] session  the phone's record
    KEYS[2] mailbox  the phone's accepted messages
    KEYS[3] ready    the shard's phones with mail
    KEYS[4] seen     the phone's de-duplication markers, a sorted set (markers.lua)

    ARGV[1] phone
    ARGV[2] de-duplication window, seconds
    ARGV[3] epoch ms the phone wrote ('' = not noted)
    ARGV[4] delivery key ('' = none)
    ARGV[5...] id, body of each letter, in order

  Output:
    {stored, due}: letters stored; 1 when nobody is on the phone's mailbox (a runner must be told), else 0
]]
--- @include "now"
--- @include "phone-record"
--- @include "markers"
--- @include "wake"
local r = load(KEYS[1])
local sec = tonumber(t[1])
local cutoff = sec - tonumber(ARGV[2])
local added = moveMarkers(r, KEYS[4], cutoff)
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', cutoff)
local function fresh (s)
  local new = redis.call('ZADD', KEYS[4], 'NX', sec, tagOf(redis.sha1hex(s)))
  added = added + new
  return new == 1
end
local stored = 0
if ARGV[4] == '' or fresh('k' .. ARGV[4]) then
  for i = 5, #ARGV, 2 do
    if fresh('m' .. ARGV[i]) then
      redis.call('RPUSH', KEYS[2], ARGV[i + 1])
      stored = stored + 1
    end
  end
end
-- a set written to (a marker moved or added) is kept a day from now
if added > 0 then redis.call('PEXPIRE', KEYS[4], tonumber(ARGV[2]) * 1000) end
if ARGV[3] ~= '' then r.i = ARGV[3] end
save(KEYS[1], r)
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) * 1000 then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 1000) end
local due = 0
if stored > 0 then due = wake(KEYS[3]) end
return {stored, due}
