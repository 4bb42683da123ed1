--[[
  The phone's record: one string, not a hash (a session document is longer than the 64 bytes up to which Redis
  keeps a hash compact, hash-max-listpack-value, and a string is about half the memory of the same fields in a
  full hash). The string is a JSON envelope, a newline, then the session document as packed by
  src/chat/session-codec.ts (no escaping: neither form holds a raw newline). Envelope fields: v (compare-and-set
  version), p (applied inbound ids, newest first: their marks, 12 hex digits each, as 8 base64url characters, one
  after the other; `a`, a JSON array of the marks or ids, in records of the first version), t (tries at the
  mailbox head since the last commit), e (its last error), i (epoch ms of the last inbound message), o (the
  owners of the attempts at the mailbox head that have not ended: taken, neither committed nor released nor given
  back; a worker that died leaves its own there); m and b, or s, in records of earlier versions (de-duplication
  markers, which markers.lua moves out). Saved with its time to live kept.
]]
local function load (key)
  local raw = redis.call('GET', key)
  if not raw then return {} end
  local nl = string.find(raw, '\n', 1, true)
  local r = cjson.decode(string.sub(raw, 1, nl - 1))
  if nl < #raw then r.d = string.sub(raw, nl + 1) end
  return r
end
local function save (key, r)
  local d = r.d
  r.d = nil
  redis.call('SET', key, cjson.encode(r) .. '\n' .. (d or ''), 'KEEPTTL')
  r.d = d
end
-- the record's open attempts without `owner` (nil when none is left: cjson writes an empty table as an object)
local function without (r, owner)
  local kept = {}
  for _, o in ipairs(r.o or {}) do if o ~= owner then kept[#kept + 1] = o end end
  if #kept == 0 then return nil end
  return kept
end
-- the applied marks as the store reads them: '+' and the packed marks, or '-' and the first version's ids, one
-- per line (each form has its own prefix: an id of the first version may begin with anything)
local function applied (r)
  if r.p then return '+' .. r.p end
  if r.a then return '-' .. table.concat(r.a, '\n') end
  return ''
end
