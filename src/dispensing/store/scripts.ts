import { defineScript } from '../../stores/define-script.ts'
import { PERIODS, type Load, type Period, type RuleArgs } from '../decide.ts'
import { STATUSES, type Status } from '../standing.ts'
import type { Verdict } from './port.ts'

// The member's scripts. KEYS of the checking ones: standing, quota, holds (one member's tag). `CHECK` is
// `decide` of src/dispensing/decide.ts in Lua: the same order of checks, the same numbers (mg, thousandths of a
// percent, -1 for none, '' for an unknown day); test/dispensing/quota-store.test.ts runs both on the same cases.

const CHECK = `
local function num (v) return tonumber(v) or 0 end
local P = { 'd', 'm', 'y' }
local NAMES = { 'day', 'month', 'year' }
local function argsAt (i)
  return {
    ids = { ARGV[i], ARGV[i + 1], ARGV[i + 2] },
    caps = { tonumber(ARGV[i + 3]), tonumber(ARGV[i + 4]), tonumber(ARGV[i + 5]) },
    youngAfter = ARGV[i + 6], youngMonth = tonumber(ARGV[i + 7]), youngThc = tonumber(ARGV[i + 8]),
    minAgeAfter = ARGV[i + 9], joinedBy = ARGV[i + 10], regReq = ARGV[i + 11] == '1', allowReq = ARGV[i + 12] == '1',
    mg = tonumber(ARGV[i + 13]), maxThc = tonumber(ARGV[i + 14]),
  }
end
local function facts (key)
  local f = redis.call('HMGET', key, 'status', 'birthDate', 'memberSince', 'validUntil', 'allowance')
  local allowance = -1
  if f[5] and f[5] ~= '' then allowance = tonumber(f[5]) end
  return { status = f[1] or 'active', birth = f[2] or '', since = f[3] or '', valid = f[4] or '', allowance = allowance }
end
local function totals (qkey, a)
  local raw = redis.call('HMGET', qkey, 'd', 'du', 'dr', 'm', 'mu', 'mr', 'y', 'yu', 'yr')
  local t = {}
  for i = 1, 3 do
    local b = (i - 1) * 3
    if raw[b + 1] == a.ids[i] then t[i] = { num(raw[b + 2]), num(raw[b + 3]) } else t[i] = { 0, 0 } end
  end
  return t
end
local function decide (f, a, t)
  if f.status ~= 'active' then return { 'status', f.status } end
  if f.valid ~= '' then
    if f.valid < a.ids[1] then return { 'registration', f.valid } end
  elseif a.regReq then return { 'registration', '' } end
  if a.minAgeAfter ~= '' and f.birth ~= '' and f.birth > a.minAgeAfter then return { 'under-age' } end
  if a.joinedBy ~= '' and f.since ~= '' and f.since > a.joinedBy then return { 'min-days', f.since } end
  if a.allowReq and f.allowance < 0 then return { 'allowance' } end
  local young = a.youngAfter ~= '' and f.birth ~= '' and f.birth > a.youngAfter
  local month = a.caps[2]
  if young and a.youngMonth ~= -1 then
    if month == -1 then month = a.youngMonth else month = math.min(month, a.youngMonth) end
  end
  if f.allowance >= 0 then
    if young and a.youngMonth ~= -1 then month = math.min(f.allowance, a.youngMonth) else month = f.allowance end
  end
  if a.mg == 0 then return { 'ok' } end
  if young and a.youngThc ~= -1 and a.maxThc > a.youngThc then return { 'thc' } end
  local limits = { a.caps[1], month, a.caps[3] }
  for i = 1, 3 do
    if limits[i] ~= -1 then
      local current = t[i][1] + t[i][2]
      if current + a.mg > limits[i] then return { 'limit', NAMES[i], current, limits[i] } end
    end
  end
  return { 'ok' }
end
local function bump (qkey, ids, field, mg)
  for i = 1, 3 do
    local p = P[i]
    local cur = redis.call('HGET', qkey, p)
    if not (cur and cur ~= ids[i] and cur > ids[i]) then
      if cur ~= ids[i] then redis.call('HSET', qkey, p, ids[i], p .. 'u', 0, p .. 'r', 0) end
      local v = num(redis.call('HGET', qkey, p .. field)) + mg
      if v < 0 then v = 0 end
      redis.call('HSET', qkey, p .. field, v)
    end
  end
end
local function unbump (qkey, ids, field, mg)
  for i = 1, 3 do
    local p = P[i]
    if redis.call('HGET', qkey, p) == ids[i] then
      local v = num(redis.call('HGET', qkey, p .. field)) - mg
      if v < 0 then v = 0 end
      redis.call('HSET', qkey, p .. field, v)
    end
  end
end
`

/** ARGV of CHECK, in its order. */
export function checkArgs (a: RuleArgs, load: Load): Array<string | number> {
  return [
    a.ids.day, a.ids.month, a.ids.year, a.caps.day, a.caps.month, a.caps.year,
    a.youngBornAfter, a.youngMonthCap, a.youngThcCeiling, a.minAgeBornAfter, a.joinedBy,
    a.registrationRequired ? '1' : '0', a.allowanceRequired ? '1' : '0', load.mg, load.maxThc,
  ]
}

