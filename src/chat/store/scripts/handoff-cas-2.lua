--[[
  Compare-and-set of a conversation's handoff flag, with the shard's index of handoff deadlines.

  Input:
    KEYS[1] conversation  the club's conversation record with the phone
    KEYS[2] handoffDue    the shard's conversations by handoff deadline

    ARGV[1] expected flag (JSON, '' = none)
    ARGV[2] next flag (JSON, '' = none)
    ARGV[3] the conversation in the index: '<tenantId>:<phone>'
    ARGV[4] the next flag's deadline, epoch ms ('' = none)

  Output:
    1 set, 0 the flag was no longer the expected one
]]
if (redis.call('HGET', KEYS[1], 'handoff') or '') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('HDEL', KEYS[1], 'handoff') else redis.call('HSET', KEYS[1], 'handoff', ARGV[2]) end
if ARGV[4] == '' then redis.call('ZREM', KEYS[2], ARGV[3]) else redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3]) end
return 1
