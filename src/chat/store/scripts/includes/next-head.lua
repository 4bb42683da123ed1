--[[
  nextHead(list, zset, owners, meta, lane, leaseMs, woke, sendHead, sendTries), after a lane's head was removed:
  ends the lease when the queue is empty, else keeps it for the next head and, for turns, answers that head with the
  session it runs against. The phone is ARGV[1]. Every reply of work has one layout: kind ('more' or 'done'), woke
  (the commit's outbox: 1 nobody is on it, 'leased' leased to the committing instance's sender, else 0), the outbox
  head and its tries when leased, then the lane's work: a turn's head, session version, packed session, applied
  marks (phone-record.lua), tries, last error and the other owners with attempts open (none: the lease was kept, its
  owner, ARGV[2], opens the next attempt); a send's head and tries.
]]
--- @include "now"
--- @include "phone-record"
local function nextHead (list, zset, owners, meta, lane, leaseMs, woke, sendHead, sendTries)
  local head = redis.call('LINDEX', list, 0)
  if not head then
    redis.call('ZREM', zset, ARGV[1])
    redis.call('HDEL', owners, ARGV[1])
    return {'done', woke, sendHead, sendTries}
  end
  redis.call('ZADD', zset, 'XX', now + tonumber(leaseMs), ARGV[1])
  if lane == 'turn' then
    local r = load(meta)
    r.t = nil
    r.e = nil
    r.o = {ARGV[2]}
    save(meta, r)
    return {'more', woke, sendHead, sendTries, head, tostring(r.v or 0), r.d or '', applied(r), '1', '', ''}
  end
  return {'more', woke, sendHead, sendTries, head, '0'}
end
