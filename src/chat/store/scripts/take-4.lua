--[[
  Leases a phone's lane (mailbox or outbox) to an owner and answers its head. A turn's attempt is opened, not
  counted: only its failure (release-3) or its worker's death (attempts-2, once that worker stopped beating) counts.

  Input:
    KEYS[1] zset    the lane's phones by when they may next be taken (ready or sendable)
    KEYS[2] owners  phone -> the lease's owner (owners or senders)
    KEYS[3] list    the phone's mailbox or outbox
    KEYS[4] meta    turn: the phone's record; send: the shard's send tries (phone -> failed attempts)

    ARGV[1] phone
    ARGV[2] owner
    ARGV[3] lease, ms
    ARGV[4] lane ('turn' or 'send')
    ARGV[5] send: how long to spare a lease that ran out under another owner, ms ('0' = take it): its owner may
            have had the head delivered while Redis was away, and records it once its connection is back

  Output:
    {'empty'} | {'busy', ms until free}
    | {'ok', 0, '', 0, head, version, packed session, applied marks, tries (counted, and this one), last error,
       the other owners with attempts open, one per line} (turn)
    | {'ok', 0, '', 0, head, tries, the owner whose run-out lease this take took over ('' = none)} (send)
]]
--- @include "now"
--- @include "phone-record"
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not due then return {'empty'} end
if tonumber(due) > now then return {'busy', tostring(tonumber(due) - now)} end
-- a lease given back or ended with its queue names no owner: one still named ran out in the owner's hands
local holder = redis.call('HGET', KEYS[2], ARGV[1])
if holder == ARGV[2] then holder = false end
if ARGV[4] == 'send' and holder and tonumber(ARGV[5]) > 0 then return {'busy', ARGV[5]} end
local head = redis.call('LINDEX', KEYS[3], 0)
if not head then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return {'empty'}
end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[3]), ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if ARGV[4] == 'turn' then
  local r = load(KEYS[4])
  local open = without(r, ARGV[2]) or {}
  local others = table.concat(open, '\n')
  open[#open + 1] = ARGV[2]
  r.o = open
  save(KEYS[4], r)
  return {'ok', '0', '', '0', head, tostring(r.v or 0), r.d or '', applied(r), tostring((r.t or 0) + 1), r.e or '', others}
end
return {'ok', '0', '', '0', head, redis.call('HGET', KEYS[4], ARGV[1]) or '0', holder or ''}
