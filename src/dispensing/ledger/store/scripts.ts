import { defineScript } from '../../../stores/define-script.ts'
import type { AppendOutcome } from './port.ts'

// KEYS of every ledger script: entries, head, byTime, orders, reversed (one club's tag).

export const appendScript = defineScript<[expectedSeq: number, seq: number, hash: string, orderId: string, reverses: string, ids: string, ...entries: Array<string | number>], AppendOutcome>({
  name: 'ledgerAppend',
  keys: 5,
  lua: `
local current = tonumber(redis.call('HGET', KEYS[2], 'seq') or '0')
if current ~= tonumber(ARGV[1]) then return 'moved' end
if ARGV[4] ~= '' and redis.call('HEXISTS', KEYS[4], ARGV[4]) == 1 then return 'handed-over' end
if ARGV[5] ~= '' and redis.call('HEXISTS', KEYS[5], ARGV[5]) == 1 then return 'reversed' end
for i = 7, #ARGV, 3 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
  redis.call('ZADD', KEYS[3], ARGV[i + 1], ARGV[i])
end
redis.call('HSET', KEYS[2], 'seq', ARGV[2], 'hash', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[4], ARGV[4], ARGV[6]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[5], ARGV[5], ARGV[6]) end
return 'ok'`,
  decode: (raw) => String(raw) as AppendOutcome,
})

/** Removes entries from the front while they are older than ARGV[1] (ms), at most ARGV[2]; the last hash removed becomes the anchor. */
export const removeBeforeScript = defineScript<[beforeMs: number, max: number], number>({
  name: 'ledgerRemoveBefore',
  keys: 5,
  lua: `
local head = redis.call('HMGET', KEYS[2], 'seq', 'firstSeq')
local last = tonumber(head[1] or '0')
local seq = tonumber(head[2] or '1')
local removed = 0
while removed < tonumber(ARGV[2]) and seq <= last do
  local score = redis.call('ZSCORE', KEYS[3], tostring(seq))
  if not score or tonumber(score) >= tonumber(ARGV[1]) then break end
  local raw = redis.call('HGET', KEYS[1], tostring(seq))
  if raw then
    local e = cjson.decode(raw)
    redis.call('HDEL', KEYS[4], e.orderId)
    redis.call('HDEL', KEYS[5], e.id)
    redis.call('HSET', KEYS[2], 'anchor', e.hash)
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
