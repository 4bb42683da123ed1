--[[
  Moves a phone's single conversation of before (one per phone, whatever the club) to the club's conversation
  with the phone, once (inbox/migrate.ts, at start-up). The record goes to the club it names; its history goes
  with it only when it can be told to be that club's, else it is dropped. A club conversation already written
  since keeps its fields: the old record adds its unread count and, when it has none, its handoff flag; the old
  history goes behind the newer one.

  Input:
    KEYS[1] legacyHistory       the phone's history of before
    KEYS[2] legacyConversation  the phone's record of before
    KEYS[3] history             the club's conversation history with the phone
    KEYS[4] conversation        that conversation's record
    KEYS[5] handoffDue          the shard's conversations by handoff deadline

    ARGV[1] the club's id
    ARGV[2] phone
    ARGV[3] '1' the history is the club's, '0' it cannot be told (dropped)
    ARGV[4] historyMax, the entries a history keeps

  Output:
    1 moved, 0 nothing of this club to move
]]
if redis.call('HGET', KEYS[2], 'tenantId') ~= ARGV[1] then return 0 end
if ARGV[3] == '1' and redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('EXISTS', KEYS[3]) == 0 then
    redis.call('RENAME', KEYS[1], KEYS[3])
  else
    local ttl = redis.call('PTTL', KEYS[3])
    redis.call('RPUSH', KEYS[3], unpack(redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[4]) - 1)))
    redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[4]) - 1)
    if ttl > 0 then redis.call('PEXPIRE', KEYS[3], ttl) end
  end
end
redis.call('DEL', KEYS[1])
local due = redis.call('ZSCORE', KEYS[5], ARGV[2])
redis.call('ZREM', KEYS[5], ARGV[2])
if redis.call('EXISTS', KEYS[4]) == 0 then
  redis.call('RENAME', KEYS[2], KEYS[4])
else
  local unread, handoff = unpack(redis.call('HMGET', KEYS[2], 'unread', 'handoff'))
  if unread then redis.call('HINCRBY', KEYS[4], 'unread', unread) end
  if handoff and not redis.call('HGET', KEYS[4], 'handoff') then redis.call('HSET', KEYS[4], 'handoff', handoff) else due = false end
  redis.call('DEL', KEYS[2])
end
if due then redis.call('ZADD', KEYS[5], due, ARGV[1] .. ':' .. ARGV[2]) end
return 1
