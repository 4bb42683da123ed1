import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  decide, factsOf, limitsOf, loadOf, PERIODS, ruleArgs, yearsBefore, ZERO_TOTALS, type Load, type StandingFacts, type Totals,
} from '../../src/dispensing/decide.ts'
import { dosageOf } from '../../src/dispensing/dosage.ts'
import { DEFAULT_STANDING } from '../../src/dispensing/standing.ts'
import { PRESETS, type ClubRules } from '../../src/tenants/rules.ts'

// The pure decision: properties over any rules, standing, totals and order, and the presets' cases by hand.

const adult: StandingFacts = factsOf(DEFAULT_STANDING)
const g = (grams: number): Load => ({ mg: grams * 1000, maxThc: 18_000 })
const totals = (used: Partial<Record<'day' | 'month' | 'year', number>>, reserved: Partial<Record<'day' | 'month' | 'year', number>> = {}): Totals => ({
  day: { used: (used.day ?? 0) * 1000, reserved: (reserved.day ?? 0) * 1000 },
  month: { used: (used.month ?? 0) * 1000, reserved: (reserved.month ?? 0) * 1000 },
  year: { used: (used.year ?? 0) * 1000, reserved: (reserved.year ?? 0) * 1000 },
})

const day = fc.date({ min: new Date('2001-01-01T00:00:00Z'), max: new Date('2090-12-31T00:00:00Z'), noInvalidDate: true }).map((d) =>
  d.toISOString().slice(0, 10))
const cap = fc.option(fc.integer({ min: 1, max: 600 }), { nil: null })
const rulesArb: fc.Arbitrary<ClubRules> = fc.record({
  preset: fc.constant('custom'),
  dailyGrams: cap,
  monthlyGrams: cap,
  yearlyGrams: cap,
  young: fc.option(
    fc.record({ underAge: fc.integer({ min: 18, max: 25 }), monthlyGrams: cap, maxThcPercent: fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }) }),
    { nil: null }
  ),
  minAge: fc.option(fc.integer({ min: 16, max: 21 }), { nil: null }),
  deliveryAllowed: fc.boolean(),
  minMembershipDays: fc.integer({ min: 0, max: 120 }),
  identityCheckFirst: fc.boolean(),
  registrationRequired: fc.boolean(),
  allowanceRequired: fc.boolean(),
  retentionYears: fc.constant(5),
})
const factsArb: fc.Arbitrary<StandingFacts> = fc.record({
  status: fc.constantFrom('pending', 'active', 'active', 'active', 'suspended', 'lapsed', 'ended'),
  birthDate: fc.option(day, { nil: null }),
  memberSince: fc.option(day, { nil: null }),
  validUntil: fc.option(day, { nil: null }),
  allowance: fc.option(fc.integer({ min: 1, max: 200_000 }), { nil: null }),
})
const slot = fc.record({ used: fc.integer({ min: 0, max: 700_000 }), reserved: fc.integer({ min: 0, max: 700_000 }) })
const totalsArb: fc.Arbitrary<Totals> = fc.record({ day: slot, month: slot, year: slot })
const loadArb: fc.Arbitrary<Load> = fc.record({ mg: fc.integer({ min: 0, max: 200_000 }), maxThc: fc.integer({ min: -1, max: 100_001 }) })

