import { defineScript, type ScriptArg } from '../../stores/define-script.ts'

// Lua for the batch store: every write of one or several batches in one script, touching only the keys in KEYS.

/**
 * Compare-and-set of several batches with their index, the variants' offers and, for a handover, the order's
 * draw (what was drawn for it, so that a handover retried draws nothing twice).
 * KEYS: the N batch hashes, the club's index, the club's draws hash, then the variant sets the change touches.
 * ARGV: N; per batch its expected version ('0': must not exist yet), doc, summary, index score, number; then
 * the order's field in the draws hash ('' when none), its expected value ('' absent) and its new value ('' removes
 * it); then per touched variant set: its position in KEYS, the score ('' removes the batch from it), the number.
 * Answers 0 when written, -1 when the order's draw differed, else the position of the first batch whose version did.
 */
export const writeBatches = defineScript<ScriptArg[], number>({
  name: 'batchesWrite',
  keys: 'list',
  lua: `
local n = tonumber(ARGV[1])
for i = 1, n do
  local v = redis.call('HGET', KEYS[i], 'v')
  if (v or '0') ~= ARGV[2 + (i - 1) * 5] then return i end
end
local m = 2 + n * 5
local order = ARGV[m]
if order ~= '' then
  local drawn = redis.call('HGET', KEYS[n + 2], order)
  if (drawn or '') ~= ARGV[m + 1] then return -1 end
end
for i = 1, n do
  local at = 2 + (i - 1) * 5
  redis.call('HSET', KEYS[i], 'doc', ARGV[at + 1], 'sum', ARGV[at + 2], 'v', tostring(tonumber(ARGV[at]) + 1))
  redis.call('ZADD', KEYS[n + 1], ARGV[at + 3], ARGV[at + 4])
end
if order ~= '' then
  if ARGV[m + 2] == '' then redis.call('HDEL', KEYS[n + 2], order) else redis.call('HSET', KEYS[n + 2], order, ARGV[m + 2]) end
end
for j = m + 3, #ARGV, 3 do
  local key = KEYS[tonumber(ARGV[j])]
  if ARGV[j + 1] == '' then redis.call('ZREM', key, ARGV[j + 2]) else redis.call('ZADD', key, ARGV[j + 1], ARGV[j + 2]) end
end
return 0`,
  decode: (raw) => Number(raw),
})
