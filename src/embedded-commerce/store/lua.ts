import { defineScript, type ScriptArg } from '../../stores/define-script.ts'
import type { ReplaceResult } from './port.ts'

// The Redis store's atomic steps. Every key comes through KEYS (the client adds its key prefix to those); the
// keys of one step belong to several records that share no hash tag, which is why the embedded backend refuses
// a Redis Cluster (config.ts and createCommerceStore).

/** KEYS: doc, indexes..., lookups...  ARGV: json, id, score, index count. False when the doc or a lookup exists. */
export const createDoc = defineScript<[json: string, id: string, score: number, indexCount: number], boolean>({
  name: 'commerceCreate',
  keys: 'list',
  decode: (raw) => raw === 1,
  lua: `
local nIdx = tonumber(ARGV[4])
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for i = 2 + nIdx, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then return 0 end
end
redis.call('HSET', KEYS[1], 'rev', 1, 'doc', ARGV[1])
for i = 2, 1 + nIdx do redis.call('ZADD', KEYS[i], ARGV[3], ARGV[2]) end
for i = 2 + nIdx, #KEYS do redis.call('SET', KEYS[i], ARGV[2]) end
return 1
`,
})

/**
 * KEYS: doc, cart-order marker (checked when ARGV[3] is '1'), stock hashes (ARGV[5] of them), indexes the doc
 *       enters (ARGV[6]), then per index it leaves: that index and the indexes that keep it there when one has an entry.
 * ARGV: expected rev, json, guard flag, now, stock hash count, entered index count, doc id, then per stock hash:
 *       location, stocked delta, reserved delta; per entered index: score; per left index: how many keep it.
 */
export const replaceDoc = defineScript<[
  rev: number, json: string, guard: '0' | '1', now: string, stockCount: number, addCount: number, id: string, ...rest: ScriptArg[]
], ReplaceResult>({
  name: 'commerceReplace',
  keys: 'list',
  lua: `
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev or tonumber(rev) ~= tonumber(ARGV[1]) then return 'conflict' end
if ARGV[3] == '1' and redis.call('EXISTS', KEYS[2]) == 1 then return 'completed' end
local nStock = tonumber(ARGV[5])
local nAdd = tonumber(ARGV[6])
for i = 3, 2 + nStock do
  local b = 7 + (i - 3) * 3
  local loc = ARGV[b + 1]
  local s = tonumber(redis.call('HGET', KEYS[i], loc .. ':stocked') or '0') + tonumber(ARGV[b + 2])
  local r = tonumber(redis.call('HGET', KEYS[i], loc .. ':reserved') or '0') + tonumber(ARGV[b + 3])
  if s < 0 or r < 0 then return 'stock' end
end
for i = 3, 2 + nStock do
  local b = 7 + (i - 3) * 3
  local loc = ARGV[b + 1]
  redis.call('HINCRBY', KEYS[i], loc .. ':stocked', ARGV[b + 2])
  redis.call('HINCRBY', KEYS[i], loc .. ':reserved', ARGV[b + 3])
  redis.call('HSET', KEYS[i], loc .. ':updated_at', ARGV[4])
end
redis.call('HSET', KEYS[1], 'rev', tonumber(rev) + 1, 'doc', ARGV[2])
local a = 8 + nStock * 3
for i = 1, nAdd do redis.call('ZADD', KEYS[2 + nStock + i], 'NX', ARGV[a + i - 1], ARGV[7]) end
local k = 3 + nStock + nAdd
for g = a + nAdd, #ARGV do
  local n = tonumber(ARGV[g])
  local kept = false
  for j = 1, n do
    if redis.call('ZCARD', KEYS[k + j]) > 0 then kept = true end
  end
  if not kept then redis.call('ZREM', KEYS[k], ARGV[7]) end
  k = k + 1 + n
end
return 'ok'
`,
})

