--[[
  Reads receipts of one address.

  Input:
    KEYS[1...n] receipt   the receipts to read

    ARGV[1] none

  Output:
    per key, its fields (meta, sent, delivered, read, failed), or nil for an unknown message
]]
local out = {}
for i, key in ipairs(KEYS) do
  local fields = redis.call('HMGET', key, 'meta', 'sent', 'delivered', 'read', 'failed')
  if fields[1] then out[i] = fields else out[i] = false end
end
return out
