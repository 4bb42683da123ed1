--[[
  Puts a dead letter back at the end of its phone's mailbox or outbox.

  Input:
    KEYS[1] dead       the shard's dead letters
    KEYS[2] index      the letter's index: its club's dead letter ids by time (the shard's when of no club)
    KEYS[3] unclubbed  the shard's index of letters of no club (where a letter waits until moved to its club's)
    KEYS[4] list       the phone's mailbox or outbox
    KEYS[5] zset       ready or sendable

    ARGV[1] dead letter id
    ARGV[2] phone

  Output:
    the dead letter (JSON), or nil when unknown
]]
--- @include "now"
local record = redis.call('HGET', KEYS[1], ARGV[1])
if not record then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('RPUSH', KEYS[4], cjson.decode(record).payload)
redis.call('ZADD', KEYS[5], 'NX', now, ARGV[2])
return record
