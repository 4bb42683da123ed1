--[[
  recordHistory(history, conversation, o): records messages in a club's conversation with the phone (history and record), from
  ARGV[o] on (src/chat/store/scripts.ts historyArgs: the entry, club, last activity, last inbound ('' none),
  inbound count, historyMax, historyMs). Entries are capped at historyMax (each holds one message or more; reads
  keep historyMax messages). A record written before the history kept the last message drops its copy.
]]
local function recordHistory (history, conversation, o)
  redis.call('LPUSH', history, ARGV[o])
  redis.call('LTRIM', history, 0, tonumber(ARGV[o + 5]) - 1)
  redis.call('PEXPIRE', history, ARGV[o + 6])
  redis.call('HSET', conversation, 'tenantId', ARGV[o + 1], 'lastAt', ARGV[o + 2])
  if ARGV[o + 3] ~= '' then redis.call('HSET', conversation, 'lastInboundAt', ARGV[o + 3]) end
  if ARGV[o + 4] ~= '0' then redis.call('HINCRBY', conversation, 'unread', ARGV[o + 4]) end
  redis.call('HDEL', conversation, 'last')
  redis.call('PEXPIRE', conversation, ARGV[o + 6])
end
