import type { Load, PeriodIds, Refusal, RuleArgs, Totals } from '../decide.ts'
import type { Standing } from '../standing.ts'

// A member's standing, quota and reservations: each change of grams is one read-check-write (a Lua script on
// Redis, one synchronous step in memory), so instances racing on one member never cross a cap.

/** The store's verdict: the pure decision's, without the limits (the caller computes those when it shows them). */
export type Verdict = { ok: true } | { ok: false, refusal: Refusal }

/** A reservation: grams of an order placed but not yet handed over, counted in the periods it was placed in. */
export interface Hold { mg: number, ids: PeriodIds }

export interface MemberQuota {
  standing: Standing
  /** The member's totals on the periods asked for (an older period stored counts nothing). */
  totals: Totals
}

export interface MemberStore {
  /** The standing, or the default (active, nothing known) for a member the service has no record of. */
  getStanding (tenantId: string, memberId: string): Promise<Standing>
  /**
   * Writes the standing when its `updatedAt` is still `expected` (null: no record yet); false when someone wrote meanwhile.
   * A write also keeps the club's index by validUntil (`validUntilBetween`) up to date: a member is in it while
   * their standing has a validUntil and `awaitsExpiry`.
   */
  putStanding (tenantId: string, memberId: string, standing: Standing, expected: string | null): Promise<boolean>
  /** Members of the club whose validUntil is between `from` and `to` (days YYYY-MM-DD, both included), earliest first. */
  validUntilBetween (tenantId: string, from: string, to: string): Promise<Array<{ memberId: string, validUntil: string }>>
  /** Standing and totals in one read. */
  read (tenantId: string, memberId: string, ids: PeriodIds): Promise<MemberQuota>
  /** Checks and reserves `load` under `holdId`; a hold already there answers ok and counts nothing twice. */
  reserve (tenantId: string, memberId: string, holdId: string, args: RuleArgs, load: Load): Promise<Verdict>
  /** Gives the hold's grams back; answers the mg released (0: no such hold). */
  release (tenantId: string, memberId: string, holdId: string): Promise<number>
  /**
   * The handover: checks `load` on `args`' day with the hold's own reservation left out, then turns it into grams
   * used on that day (the hold, if any, is dropped). Nothing changes when refused.
   */
  finalize (tenantId: string, memberId: string, holdId: string | null, args: RuleArgs, load: Load): Promise<Verdict>
  /** Takes `mg` off the grams used in the periods `ids` (a reversing entry), where those periods are still current. */
  unuse (tenantId: string, memberId: string, ids: PeriodIds, mg: number): Promise<void>
}

/** A day YYYY-MM-DD as the index's score: days since 1970-01-01. */
export const dayNumber = (day: string): number => Math.round(Date.parse(`${day}T00:00:00Z`) / 86_400_000)
export const dayOfNumber = (n: number): string => new Date(n * 86_400_000).toISOString().slice(0, 10)
/** A standing the registration's end still changes (pending or active): lapsed, suspended and ended ones leave the index. */
export const awaitsExpiry = (s: Standing): boolean => s.status === 'active' || s.status === 'pending'
