--[[
  De-duplication markers live in the phone's record: per message id and delivery key the phone saw, a tag (the
  first 48 bits of the SHA-1 of the id, as 8 base64url characters: a collision within one phone's day is about one
  in 10^14) and its age in seconds (base 36) at the record's moment `b` (epoch s), in field `m` as `<tag><age>;`
  (about 11 B each; the newest are the youngest, so their ages are short). They are pruned as they pass the
  de-duplication window. One small field instead of a key per marker keeps an idle phone's Redis footprint small.
  Field `s` of the first version (`<12 hex digits>=<epoch s>;`) still reads and is rewritten as `m`.
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
local function base36 (n)
  if n <= 0 then return '0' end
  local out = ''
  while n > 0 do
    local d = n % 36
    out = string.sub('0123456789abcdefghijklmnopqrstuvwxyz', d + 1, d + 1) .. out
    n = math.floor(n / 36)
  end
  return out
end
-- each marker of the record: fn(tag, epoch s)
local function eachMarker (r, fn)
  for tag, at in string.gmatch(r.s or '', '(%x+)=(%d+);') do fn(tagOf(tag), tonumber(at)) end
  for entry in string.gmatch(r.m or '', '([^;]+);') do fn(string.sub(entry, 1, 8), r.b - tonumber(string.sub(entry, 9), 36)) end
end
