--[[
  Ends attempts at a phone's mailbox head that did not end by themselves: each owner given is taken out of the
  head's open attempts, counted as a try when its worker died (it stopped beating: the turn may be what kills it),
  not counted when it ended without failing (its commit found the lease moved on, as under a slow Redis).
  Nothing changes when the head is another message now (the attempts ended with it).

  Input:
    KEYS[1] meta     the phone's record
    KEYS[2] list     the phone's mailbox

    ARGV[1] the mailbox head the attempts were at
    ARGV[2] counted ('1': their workers died, '0': given back)
    ARGV[3...] owners

  Output:
    the tries counted at the head
]]
--- @include "phone-record"
if redis.call('LINDEX', KEYS[2], 0) ~= ARGV[1] then return 0 end
local r = load(KEYS[1])
for i = 3, #ARGV do
  local open = false
  for _, o in ipairs(r.o or {}) do if o == ARGV[i] then open = true end end
  if open then
    r.o = without(r, ARGV[i])
    if ARGV[2] == '1' then r.t = (r.t or 0) + 1 end
  end
end
save(KEYS[1], r)
return r.t or 0
