--[[
  Commits a turn, if the owner still holds the mailbox's lease and the session is at the expected version: saves
  the session and its applied marks, records the turn in the history, drops the link results it consumed, queues
  its replies (leasing the outbox to the committing instance's sender when nobody is on it), and removes the
  mailbox head, keeping the lease for the next head.

  Input (a list of keys, its count sent with the call):
    KEYS[1] session       the phone's record
    KEYS[2] mailbox
    KEYS[3] outbox
    KEYS[4] ready
    KEYS[5] owners
    KEYS[6] sendable
    KEYS[7] senders
    KEYS[8] sendTries
    KEYS[9] history       the history of the turn's club's conversation with the phone
    KEYS[10] conversation that conversation's record
    KEYS[11...] link results to drop

    ARGV[1] phone
    ARGV[2] owner
    ARGV[3] expected session version
    ARGV[4] packed session ('' = acknowledge only)
    ARGV[5] applied marks, packed
    ARGV[6] the mailbox head this commit is for
    ARGV[7] lease, ms
    ARGV[8] session time to live, ms
    ARGV[9] this instance's sender ('' = none)
    ARGV[10] n, the count of replies
    ARGV[11...10+n] the replies
    ARGV[11+n...] the turn's history record (history.lua; its entry '' = none)

  Output:
    {'lost'} | next-head.lua's reply for the turn lane, with woke, the outbox head and its tries
]]
--- @include "now"
--- @include "phone-record"
--- @include "history"
--- @include "wake"
--- @include "next-head"
if redis.call('HGET', KEYS[5], ARGV[1]) ~= ARGV[2] then return {'lost'} end
local due = redis.call('ZSCORE', KEYS[4], ARGV[1])
-- fenced by the owner, not by the clock: a lease whose time ran out is still the owner's until another takes the
-- phone (a take names its owner), so a slow Redis that let the time pass does not undo work nobody else started
if not due then return {'lost'} end
if redis.call('LINDEX', KEYS[2], 0) ~= ARGV[6] then return {'lost'} end
local r = load(KEYS[1])
if tostring(r.v or 0) ~= ARGV[3] then return {'lost'} end
if ARGV[4] ~= '' then
  r.v = (r.v or 0) + 1
  r.d = ARGV[4]
  r.p = ARGV[5]
  r.a = nil
end
r.t = nil
r.e = nil
r.o = nil
save(KEYS[1], r)
redis.call('PEXPIRE', KEYS[1], ARGV[8])
local replies = tonumber(ARGV[10])
if ARGV[11 + replies] ~= '' then recordHistory(KEYS[9], KEYS[10], 11 + replies) end
if #KEYS > 10 then redis.call('DEL', unpack(KEYS, 11)) end
local woke, sendHead, sendTries = 0, '', '0'
if replies > 0 then
  for i = 11, 10 + replies do redis.call('RPUSH', KEYS[3], ARGV[i]) end
  woke = wake(KEYS[6])
  -- a send lease that ran out in another sender's hands is not taken over here: that sender may have had the head
  -- delivered while Redis was away; the take (take-4.lua) says whose it was, so this instance's sender may spare it
  local holder = redis.call('HGET', KEYS[7], ARGV[1])
  if woke == 1 and ARGV[9] ~= '' and (not holder or holder == ARGV[9]) then
    redis.call('ZADD', KEYS[6], 'XX', now + tonumber(ARGV[7]), ARGV[1])
    redis.call('HSET', KEYS[7], ARGV[1], ARGV[9])
    woke = 'leased'
    sendHead = redis.call('LINDEX', KEYS[3], 0)
    sendTries = redis.call('HGET', KEYS[8], ARGV[1]) or '0'
  end
end
redis.call('LPOP', KEYS[2])
return nextHead(KEYS[2], KEYS[4], KEYS[5], KEYS[1], 'turn', ARGV[7], woke, sendHead, sendTries)
