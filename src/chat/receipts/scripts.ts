import { defineScript } from '../../stores/define-script.ts'

// A receipt's hash keeps, per status, the earliest time it was reported, and the earliest failure: minimums,
// which any order of the same events reaches alike (the merge of src/chat/provider/receipts.ts, field by field).

/** The fields of one receipt as HMGET answers them: meta, sent, delivered, read, failed (null when absent). */
export type RawReceipt = [meta: string | null, sent: string | null, delivered: string | null, read: string | null, failed: string | null]
export const FIELDS = ['meta', 'sent', 'delivered', 'read', 'failed'] as const

const rawList = (raw: unknown): Array<RawReceipt | null> =>
  (raw as Array<Array<string | null> | null>).map((r) => Array.isArray(r) && r[0] !== null ? r as RawReceipt : null)

// KEYS: the receipts of one address, each once. ARGV: for each key, its count of updates, then per update its
// status, its time and (for a failure) its JSON {at, code?, title}. Answers, per key, its fields before the
// updates, or nil for an unknown message (nothing is written then). The failure kept is the earliest, then the
// lowest code, then the title: the order the merge uses.
export const apply = defineScript<string[], Array<RawReceipt | null>>({
  name: 'chatReceiptApply',
  keys: 'list',
  lua: `
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
`,
  decode: rawList,
})

// KEYS: receipts of one address. Answers each one's fields, or nil when it is unknown.
export const read = defineScript<[], Array<RawReceipt | null>>({
  name: 'chatReceiptRead',
  keys: 'list',
  lua: `
local out = {}
for i, key in ipairs(KEYS) do
  local fields = redis.call('HMGET', key, 'meta', 'sent', 'delivered', 'read', 'failed')
  if fields[1] then out[i] = fields else out[i] = false end
end
return out
`,
  decode: rawList,
})
