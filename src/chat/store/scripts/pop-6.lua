--[[
  Removes the head of a lane the owner holds (delivered, or given up), optionally into the shard's dead letters,
  and keeps the lease for the next head.

  Input:
    KEYS[1] list       the phone's mailbox or outbox
    KEYS[2] zset       ready or sendable
    KEYS[3] owners     owners or senders
    KEYS[4] meta       turn: the phone's record; send: the shard's send tries
    KEYS[5] dead       the shard's dead letters (id -> letter)
    KEYS[6] deadIndex  the dead letter's index: its club's ids in the shard by time (the shard's for no club)

    ARGV[1] phone
    ARGV[2] owner
    ARGV[3] the head this is for
    ARGV[4] lease, ms
    ARGV[5] lane ('turn' or 'send')
    ARGV[6] dead letter id ('' = none)
    ARGV[7] dead letter (JSON)
    ARGV[8] dead letters kept per index

  Output:
    {'lost'} | next-head.lua's reply for the lane
]]
--- @include "now"
--- @include "phone-record"
--- @include "next-head"
--- @include "trim-dead"
if redis.call('HGET', KEYS[3], ARGV[1]) ~= ARGV[2] then return {'lost'} end
local due = redis.call('ZSCORE', KEYS[2], ARGV[1])
-- fenced by the owner, not by the clock: a lease whose time ran out is still the owner's until another takes the
-- phone (a take names its owner), so a slow Redis that let the time pass does not undo work nobody else started
if not due then return {'lost'} end
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[3] then return {'lost'} end
redis.call('LPOP', KEYS[1])
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[5], ARGV[6], ARGV[7])
  redis.call('ZADD', KEYS[6], now, ARGV[6])
  trimDead(KEYS[5], KEYS[6], ARGV[8])
end
if ARGV[5] == 'turn' then
  local r = load(KEYS[4])
  r.t = nil
  r.e = nil
  r.o = nil
  save(KEYS[4], r)
else
  redis.call('HDEL', KEYS[4], ARGV[1])
end
return nextHead(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[5], ARGV[4], 0, '', '0')
