import type { CropStatus } from '../../../machines/crop.machine.ts'
import { defineScript } from '../../stores/define-script.ts'
import type { AddPlantsResult, CreateCropResult } from './port.ts'

// Lua for the crop store: each read-check-write in one script, touching only the keys in KEYS.

type Reply = Array<string | number>

/**
 * KEYS: crop hash, tenant index, active set, plants list, plant codes.
 * ARGV: id, doc, status, active ('1'|'0'), maxActive, score, summary, then code/plant JSON pairs.
 */
export const createCrop = defineScript<[
  id: string, doc: string, status: string, active: '1' | '0', maxActive: number, score: number, summary: string, ...plants: string[]
], CreateCropResult>({
  name: 'cropCreate',
  keys: 5,
  lua: `
if redis.call('EXISTS', KEYS[1]) == 1 then return {'EXISTS'} end
if ARGV[4] == '1' then
  local current = redis.call('SCARD', KEYS[3])
  if current >= tonumber(ARGV[5]) then return {'LIMIT_EXCEEDED', current} end
  redis.call('SADD', KEYS[3], ARGV[1])
end
redis.call('HSET', KEYS[1], 'doc', ARGV[2], 'status', ARGV[3], 'v', '1', 'sum', ARGV[7])
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
for i = 8, #ARGV, 2 do
  redis.call('SADD', KEYS[5], ARGV[i])
  redis.call('RPUSH', KEYS[4], ARGV[i + 1])
end
return {'OK'}`,
  decode: (raw) => {
    const [outcome, current] = raw as Reply
    if (outcome === 'EXISTS') return { ok: false, reason: 'EXISTS' }
    if (outcome === 'LIMIT_EXCEEDED') return { ok: false, reason: 'LIMIT_EXCEEDED', current: Number(current) }
    return { ok: true }
  },
})

/**
 * Compare-and-set of a crop record. KEYS: crop hash, active set. ARGV: expected version, doc, status, id, active, summary.
 * Returns 1 written, 0 gone, -1 someone wrote first.
 */
export const updateCrop = defineScript<[version: string, doc: string, status: string, id: string, active: '1' | '0', summary: string], 1 | 0 | -1>({
  name: 'cropUpdate',
  keys: 2,
  lua: `
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return 0 end
if v ~= ARGV[1] then return -1 end
redis.call('HSET', KEYS[1], 'doc', ARGV[2], 'status', ARGV[3], 'v', tostring(tonumber(v) + 1), 'sum', ARGV[6])
if ARGV[5] == '1' then redis.call('SADD', KEYS[2], ARGV[4]) else redis.call('SREM', KEYS[2], ARGV[4]) end
return 1`,
})

/**
 * KEYS: crop hash, plant codes, plants list. ARGV: frozen statuses as ',A,B,', then code/plant JSON pairs.
 * All or none: refused when the crop is gone, frozen, or a code is taken (the taken codes are returned).
 */
export const addPlants = defineScript<[frozen: string, ...plants: string[]], AddPlantsResult>({
  name: 'cropAddPlants',
  keys: 3,
  lua: `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'NOT_FOUND'} end
if string.find(ARGV[1], ',' .. status .. ',', 1, true) then return {'FROZEN', status} end
local taken = {'DUPLICATE'}
for i = 2, #ARGV, 2 do
  if redis.call('SISMEMBER', KEYS[2], ARGV[i]) == 1 then taken[#taken + 1] = ARGV[i] end
end
if #taken > 1 then return taken end
for i = 2, #ARGV, 2 do
  redis.call('SADD', KEYS[2], ARGV[i])
  redis.call('RPUSH', KEYS[3], ARGV[i + 1])
end
return {'OK'}`,
  decode: (raw) => {
    const [outcome, ...rest] = raw as Reply
    if (outcome === 'NOT_FOUND') return { ok: false, reason: 'NOT_FOUND' }
    if (outcome === 'FROZEN') return { ok: false, reason: 'FROZEN', status: rest[0] as CropStatus }
    if (outcome === 'DUPLICATE') return { ok: false, reason: 'DUPLICATE', codes: rest.map(String) }
    return { ok: true }
  },
})

/** KEYS: crop hash, tenant index, active set, plants list, plant codes. ARGV: id. Returns 1 when the crop existed. */
export const removeCrop = defineScript<[id: string], boolean>({
  name: 'cropRemove',
  keys: 5,
  lua: `
local existed = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('DEL', KEYS[4], KEYS[5])
return existed
`,
  decode: (raw) => raw === 1,
})
