import type { ClubRules } from '../tenants/rules.ts'
import { toMg } from './dosage.ts'
import type { Standing, Status } from './standing.ts'

// Whether an order may be dispensed under the club's rules, decided from numbers and dates only. Pure. The same
// decision runs in Redis (src/dispensing/store/scripts.ts mirrors `decide` in Lua), where the member's totals
// are read, checked and written in one step; the memory store and the quota's answers call it here.

export const PERIODS = ['day', 'month', 'year'] as const
export type Period = typeof PERIODS[number]
export type PeriodIds = Record<Period, string>

/** The club day (YYYY-MM-DD) and the calendar month and year it falls in. */
export const periodIdsOf = (day: string): PeriodIds => ({ day, month: day.slice(0, 7), year: day.slice(0, 4) })

const NONE = -1
/** THC of a controlled line with no figure: above any ceiling (unknown is not under 10 %). */
const UNKNOWN_THC = 100_001

/** The rules of one club day, as numbers (mg, thousandths of a percent) and days: what the Lua script gets. */
export interface RuleArgs {
  ids: PeriodIds
  /** mg; -1 none */
  caps: Record<Period, number>
  /** A member born after this day is a young adult on this day; '' no young rule. */
  youngBornAfter: string
  /** mg; -1 the club's monthly cap */
  youngMonthCap: number
  /** thousandths of a percent; -1 none */
  youngThcCeiling: number
  /** A member born after this day is under the minimum age; '' none. */
  minAgeBornAfter: string
  /** A member since after this day has not been one long enough; '' none. */
  joinedBy: string
  registrationRequired: boolean
  allowanceRequired: boolean
}

/** What the script reads of the member's standing. */
export interface StandingFacts {
  status: Status
  birthDate: string | null
  memberSince: string | null
  validUntil: string | null
  /** mg */
  allowance: number | null
}

export const factsOf = (s: Standing): StandingFacts => ({
  status: s.status,
  birthDate: s.birthDate,
  memberSince: s.memberSince,
  validUntil: s.validUntil,
  allowance: s.monthlyAllowanceGrams === null ? null : toMg(s.monthlyAllowanceGrams),
})

/** An order's weight: its controlled grams (mg) and its strongest line's THC (thousandths of a percent; -1 none). */
export interface Load { mg: number, maxThc: number }

export interface LoadLine { quantity: number, grams: number | null, thcPercent: number | null }

export function loadOf (lines: readonly LoadLine[]): Load {
  let mg = 0
  let maxThc = NONE
  for (const l of lines) {
    if (l.grams === null || l.grams <= 0) continue
    mg += toMg(l.grams * l.quantity)
    maxThc = Math.max(maxThc, l.thcPercent === null ? UNKNOWN_THC : Math.round(l.thcPercent * 1000))
  }
  return { mg, maxThc }
}

interface Slot { used: number, reserved: number }
export type Totals = Record<Period, Slot>
export const ZERO_TOTALS: Totals = { day: { used: 0, reserved: 0 }, month: { used: 0, reserved: 0 }, year: { used: 0, reserved: 0 } }

export type Refusal =
  | { kind: 'status', status: Status }
  | { kind: 'registration', validUntil: string | null }
  | { kind: 'under-age' }
  | { kind: 'min-days', memberSince: string }
  | { kind: 'allowance' }
  | { kind: 'thc' }
  | { kind: 'limit', period: Period, current: number, limit: number }

export type Limits = Record<Period, number | null>
export type Decision = { ok: true, limits: Limits, young: boolean } | { ok: false, refusal: Refusal }

const pad = (n: number, width: number): string => String(n).padStart(width, '0')

/** The same day `years` earlier, as a string that compares right against birth dates (a 29 February included). */
export const yearsBefore = (day: string, years: number): string => `${pad(Number(day.slice(0, 4)) - years, 4)}${day.slice(4)}`

export const daysBefore = (day: string, days: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10)

const capMg = (grams: number | null): number => grams === null ? NONE : toMg(grams)

export function ruleArgs (rules: ClubRules, day: string): RuleArgs {
  return {
    ids: periodIdsOf(day),
    caps: { day: capMg(rules.dailyGrams), month: capMg(rules.monthlyGrams), year: capMg(rules.yearlyGrams) },
    youngBornAfter: rules.young ? yearsBefore(day, rules.young.underAge) : '',
    youngMonthCap: rules.young ? capMg(rules.young.monthlyGrams) : NONE,
    youngThcCeiling: rules.young?.maxThcPercent != null ? Math.round(rules.young.maxThcPercent * 1000) : NONE,
    minAgeBornAfter: rules.minAge !== null ? yearsBefore(day, rules.minAge) : '',
    joinedBy: rules.minMembershipDays > 0 ? daysBefore(day, rules.minMembershipDays) : '',
    registrationRequired: rules.registrationRequired,
    allowanceRequired: rules.allowanceRequired,
  }
}

/** Young on the rules' day: born after the day `underAge` years back (turning 21 on the day makes one an adult). */
const isYoung = (args: RuleArgs, s: StandingFacts): boolean =>
  args.youngBornAfter !== '' && s.birthDate !== null && s.birthDate > args.youngBornAfter

/** The member's caps on the rules' day (mg, null none): a personal allowance replaces the club's monthly cap. */
export function limitsOf (args: RuleArgs, s: StandingFacts): { limits: Limits, young: boolean } {
  const young = isYoung(args, s)
  let month = args.caps.month
  if (young && args.youngMonthCap !== NONE) month = month === NONE ? args.youngMonthCap : Math.min(month, args.youngMonthCap)
  if (s.allowance !== null) month = young && args.youngMonthCap !== NONE ? Math.min(s.allowance, args.youngMonthCap) : s.allowance
  const some = (n: number): number | null => n === NONE ? null : n
  return { limits: { day: some(args.caps.day), month: some(month), year: some(args.caps.year) }, young }
}

/** The standing's refusal on the rules' day, if any: whatever the order holds. */
function standingRefusal (args: RuleArgs, s: StandingFacts): Refusal | undefined {
  if (s.status !== 'active') return { kind: 'status', status: s.status }
  if (s.validUntil !== null ? s.validUntil < args.ids.day : args.registrationRequired) return { kind: 'registration', validUntil: s.validUntil }
  if (args.minAgeBornAfter !== '' && s.birthDate !== null && s.birthDate > args.minAgeBornAfter) return { kind: 'under-age' }
  if (args.joinedBy !== '' && s.memberSince !== null && s.memberSince > args.joinedBy) return { kind: 'min-days', memberSince: s.memberSince }
  if (args.allowanceRequired && s.allowance === null) return { kind: 'allowance' }
  return undefined
}

/** The decision on an order of `load` with the member's `totals` of the rules' day (used and reserved, mg). */
export function decide (args: RuleArgs, s: StandingFacts, totals: Totals, load: Load): Decision {
  const refused = standingRefusal(args, s)
  if (refused) return { ok: false, refusal: refused }
  const { limits, young } = limitsOf(args, s)
  if (load.mg === 0) return { ok: true, limits, young }
  if (young && args.youngThcCeiling !== NONE && load.maxThc > args.youngThcCeiling) return { ok: false, refusal: { kind: 'thc' } }
  for (const period of PERIODS) {
    const limit = limits[period]
    if (limit === null) continue
    const current = totals[period].used + totals[period].reserved
    if (current + load.mg > limit) return { ok: false, refusal: { kind: 'limit', period, current, limit } }
  }
  return { ok: true, limits, young }
}
