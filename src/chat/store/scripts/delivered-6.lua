--[[
  Records a reply the provider took: starts its receipt, and removes it from the head of the phone's outbox if it
  is still there, whoever holds the send lease now (it was delivered: taken again, it would be sent twice). The
  lease goes on for the next head when it is the caller's or nobody's (one that ran out while Redis could not be
  reached, the record kept in the process meanwhile: src/chat/sender.ts); another owner's live lease is left alone.

  Input:
    KEYS[1] list      the phone's outbox
    KEYS[2] zset      sendable
    KEYS[3] owners    senders
    KEYS[4] tries     the shard's send tries
    KEYS[5] receipt   the reply's receipt, by the provider's message id (src/chat/receipts)
    KEYS[6] sentIds   the phone's reply id -> the provider's message id

    ARGV[1] phone
    ARGV[2] owner
    ARGV[3] the entry delivered
    ARGV[4] lease, ms
    ARGV[5] the provider's message id ('' = it named none: no receipt)
    ARGV[6] the reply's id
    ARGV[7] the receipt's meta (JSON)
    ARGV[8] how long the receipt is kept, ms

  Output:
    {'lost'} (the entry was recorded before, or another owner holds the lease) | next-head.lua's reply for the send lane
]]
--- @include "now"
--- @include "next-head"
if ARGV[5] ~= '' then
  -- HSETNX: a reply sent twice and answered with its first id keeps its first record
  redis.call('HSETNX', KEYS[5], 'meta', ARGV[7])
  redis.call('PEXPIRE', KEYS[5], ARGV[8])
  redis.call('HSET', KEYS[6], ARGV[6], ARGV[5])
  redis.call('PEXPIRE', KEYS[6], ARGV[8])
end
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[3] then return {'lost'} end
redis.call('LPOP', KEYS[1])
redis.call('HDEL', KEYS[4], ARGV[1])
local due = redis.call('ZSCORE', KEYS[2], ARGV[1])
if due and tonumber(due) > now and redis.call('HGET', KEYS[3], ARGV[1]) ~= ARGV[2] then return {'lost'} end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
return nextHead(KEYS[1], KEYS[2], KEYS[3], KEYS[4], 'send', ARGV[4], 0, '', '0')
