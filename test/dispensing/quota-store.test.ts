import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { periodIdsOf, ruleArgs, type Load } from '../../src/dispensing/decide.ts'
import { DEFAULT_STANDING, type Standing } from '../../src/dispensing/standing.ts'
import { createMemberStore, type MemberStore } from '../../src/dispensing/store/index.ts'
import { MemoryMemberStore } from '../../src/dispensing/store/memory.ts'
import { PRESETS, type ClubRules } from '../../src/tenants/rules.ts'
import { contractStore, type StoreKind } from '../helper.ts'

// The member store's scripts against its memory twin (the pure `decide`): any sequence of reservations,
// releases, handovers, reversals and standing changes gets the same verdicts and leaves the same totals.

const DAYS = ['2026-01-31', '2026-02-01', '2026-02-01', '2026-02-02', '2026-12-31', '2027-01-01']
const RULES: ClubRules[] = [
  PRESETS['de-kcang'], PRESETS['uy-club'], { ...PRESETS['es-csc'], allowanceRequired: false, monthlyGrams: 12 }, PRESETS['ar-reprocann']
]
const standingArb: fc.Arbitrary<Standing> = fc.record({
  status: fc.constantFrom('active', 'active', 'active', 'pending', 'lapsed'),
  birthDate: fc.constantFrom(null, '2000-01-01', '2005-02-01', '2006-01-31', '2008-12-31'),
  memberSince: fc.constantFrom(null, '2025-12-01', '2026-02-01'),
  validUntil: fc.constantFrom(null, '2026-02-01', '2030-01-01'),
  monthlyAllowanceGrams: fc.constantFrom(null, 7, 60),
}).map((s) => ({ ...DEFAULT_STANDING, ...s }))
const loadArb: fc.Arbitrary<Load> = fc.record({
  mg: fc.constantFrom(0, 500, 1000, 2500, 5000, 12_000, 24_000, 25_000), maxThc: fc.constantFrom(-1, 8000, 18_000)
})

type Op =
  | { op: 'reserve', member: number, hold: number, rules: number, day: number, load: Load }
  | { op: 'release', member: number, hold: number }
  | { op: 'finalize', member: number, hold: number | null, rules: number, day: number, load: Load }
  | { op: 'unuse', member: number, day: number, mg: number }
  | { op: 'standing', member: number, standing: Standing }

const member = fc.integer({ min: 0, max: 1 })
const hold = fc.integer({ min: 0, max: 3 })
const dayIx = fc.integer({ min: 0, max: DAYS.length - 1 })
const rulesIx = fc.integer({ min: 0, max: RULES.length - 1 })
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('reserve' as const), member, hold, rules: rulesIx, day: dayIx, load: loadArb }),
  fc.record({ op: fc.constant('release' as const), member, hold }),
  fc.record({ op: fc.constant('finalize' as const), member, hold: fc.option(hold, { nil: null }), rules: rulesIx, day: dayIx, load: loadArb }),
  fc.record({ op: fc.constant('unuse' as const), member, day: dayIx, mg: fc.constantFrom(500, 5000) }),
  fc.record({ op: fc.constant('standing' as const), member, standing: standingArb })
)

async function run (store: MemberStore, tenant: string, op: Op): Promise<unknown> {
  const m = `cus_${op.member}`
  const day = 'day' in op ? DAYS[op.day] as string : ''
  switch (op.op) {
    case 'reserve': return await store.reserve(tenant, m, `cart_${op.hold}`, ruleArgs(RULES[op.rules] as ClubRules, day), op.load)
    case 'release': return await store.release(tenant, m, `cart_${op.hold}`)
    case 'finalize': return await store.finalize(tenant, m, op.hold === null ? null : `cart_${op.hold}`, ruleArgs(RULES[op.rules] as ClubRules, day), op.load)
    case 'unuse': return await store.unuse(tenant, m, periodIdsOf(day), op.mg)
    case 'standing': {
      const current = await store.getStanding(tenant, m)
      return await store.putStanding(tenant, m, { ...op.standing, updatedAt: `${Number(current.updatedAt ?? 0) + 1}` }, current.updatedAt)
    }
  }
}

describe.each(['redis', 'cluster'] as StoreKind[])('member store on %s', (kind) => {
  const store = contractStore(kind, createMemberStore)
  let run_ = 0

  it('agrees with the memory store (the pure decision) on any sequence of operations', async () => {
    await fc.assert(fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 30 }), async (ops) => {
      const tenant = `club-${kind}-${run_++}`
      const twin = new MemoryMemberStore()
      for (const op of ops) expect(await run(store(), tenant, op)).toEqual(await run(twin, tenant, op))
      for (const m of ['cus_0', 'cus_1']) {
        for (const day of DAYS) expect(await store().read(tenant, m, periodIdsOf(day))).toEqual(await twin.read(tenant, m, periodIdsOf(day)))
      }
    }), { numRuns: kind === 'cluster' ? 25 : 60 })
  })

  it('a standing write loses to one made meanwhile', async () => {
    const s = { ...DEFAULT_STANDING, status: 'suspended' as const, updatedAt: 'a' }
    expect(await store().putStanding('club-cas', 'cus_x', s, null)).toBe(true)
    expect(await store().putStanding('club-cas', 'cus_x', { ...s, status: 'active', updatedAt: 'b' }, null)).toBe(false)
    expect((await store().getStanding('club-cas', 'cus_x')).status).toBe('suspended')
    expect((await store().getStanding('club-cas', 'cus_unknown'))).toEqual(DEFAULT_STANDING)
  })
})
