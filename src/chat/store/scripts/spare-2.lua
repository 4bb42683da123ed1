--[[
  Gives a send lease the caller took over back to the owner it ran out under, run out as it was: that owner may
  have had the head delivered while Redis was away, and records it (delivered-6.lua) once its connection is back.

  Input:
    KEYS[1] zset    sendable
    KEYS[2] owners  senders

    ARGV[1] phone
    ARGV[2] owner   the caller, who took it over
    ARGV[3] holder  the owner it ran out under

  Output:
    1 given back, 0 the caller no longer held it
]]
--- @include "now"
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], 'XX', now, ARGV[1])
return 1
