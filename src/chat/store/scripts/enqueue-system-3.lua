--[[
  Queues a message the system sends by itself, unless one with its id was queued already: the id's marker and the
  entry together, or neither.

  Input:
    KEYS[1] sent      the id's marker
    KEYS[2] outbox
    KEYS[3] sendable

    ARGV[1] phone
    ARGV[2] the entry (JSON)
    ARGV[3] how long the id is remembered, ms

  Output:
    1 queued, 0 queued already
]]
--- @include "now"
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[3]) then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], 'NX', now, ARGV[1])
return 1
