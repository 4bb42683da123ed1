import { defineScript } from '../../../stores/define-script.ts'
import type { AppendOutcome } from './port.ts'

// KEYS of the append and retention scripts: entries, head, byTime, orders, reversed (one club's tag), then the
// member and product indexes the entries touch (same tag); an entry names its indexes by their place in KEYS.

/** ARGV[7..]: per entry seq, ms, JSON, its member index's place in KEYS, its product index's (0: no product). */
export const appendScript = defineScript<[
  expectedSeq: number, seq: number, hash: string, orderId: string, reverses: string, ids: string, ...entries: Array<string | number>
], AppendOutcome>({
  name: 'ledgerAppend',
  keys: 'list',
  lua: `
local current = tonumber(redis.call('HGET', KEYS[2], 'seq') or '0')
if current ~= tonumber(ARGV[1]) then return 'moved' end
if ARGV[4] ~= '' and redis.call('HEXISTS', KEYS[4], ARGV[4]) == 1 then return 'handed-over' end
if ARGV[5] ~= '' and redis.call('HEXISTS', KEYS[5], ARGV[5]) == 1 then return 'reversed' end
for i = 7, #ARGV, 5 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
  redis.call('ZADD', KEYS[3], ARGV[i + 1], ARGV[i])
  redis.call('ZADD', KEYS[tonumber(ARGV[i + 3])], ARGV[i + 1], ARGV[i])
  local product = tonumber(ARGV[i + 4])
  if product > 0 then redis.call('ZADD', KEYS[product], ARGV[i + 1], ARGV[i]) end
end
redis.call('HSET', KEYS[2], 'seq', ARGV[2], 'hash', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[4], ARGV[4], ARGV[6]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[5], ARGV[5], ARGV[6]) end
return 'ok'`,
  decode: (raw) => String(raw) as AppendOutcome,
})

/**
 * Removes entries from the front while they are older than ARGV[1] (ms), at most ARGV[2]; the last hash removed
 * becomes the anchor. ARGV[3] is the first seq the caller read, ARGV[4..] per seq from it the places in KEYS of its
 * member and product indexes (0: none); -1 when the front moved meanwhile (nothing removed).
 */
export const removeBeforeScript = defineScript<[beforeMs: number, max: number, firstSeq: number, ...indexes: number[]], number>({
  name: 'ledgerRemoveBefore',
  keys: 'list',
  lua: `
local head = redis.call('HMGET', KEYS[2], 'seq', 'firstSeq')
local last = tonumber(head[1] or '0')
local seq = tonumber(head[2] or '1')
local first = tonumber(ARGV[3])
if seq ~= first then return -1 end
local removed = 0
while removed < tonumber(ARGV[2]) and seq <= last do
  local score = redis.call('ZSCORE', KEYS[3], tostring(seq))
  if not score or tonumber(score) >= tonumber(ARGV[1]) then break end
  local at = 4 + 2 * (seq - first)
  if not ARGV[at] then break end
  local raw = redis.call('HGET', KEYS[1], tostring(seq))
  if raw then
    local e = cjson.decode(raw)
    redis.call('HDEL', KEYS[4], e.orderId)
    redis.call('HDEL', KEYS[5], e.id)
    redis.call('HSET', KEYS[2], 'anchor', e.hash)
  end
  for _, place in ipairs({ tonumber(ARGV[at]), tonumber(ARGV[at + 1]) }) do
    if place > 0 then redis.call('ZREM', KEYS[place], tostring(seq)) end
  end
  redis.call('HDEL', KEYS[1], tostring(seq))
  redis.call('ZREM', KEYS[3], tostring(seq))
  seq = seq + 1
  redis.call('HSET', KEYS[2], 'firstSeq', seq)
  removed = removed + 1
end
return removed`,
  decode: (raw) => Number(raw),
})

/**
 * KEYS: an index (byTime, or a member's or product's), entries. ARGV: fromMs, toMs (excluded), offset, limit, and a
 * product id the entries must also have ('' none: a member's index filtered by product). Reply: the count of
 * matching entries, then the page's entry texts in sequence (false where one is missing).
 */
export const pageScript = defineScript<[fromMs: number, toMs: number, offset: number, limit: number, productId: string], {
  count: number, texts: Array<string | null>
}>({
  name: 'ledgerPage',
  keys: 2,
  lua: `
local seqs = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '(' .. ARGV[2])
local nums = {}
for i, s in ipairs(seqs) do nums[i] = tonumber(s) end
table.sort(nums)
local offset, limit, product = tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local out = { 0 }
local n = 0
for _, seq in ipairs(nums) do
  local raw = nil
  local keep = true
  if product ~= '' then
    raw = redis.call('HGET', KEYS[2], tostring(seq))
    keep = raw and cjson.decode(raw).productId == product
  end
  if keep then
    n = n + 1
    if n > offset and n <= offset + limit then out[#out + 1] = raw or redis.call('HGET', KEYS[2], tostring(seq)) end
  end
end
out[1] = n
return out`,
  decode: (raw) => {
    const [count, ...texts] = raw as [number, ...Array<string | null>]
    return { count: Number(count), texts }
  },
})