describe('decide (properties)', () => {
  it('an allowed order never takes a period past its cap; a refused cap names a period it would cross, with the figures that cross it', () => {
    fc.assert(fc.property(rulesArb, day, factsArb, totalsArb, loadArb, (rules, d, facts, t, load) => {
      const args = ruleArgs(rules, d)
      const decision = decide(args, facts, t, load)
      const { limits } = limitsOf(args, facts)
      if (decision.ok) {
        if (load.mg > 0) for (const p of PERIODS) if (limits[p] !== null) expect(t[p].used + t[p].reserved + load.mg).toBeLessThanOrEqual(limits[p] as number)
      } else if (decision.refusal.kind === 'limit') {
        const { period, current, limit } = decision.refusal
        expect(limit).toBe(limits[period])
        expect(current).toBe(t[period].used + t[period].reserved)
        expect(current + load.mg).toBeGreaterThan(limit)
      }
    }))
  })

  it('a smaller order of the same member is allowed whenever a larger one is', () => {
    fc.assert(fc.property(rulesArb, day, factsArb, totalsArb, loadArb, fc.double({ min: 0, max: 1, noNaN: true }), (rules, d, facts, t, load, share) => {
      const args = ruleArgs(rules, d)
      if (!decide(args, facts, t, load).ok) return
      expect(decide(args, facts, t, { ...load, mg: Math.floor(load.mg * share) }).ok).toBe(true)
    }))
  })

  it('only an active member is ever allowed, and a member not active is refused whatever the order', () => {
    fc.assert(fc.property(rulesArb, day, factsArb, totalsArb, loadArb, (rules, d, facts, t, load) => {
      const decision = decide(ruleArgs(rules, d), facts, t, load)
      if (facts.status !== 'active') expect(decision).toEqual({ ok: false, refusal: { kind: 'status', status: facts.status } })
    }))
  })

  it('young means younger than underAge on the day, counted as the calendar counts birthdays (29 February too)', () => {
    fc.assert(fc.property(day, day, fc.integer({ min: 18, max: 25 }), (d, birth, underAge) => {
      const rules = { ...PRESETS['de-kcang'], young: { underAge, monthlyGrams: 30, maxThcPercent: 10 } }
      const [by, bm, bd] = birth.split('-').map(Number) as [number, number, number]
      const [dy, dm, dd] = d.split('-').map(Number) as [number, number, number]
      const age = dy - by - (dm < bm || (dm === bm && dd < bd) ? 1 : 0)
      expect(limitsOf(ruleArgs(rules, d), { ...adult, birthDate: birth }).young).toBe(age < underAge)
    }))
  })

  it('grams count by whole milligrams and only for variants with grams; an unknown THC is above any ceiling', () => {
    expect(loadOf([{ quantity: 3, grams: 0.1, thcPercent: 5 }, { quantity: 2, grams: null, thcPercent: null }])).toEqual({ mg: 300, maxThc: 5000 })
    expect(loadOf([{ quantity: 1, grams: 5, thcPercent: null }]).maxThc).toBeGreaterThan(100_000)
    expect(loadOf([{ quantity: 4, grams: null, thcPercent: 30 }])).toEqual({ mg: 0, maxThc: -1 })
    expect(dosageOf({ weight: 5, metadata: { thc: '18.5', cbd: 0.4 } })).toEqual({ grams: 5, thcPercent: 18.5, cbdPercent: 0.4 })
    expect(dosageOf({ weight: 5, metadata: { grams: '3.5' } }).grams).toBe(3.5)
    expect(dosageOf({ weight: 0, metadata: { grams: -2, thc: 140 } })).toEqual({ grams: null, thcPercent: null, cbdPercent: null })
  })
})

