--[[
  Gives a lane's lease back, the phone due again after a delay; counts a failed attempt (a send's, or a turn's),
  ends the owner's open attempt at a turn, and keeps a turn's error.

  Input:
    KEYS[1] zset    ready or sendable
    KEYS[2] owners  owners or senders
    KEYS[3] meta    turn: the phone's record; send: the shard's send tries

    ARGV[1] phone
    ARGV[2] owner
    ARGV[3] delay, ms
    ARGV[4] lane ('turn' or 'send')
    ARGV[5] failed ('1' or '0')
    ARGV[6] has an error ('1' or '0')
    ARGV[7] the error

  Output:
    1 released, 0 the owner held no lease
]]
--- @include "now"
--- @include "phone-record"
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[3]), ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if ARGV[4] == 'turn' then
  local r = load(KEYS[3])
  r.o = without(r, ARGV[2])
  if ARGV[5] == '1' then r.t = (r.t or 0) + 1 end
  if ARGV[6] == '1' then r.e = ARGV[7] end
  save(KEYS[3], r)
elseif ARGV[5] == '1' then
  redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
end
return 1