function verdictOf (raw: unknown): Verdict {
  const [kind, a, b, c] = raw as [string, string | number | undefined, number | undefined, number | undefined]
  switch (kind) {
    case 'ok': return { ok: true }
    case 'status': return { ok: false, refusal: { kind: 'status', status: (STATUSES as readonly string[]).includes(String(a)) ? a as Status : 'ended' } }
    case 'registration': return { ok: false, refusal: { kind: 'registration', validUntil: a ? String(a) : null } }
    case 'under-age': return { ok: false, refusal: { kind: 'under-age' } }
    case 'min-days': return { ok: false, refusal: { kind: 'min-days', memberSince: String(a) } }
    case 'allowance': return { ok: false, refusal: { kind: 'allowance' } }
    case 'thc': return { ok: false, refusal: { kind: 'thc' } }
    case 'limit': return {
      ok: false,
      refusal: { kind: 'limit', period: (PERIODS as readonly string[]).includes(String(a)) ? a as Period : 'day', current: Number(b), limit: Number(c) }
    }
    default: throw new Error(`unexpected quota script reply ${String(kind)}`)
  }
}

export const reserveScript = defineScript<[holdId: string, ...check: Array<string | number>], Verdict>({
  name: 'dispensingReserve',
  keys: 3,
  lua: `${CHECK}
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return { 'ok' } end
local a = argsAt(2)
local d = decide(facts(KEYS[1]), a, totals(KEYS[2], a))
if d[1] ~= 'ok' then return d end
if a.mg > 0 then
  bump(KEYS[2], a.ids, 'r', a.mg)
  redis.call('HSET', KEYS[3], ARGV[1], cjson.encode({ mg = a.mg, d = a.ids[1], m = a.ids[2], y = a.ids[3] }))
end
return d`,
  decode: verdictOf,
})

export const finalizeScript = defineScript<[holdId: string, ...check: Array<string | number>], Verdict>({
  name: 'dispensingFinalize',
  keys: 3,
  lua: `${CHECK}
local a = argsAt(2)
local hold
if ARGV[1] ~= '' then
  local raw = redis.call('HGET', KEYS[3], ARGV[1])
  if raw then hold = cjson.decode(raw) end
end
local t = totals(KEYS[2], a)
local hids
if hold then
  hids = { hold.d, hold.m, hold.y }
  for i = 1, 3 do
    if hids[i] == a.ids[i] then t[i][2] = math.max(0, t[i][2] - hold.mg) end
  end
end
local d = decide(facts(KEYS[1]), a, t)
if d[1] ~= 'ok' then return d end
if hold then
  unbump(KEYS[2], hids, 'r', hold.mg)
  redis.call('HDEL', KEYS[3], ARGV[1])
end
if a.mg > 0 then bump(KEYS[2], a.ids, 'u', a.mg) end
return d`,
  decode: verdictOf,
})

export const releaseScript = defineScript<[holdId: string], number>({
  name: 'dispensingRelease',
  keys: 2,
  lua: `${CHECK}
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then return 0 end
local hold = cjson.decode(raw)
unbump(KEYS[1], { hold.d, hold.m, hold.y }, 'r', hold.mg)
redis.call('HDEL', KEYS[2], ARGV[1])
return hold.mg`,
  decode: (raw) => Number(raw),
})

export const unuseScript = defineScript<[day: string, month: string, year: string, mg: number], number>({
  name: 'dispensingUnuse',
  keys: 1,
  lua: `${CHECK}
unbump(KEYS[1], { ARGV[1], ARGV[2], ARGV[3] }, 'u', tonumber(ARGV[4]))
return 1`,
  decode: (raw) => Number(raw),
})

export const putStandingScript = defineScript<[
  expected: string, doc: string, status: string, birthDate: string, memberSince: string, validUntil: string, allowance: string, updatedAt: string
], boolean>({
  name: 'dispensingPutStanding',
  keys: 1,
  lua: `
if (redis.call('HGET', KEYS[1], 'updatedAt') or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'doc', ARGV[2], 'status', ARGV[3], 'birthDate', ARGV[4], 'memberSince', ARGV[5], 'validUntil', ARGV[6],
  'allowance', ARGV[7], 'updatedAt', ARGV[8])
return 1`,
  decode: (raw) => raw === 1,
})

export const readScript = defineScript<[], [doc: string | null, quota: Array<string | null>]>({
  name: 'dispensingRead',
  keys: 2,
  lua: `
return { redis.call('HGET', KEYS[1], 'doc') or false, redis.call('HMGET', KEYS[2], 'd', 'du', 'dr', 'm', 'mu', 'mr', 'y', 'yu', 'yr') }`,
  decode: (raw) => {
    const [doc, quota] = raw as [string | null, Array<string | null>]
    return [doc ?? null, quota]
  },
})
