import { decide, PERIODS, ZERO_TOTALS, factsOf, type Load, type PeriodIds, type RuleArgs, type Totals } from '../decide.ts'
import { DEFAULT_STANDING, type Standing } from '../standing.ts'
import { awaitsExpiry, type Hold, type MemberQuota, type MemberStore, type Verdict } from './port.ts'

// One process: each method reads, decides and writes without awaiting in between, as atomic as its script.

interface Counter { id: string, used: number, reserved: number }
const EMPTY: Counter = { id: '', used: 0, reserved: 0 }
interface Member { standing?: Standing, quota: Record<'day' | 'month' | 'year', Counter>, holds: Map<string, Hold> }

export class MemoryMemberStore implements MemberStore {
  private readonly members = new Map<string, Member>()
  /** club -> member id -> validUntil */
  private readonly byValidUntil = new Map<string, Map<string, string>>()

  private member (tenantId: string, memberId: string): Member {
    const k = `${tenantId} ${memberId}`
    let m = this.members.get(k)
    if (!m) {
      m = { quota: { day: { ...EMPTY }, month: { ...EMPTY }, year: { ...EMPTY } }, holds: new Map() }
      this.members.set(k, m)
    }
    return m
  }

  private totals (m: Member, ids: PeriodIds): Totals {
    const t = structuredClone(ZERO_TOTALS)
    for (const p of PERIODS) if (m.quota[p].id === ids[p]) t[p] = { used: m.quota[p].used, reserved: m.quota[p].reserved }
    return t
  }

  /** Adds to the current periods, starting a new one where `ids` is later than the one kept. */
  private bump (m: Member, ids: PeriodIds, field: 'used' | 'reserved', mg: number): void {
    for (const p of PERIODS) {
      const c = m.quota[p]
      if (c.id !== ids[p] && c.id > ids[p]) continue
      if (c.id !== ids[p]) Object.assign(c, { id: ids[p], used: 0, reserved: 0 })
      c[field] = Math.max(0, c[field] + mg)
    }
  }

  /** Takes off where the periods are still the ones kept (an older period is over: nothing to give back). */
  private unbump (m: Member, ids: PeriodIds, field: 'used' | 'reserved', mg: number): void {
    for (const p of PERIODS) if (m.quota[p].id === ids[p]) m.quota[p][field] = Math.max(0, m.quota[p][field] - mg)
  }

  async getStanding (tenantId: string, memberId: string) {
    return structuredClone(this.member(tenantId, memberId).standing ?? DEFAULT_STANDING)
  }

  async putStanding (tenantId: string, memberId: string, standing: Standing, expected: string | null) {
    const m = this.member(tenantId, memberId)
    if ((m.standing?.updatedAt ?? null) !== expected) return false
    m.standing = structuredClone(standing)
    const index = this.byValidUntil.get(tenantId) ?? new Map<string, string>()
    this.byValidUntil.set(tenantId, index)
    if (standing.validUntil && awaitsExpiry(standing)) index.set(memberId, standing.validUntil)
    else index.delete(memberId)
    return true
  }

  async validUntilBetween (tenantId: string, from: string, to: string) {
    return [...(this.byValidUntil.get(tenantId) ?? new Map<string, string>())]
      .filter(([, day]) => day >= from && day <= to)
      .sort(([a, x], [b, y]) => x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0)
      .map(([memberId, validUntil]) => ({ memberId, validUntil }))
  }

  async read (tenantId: string, memberId: string, ids: PeriodIds): Promise<MemberQuota> {
    const m = this.member(tenantId, memberId)
    return { standing: structuredClone(m.standing ?? DEFAULT_STANDING), totals: this.totals(m, ids) }
  }

  async reserve (tenantId: string, memberId: string, holdId: string, args: RuleArgs, load: Load): Promise<Verdict> {
    const m = this.member(tenantId, memberId)
    if (m.holds.has(holdId)) return { ok: true }
    const d = decide(args, factsOf(m.standing ?? DEFAULT_STANDING), this.totals(m, args.ids), load)
    if (!d.ok) return d
    if (load.mg > 0) {
      this.bump(m, args.ids, 'reserved', load.mg)
      m.holds.set(holdId, { mg: load.mg, ids: { ...args.ids } })
    }
    return { ok: true }
  }

  async release (tenantId: string, memberId: string, holdId: string) {
    const m = this.member(tenantId, memberId)
    const hold = m.holds.get(holdId)
    if (!hold) return 0
    this.unbump(m, hold.ids, 'reserved', hold.mg)
    m.holds.delete(holdId)
    return hold.mg
  }

  async finalize (tenantId: string, memberId: string, holdId: string | null, args: RuleArgs, load: Load): Promise<Verdict> {
    const m = this.member(tenantId, memberId)
    const hold = holdId === null ? undefined : m.holds.get(holdId)
    const totals = this.totals(m, args.ids)
    if (hold) for (const p of PERIODS) if (hold.ids[p] === args.ids[p]) totals[p].reserved = Math.max(0, totals[p].reserved - hold.mg)
    const d = decide(args, factsOf(m.standing ?? DEFAULT_STANDING), totals, load)
    if (!d.ok) return d
    if (hold && holdId !== null) {
      this.unbump(m, hold.ids, 'reserved', hold.mg)
      m.holds.delete(holdId)
    }
    if (load.mg > 0) this.bump(m, args.ids, 'used', load.mg)
    return { ok: true }
  }

  async unuse (tenantId: string, memberId: string, ids: PeriodIds, mg: number) {
    this.unbump(this.member(tenantId, memberId), ids, 'used', mg)
  }
}
