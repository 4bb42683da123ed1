--[[
  De-duplication markers: per message id and delivery key a phone saw, a tag (the first 48 bits of the SHA-1 of the
  id, as 8 base64url characters: a collision within one phone's day is about one in 10^14) scored by the epoch second
  it was seen, in a sorted set of the phone's own beside its record, kept a day past its last message. A lookup and
  an insert are one ZADD NX, the expired ones go by score: a talkative or flooding phone's message costs Redis what
  its first did (`npm run bench`, a phone's day), where markers walked in Lua inside the record cost 800 µs an
  accept at 450 messages, for every club on that Redis. Only accepting reads them, so the record, which every
  script of a turn decodes and encodes, stays the same size however many messages the phone sent that day.
  Markers of earlier versions, in the record's fields `m` with `b` (`<tag><age in base 36 at epoch b>;`) and `s`
  (`<12 hex digits>=<epoch s>;`), move to the set on the phone's next message.
]]
local B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
local function tagOf (hex)
  local out = {}
  for i = 1, 12, 3 do
    local n = tonumber(string.sub(hex, i, i + 2), 16)
    local hi, lo = math.floor(n / 64), n % 64
    out[#out + 1] = string.sub(B64, hi + 1, hi + 1) .. string.sub(B64, lo + 1, lo + 1)
  end
  return table.concat(out)
end
-- moves the markers an earlier version kept in record `r` and seen after `cutoff` (epoch s) to set `key`; how many
local function moveMarkers (r, key, cutoff)
  local moved = 0
  local function move (tag, at)
    if at > cutoff then moved = moved + redis.call('ZADD', key, 'NX', at, tag) end
  end
  for tag, at in string.gmatch(r.s or '', '(%x+)=(%d+);') do move(tagOf(tag), tonumber(at)) end
  for entry in string.gmatch(r.m or '', '([^;]+);') do move(string.sub(entry, 1, 8), r.b - tonumber(string.sub(entry, 9), 36)) end
  r.s, r.m, r.b = nil, nil, nil
  return moved
end
