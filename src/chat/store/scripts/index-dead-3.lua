--[[
  Moves dead letters of one club from the shard's index of before (every club's letters in one index) to the
  club's own index, keeping when each died, then keeps the club's newest only (dead-letter-index.ts, at
  start-up). A letter that is gone, or names another club, stays where it is.

  Input:
    KEYS[1] dead       the shard's dead letters (id -> letter)
    KEYS[2] unclubbed  the shard's index of before (letters of no club stay in it)
    KEYS[3] index      the club's dead letter ids in the shard by time

    ARGV[1] the club's id
    ARGV[2] dead letters kept per index
    ARGV[3..] the ids to move

  Output:
    how many were moved
]]
--- @include "trim-dead"
local moved = 0
for i = 3, #ARGV do
  local id = ARGV[i]
  local at = redis.call('ZSCORE', KEYS[2], id)
  local record = redis.call('HGET', KEYS[1], id)
  if at and record and cjson.decode(record).tenantId == ARGV[1] then
    redis.call('ZADD', KEYS[3], at, id)
    redis.call('ZREM', KEYS[2], id)
    moved = moved + 1
  end
end
trimDead(KEYS[1], KEYS[3], ARGV[2])
return moved