describe('the presets on a club day', () => {
  const kcang = (d: string) => ruleArgs(PRESETS['de-kcang'], d)

  it('de-kcang: 49 g this month plus 2 g is refused with the monthly figures; 1 g passes', () => {
    const t = totals({ month: 49, year: 49 })
    expect(decide(kcang('2026-11-27'), adult, t, g(2))).toEqual({ ok: false, refusal: { kind: 'limit', period: 'month', current: 49_000, limit: 50_000 } })
    expect(decide(kcang('2026-11-27'), adult, t, g(1)).ok).toBe(true)
  })

  it('de-kcang: 25 g a day, reserved grams count as taken', () => {
    expect(decide(kcang('2026-11-27'), adult, totals({ day: 20 }, { day: 5 }), g(1))).toMatchObject({ ok: false, refusal: { period: 'day', current: 25_000 } })
    expect(decide(kcang('2026-11-27'), adult, totals({}), g(26))).toMatchObject({ ok: false, refusal: { period: 'day', limit: 25_000 } })
  })

  it('de-kcang: a member turning 21 on the 15th has the young cap and THC ceiling until the 14th and the adult cap from the 15th', () => {
    const member = { ...adult, birthDate: '2005-11-15' }
    const t = totals({ month: 30, year: 30 })
    expect(decide(kcang('2026-11-14'), member, t, { mg: 1000, maxThc: 8000 })).toEqual({
      ok: false, refusal: { kind: 'limit', period: 'month', current: 30_000, limit: 30_000 }
    })
    expect(decide(kcang('2026-11-14'), member, totals({}), { mg: 1000, maxThc: 10_500 })).toEqual({ ok: false, refusal: { kind: 'thc' } })
    expect(decide(kcang('2026-11-15'), member, t, { mg: 1000, maxThc: 18_000 }).ok).toBe(true)
    expect(yearsBefore('2028-02-29', 21)).toBe('2007-02-29')
  })

  it('a personal allowance replaces the monthly cap (above or below it); the young cap still bounds it', () => {
    const t = totals({ month: 20, year: 20 })
    expect(decide(kcang('2026-11-27'), { ...adult, allowance: 20_000 }, t, g(1))).toMatchObject({ ok: false, refusal: { period: 'month', limit: 20_000 } })
    const es = ruleArgs(PRESETS['es-csc'], '2026-11-27')
    expect(decide(es, adult, t, g(1))).toEqual({ ok: false, refusal: { kind: 'allowance' } })
    expect(decide(es, { ...adult, allowance: 90_000 }, totals({ month: 89 }), g(1)).ok).toBe(true)
    expect(limitsOf(kcang('2026-11-27'), { ...adult, birthDate: '2006-01-01', allowance: 45_000 }).limits.month).toBe(30_000)
  })

  it('the minimum membership days: refused until the day the member has been one that long', () => {
    const args = (d: string) => ruleArgs({ ...PRESETS['de-kcang'], minMembershipDays: 90 }, d)
    const member = { ...adult, memberSince: '2026-09-01' }
    expect(decide(args('2026-11-29'), member, ZERO_TOTALS, g(1))).toEqual({ ok: false, refusal: { kind: 'min-days', memberSince: '2026-09-01' } })
    expect(decide(args('2026-11-30'), member, ZERO_TOTALS, g(1)).ok).toBe(true)
  })

  it('uy-club caps the year at 480 g; ar-reprocann needs a registration in force', () => {
    expect(decide(ruleArgs(PRESETS['uy-club'], '2026-12-31'), adult, totals({ year: 479.5 }), g(1))).toMatchObject({
      ok: false, refusal: { period: 'year', limit: 480_000 }
    })
    expect(decide(ruleArgs(PRESETS['uy-club'], '2027-01-01'), adult, ZERO_TOTALS, g(40)).ok).toBe(true)
    const ar = ruleArgs(PRESETS['ar-reprocann'], '2026-11-27')
    expect(decide(ar, adult, ZERO_TOTALS, g(1))).toEqual({ ok: false, refusal: { kind: 'registration', validUntil: null } })
    expect(decide(ar, { ...adult, validUntil: '2026-11-26' }, ZERO_TOTALS, g(1))).toEqual({
      ok: false, refusal: { kind: 'registration', validUntil: '2026-11-26' }
    })
    expect(decide(ar, { ...adult, validUntil: '2026-11-27' }, ZERO_TOTALS, g(100)).ok).toBe(true)
  })

  it('none: anything to an active member, as before rules existed; a product without grams passes any cap', () => {
    expect(decide(ruleArgs(PRESETS.none, '2026-11-27'), adult, totals({ day: 10_000 }), g(5000)).ok).toBe(true)
    expect(decide(kcang('2026-11-27'), adult, totals({ day: 25, month: 50 }), { mg: 0, maxThc: -1 }).ok).toBe(true)
  })
})
