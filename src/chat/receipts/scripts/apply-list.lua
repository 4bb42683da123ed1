--[[
  Applies one address's status events to its receipts: per status the earliest time it was reported, and the
  earliest failure (then the lowest code, then the title: the order of the merge in src/chat/provider/receipts.ts).
  An unknown message (no meta: this service did not send it) is left alone.

  Input:
    KEYS[1...n] receipt   the receipts of one address, each once

    ARGV[1...] for each key in turn: its count of events, then per event its status, its time (epoch ms) and, for
               a failure, its JSON {at, code?, title} (else '')

  Output:
    per key, its fields before the events (meta, sent, delivered, read, failed), or nil for an unknown message
]]
local function earlier (a, b)
  if a.at ~= b.at then return a.at < b.at end
  local ca, cb = a.code or 9007199254740991, b.code or 9007199254740991
  if ca ~= cb then return ca < cb end
  return a.title <= b.title
end
local out = {}
local a = 1
for i, key in ipairs(KEYS) do
  local n = tonumber(ARGV[a])
  a = a + 1
  local before = redis.call('HMGET', key, 'meta', 'sent', 'delivered', 'read', 'failed')
  if before[1] then
    for _ = 1, n do
      local status, at, failure = ARGV[a], ARGV[a + 1], ARGV[a + 2]
      if status == 'failed' then
        local current = redis.call('HGET', key, 'failed')
        if not current or earlier(cjson.decode(failure), cjson.decode(current)) then redis.call('HSET', key, 'failed', failure) end
      else
        local current = redis.call('HGET', key, status)
        if not current or tonumber(at) < tonumber(current) then redis.call('HSET', key, status, at) end
      end
      a = a + 3
    end
    out[i] = before
  else
    a = a + 3 * n
    out[i] = false
  end
end
return out
