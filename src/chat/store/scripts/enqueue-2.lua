--[[
  Appends entries to a phone's outbox, behind the bot's replies (staff and system messages).

  Input:
    KEYS[1] outbox
    KEYS[2] sendable

    ARGV[1] phone
    ARGV[2...] the entries (JSON), in order

  Output:
    1
]]
--- @include "now"
for i = 2, #ARGV do redis.call('RPUSH', KEYS[1], ARGV[i]) end
redis.call('ZADD', KEYS[2], 'NX', now, ARGV[1])
return 1