/** KEYS: stock hash.  ARGV: location, quantity, level id, now. */
export const setStocked = defineScript<[location: string, quantity: number, levelId: string, now: string], 'ok' | 'below_reserved'>({
  name: 'commerceSetStocked',
  keys: 1,
  lua: `
local loc = ARGV[1]
if tonumber(ARGV[2]) < tonumber(redis.call('HGET', KEYS[1], loc .. ':reserved') or '0') then return 'below_reserved' end
if redis.call('HSETNX', KEYS[1], loc .. ':id', ARGV[3]) == 1 then
  redis.call('HSET', KEYS[1], loc .. ':created_at', ARGV[4], loc .. ':reserved', 0)
end
redis.call('HSET', KEYS[1], loc .. ':stocked', ARGV[2], loc .. ':updated_at', ARGV[4])
return 'ok'
`,
})

/**
 * KEYS: cart-order marker, cart doc, order doc, display_id sequence, indexes..., lookups..., when ARGV[8] is '1' the
 *       customer's doc, the index the customer's score is read from and the index a guest enters, then stock hashes...
 * ARGV: cart rev, order json (display_id as "__DISPLAY_ID__"), order id, score, now, index count, lookup count,
 *       guest flag, customer id, then per stock hash: location, quantity.
 */
export type CompleteCartReply =
  | { kind: 'created', displayId: number }
  | { kind: 'existing', orderId: string }
  | { kind: 'conflict' }
  /** `level`: the position (0-based) among the stock hashes of the one that falls short. */
  | { kind: 'insufficient', level: number }

type CompleteCartArgs = [
  cartRev: number, orderJson: string, orderId: string, score: number, now: string, indexCount: number, lookupCount: number,
  guest: '0' | '1', customerId: string, ...levels: ScriptArg[]
]

export const completeCart = defineScript<CompleteCartArgs, CompleteCartReply>({
  name: 'commerceCompleteCart',
  keys: 'list',
  decode: (raw) => {
    const [kind, value] = raw as [string, string]
    if (kind === 'existing') return { kind, orderId: value }
    if (kind === 'created') return { kind, displayId: Number(value) }
    if (kind === 'insufficient') return { kind, level: Number(value) - 1 }
    return { kind: 'conflict' }
  },
  lua: `
local existing = redis.call('GET', KEYS[1])
if existing then return {'existing', existing} end
local rev = redis.call('HGET', KEYS[2], 'rev')
if not rev or tonumber(rev) ~= tonumber(ARGV[1]) then return {'conflict', ''} end
local nIdx = tonumber(ARGV[6])
local nLk = tonumber(ARGV[7])
local g = 5 + nIdx + nLk
local first = g
if ARGV[8] == '1' then first = g + 3 end
for i = first, #KEYS do
  local b = 9 + (i - first) * 2
  local loc = ARGV[b + 1]
  local available = tonumber(redis.call('HGET', KEYS[i], loc .. ':stocked') or '0') - tonumber(redis.call('HGET', KEYS[i], loc .. ':reserved') or '0')
  if available < tonumber(ARGV[b + 2]) then return {'insufficient', tostring(i - first + 1)} end
end
for i = first, #KEYS do
  local b = 9 + (i - first) * 2
  local loc = ARGV[b + 1]
  redis.call('HINCRBY', KEYS[i], loc .. ':reserved', ARGV[b + 2])
  redis.call('HSET', KEYS[i], loc .. ':updated_at', ARGV[5])
end
local seq = redis.call('INCR', KEYS[4])
local json = string.gsub(ARGV[2], '"__DISPLAY_ID__"', tostring(seq), 1)
redis.call('HSET', KEYS[3], 'rev', 1, 'doc', json)
for i = 5, 4 + nIdx do redis.call('ZADD', KEYS[i], ARGV[4], ARGV[3]) end
for i = 5 + nIdx, 4 + nIdx + nLk do redis.call('SET', KEYS[i], ARGV[3]) end
redis.call('SET', KEYS[1], ARGV[3])
if ARGV[8] == '1' then
  local customer = redis.call('HGET', KEYS[g], 'doc')
  local at = redis.call('ZSCORE', KEYS[g + 1], ARGV[9])
  if customer and at and cjson.decode(customer).has_account ~= true then redis.call('ZADD', KEYS[g + 2], 'NX', at, ARGV[9]) end
end
return {'created', tostring(seq)}
`,
})
