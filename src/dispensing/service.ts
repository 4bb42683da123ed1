import { requireRole, type Actor } from '../auth/actor.ts'
import { AppError, conflict, notFound } from '../errors.ts'
import type { Tenant } from '../tenants/model.ts'
import type { Role } from '../tenants/roles.ts'
import { clubRulesSchema, PRESETS, rulesOf, type ClubRules, type PresetName } from '../tenants/rules.ts'
import type { TenantStore } from '../tenants/store.ts'
import { zonedDay } from '../tenants/time.ts'
import { factsOf, limitsOf, loadOf, PERIODS, periodIdsOf, ruleArgs, type LoadLine, type Period, type PeriodIds } from './decide.ts'
import { toGrams } from './dosage.ts'
import { deliveryRefused, refusalError } from './refusals.ts'
import { DEFAULT_STANDING, type DocumentKind, type Standing, type Status } from './standing.ts'
import type { MemberStore } from './store/index.ts'

// The club's rules, its members' standing and quota. Orders call `reserve`, `release` and `finalize` with the
// member's id and the order's lines; each is one atomic step in the member store.

/** Who reads the rules (growers plan the harvest by them) and who changes them and the members' standing. */
export const RULE_READERS: readonly Role[] = ['admin', 'grower']
export const RULE_WRITERS: readonly Role[] = ['admin']
const STANDING_KEEPERS: readonly Role[] = ['admin']

export type RulesPatch = Partial<Omit<ClubRules, 'preset'>> & { preset?: PresetName | undefined }

export interface StandingPatch {
  status?: Status | undefined
  reason?: string | null | undefined
  birthDate?: string | null | undefined
  memberSince?: string | null | undefined
  validUntil?: string | null | undefined
  identityCheck?: { document: DocumentKind, at?: string | undefined } | null | undefined
  monthlyAllowanceGrams?: number | null | undefined
}

interface PeriodQuota { period: Period, id: string, used: number, reserved: number, limit: number, remaining: number }

export interface QuotaView {
  memberId: string
  /** The club day the answer is for. */
  day: string
  status: Status
  young: boolean
  thcCeilingPercent: number | null
  /** Each period with a cap in force for this member, in grams. */
  periods: PeriodQuota[]
}

export interface DispensingDeps {
  tenants: TenantStore
  members: MemberStore
  now?: () => number
}

const PUT_ATTEMPTS = 5

export class DispensingService {
  private readonly now: () => number

  constructor (private readonly deps: DispensingDeps) {
    this.now = deps.now ?? Date.now
  }

  /** The club day of an instant (now by default), in the club's time zone. */
  dayOf (tenant: Tenant, ms = this.now()): string {
    return zonedDay(ms, tenant.timeZone)
  }

  rules (actor: Actor): ClubRules {
    requireRole(actor, RULE_READERS)
    return rulesOf(actor.tenant)
  }

  /** A preset named first, then the fields given on top of it (or of the club's current rules). */
  async changeRules (actor: Actor, patch: RulesPatch): Promise<ClubRules> {
    requireRole(actor, RULE_WRITERS)
    const { preset, ...fields } = patch
    const start = preset ? PRESETS[preset] : rulesOf(actor.tenant)
    const next = clubRulesSchema.parse({ ...start, ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) })
    const updated = await this.deps.tenants.update(actor.tenant.id, (t) => ({ ...t, rules: next }))
    if (!updated) throw notFound(`Tenant ${actor.tenant.id}`)
    return rulesOf(updated)
  }

  async standing (actor: Actor, memberId: string): Promise<Standing> {
    requireRole(actor, STANDING_KEEPERS)
    return await this.deps.members.getStanding(actor.tenant.id, memberId)
  }

  /** The member's standing, for a service acting for the club (a handover reads the birth year). */
  async standingOf (tenant: Tenant, memberId: string): Promise<Standing> {
    return await this.deps.members.getStanding(tenant.id, memberId)
  }

  /** The caller's own standing (any role: a member reads why they may not order). */
  async ownStanding (actor: Actor): Promise<Standing> {
    return await this.deps.members.getStanding(actor.tenant.id, actor.sub)
  }

  /** A patch of the standing; recording the identity check of a member pending on it makes them active. */
  async changeStanding (actor: Actor, memberId: string, patch: StandingPatch): Promise<Standing> {
    requireRole(actor, STANDING_KEEPERS)
    const today = this.dayOf(actor.tenant)
    if (patch.birthDate && patch.birthDate > today) {
      throw new AppError('VALIDATION_ERROR', 'The birth date is in the future', { details: { errors: { birthDate: [`on or before ${today}`] } } })
    }
    if (patch.identityCheck?.at && Date.parse(patch.identityCheck.at) > this.now() + 60_000) {
      throw new AppError('VALIDATION_ERROR', 'The identity check is in the future', { details: { errors: { 'identityCheck.at': ['not after now'] } } })
    }
    for (let attempt = 0; attempt < PUT_ATTEMPTS; attempt++) {
      const current = await this.deps.members.getStanding(actor.tenant.id, memberId)
      const next = applyStanding(current, patch, actor, new Date(this.now()).toISOString())
      if (await this.deps.members.putStanding(actor.tenant.id, memberId, next, current.updatedAt)) return next
    }
    throw conflict('The member\'s standing kept changing meanwhile: try again')
  }

  /** A member leaves the club: their standing ends (kept, as the record and a later return need it). */
  async endStanding (actor: Actor, memberId: string): Promise<Standing> {
    requireRole(actor, STANDING_KEEPERS)
    return await this.rewrite(actor.tenant, memberId, (s, at) => ({ ...s, status: 'ended', reason: 'left the club', updatedAt: at }))
  }

  /**
   * A member's personal data erased on request: the standing keeps only that it ended, the personal fields go
   * (birth date, identity check with who saw it, dates, allowance). The dispensing record is another matter: it
   * keeps name and birth year until its retention ends (append-only, hash-chained).
   */
  async eraseStanding (actor: Actor, memberId: string): Promise<Standing> {
    requireRole(actor, STANDING_KEEPERS)
    return await this.rewrite(actor.tenant, memberId, (_s, at) => ({ ...DEFAULT_STANDING, status: 'ended', reason: 'personal data erased', updatedAt: at }))
  }

  private async rewrite (tenant: Tenant, memberId: string, change: (current: Standing, at: string) => Standing): Promise<Standing> {
    for (let attempt = 0; attempt < PUT_ATTEMPTS; attempt++) {
      const current = await this.deps.members.getStanding(tenant.id, memberId)
      const next = change(current, new Date(this.now()).toISOString())
      if (await this.deps.members.putStanding(tenant.id, memberId, next, current.updatedAt)) return next
    }
    throw conflict('The member\'s standing kept changing meanwhile: try again')
  }

  /**
   * The standing of a member the club has just registered: a member since today, active unless the rules ask for
   * an identity check before the first dispensation. A member with a record already keeps it.
   */
  async startStanding (tenant: Tenant, memberId: string): Promise<Standing> {
    const current = await this.deps.members.getStanding(tenant.id, memberId)
    if (current.updatedAt !== null) return current
    const pending = rulesOf(tenant).identityCheckFirst
    const next: Standing = {
      ...current,
      status: pending ? 'pending' : 'active',
      reason: pending ? 'identity check before the first dispensation' : null,
      memberSince: this.dayOf(tenant),
      updatedAt: new Date(this.now()).toISOString(),
    }
    return await this.deps.members.putStanding(tenant.id, memberId, next, null) ? next : await this.deps.members.getStanding(tenant.id, memberId)
  }

  /** Admins read anyone's quota; anyone else only their own (404 otherwise, as for another's order). */
  async quota (actor: Actor, memberId: string): Promise<QuotaView> {
    if (!STANDING_KEEPERS.includes(actor.role) && memberId !== actor.sub) throw notFound(`Member ${memberId}`)
    return await this.quotaOf(actor.tenant, memberId)
  }

  /** What the member has used, reserved and may still receive today, this month and this year. */
  async quotaOf (tenant: Tenant, memberId: string): Promise<QuotaView> {
    const rules = rulesOf(tenant)
    const day = this.dayOf(tenant)
    const args = ruleArgs(rules, day)
    const { standing, totals } = await this.deps.members.read(tenant.id, memberId, args.ids)
    const { limits, young } = limitsOf(args, factsOf(standing))
    const periods = PERIODS.flatMap((period): PeriodQuota[] => {
      const limit = limits[period]
      if (limit === null) return []
      const { used, reserved } = totals[period]
      return [{
        period,
        id: args.ids[period],
        used: toGrams(used),
        reserved: toGrams(reserved),
        limit: toGrams(limit),
        remaining: toGrams(Math.max(0, limit - used - reserved))
      }]
    })
    return { memberId, day, status: standing.status, young, thcCeilingPercent: young ? rules.young?.maxThcPercent ?? null : null, periods }
  }

  /** 422 when the rules allow no delivery and the order asks for it. */
  checkShipping (tenant: Tenant, shippingMethod: string | undefined): void {
    if (shippingMethod?.toLowerCase() === 'delivery' && !rulesOf(tenant).deliveryAllowed) throw deliveryRefused()
  }

  /** Reserves the order's grams under `holdId` (the cart's id), or throws the refusal. Again with the same id: nothing more. */
  async reserve (tenant: Tenant, memberId: string, holdId: string, lines: readonly LoadLine[]): Promise<void> {
    const rules = rulesOf(tenant)
    const verdict = await this.deps.members.reserve(tenant.id, memberId, holdId, ruleArgs(rules, this.dayOf(tenant)), loadOf(lines))
    if (!verdict.ok) throw refusalError(verdict.refusal, rules)
  }

  /** Gives back what `holdId` reserved (a cancelled order, or a cart that did not become one). */
  async release (tenant: Tenant, memberId: string, holdId: string): Promise<number> {
    return toGrams(await this.deps.members.release(tenant.id, memberId, holdId))
  }

  /** The handover's check and count, at `ms`: the hold becomes grams used that club day, or the refusal is thrown. */
  async finalize (tenant: Tenant, memberId: string, holdId: string | null, lines: readonly LoadLine[], ms: number): Promise<PeriodIds> {
    const rules = rulesOf(tenant)
    const args = ruleArgs(rules, this.dayOf(tenant, ms))
    const verdict = await this.deps.members.finalize(tenant.id, memberId, holdId, args, loadOf(lines))
    if (!verdict.ok) throw refusalError(verdict.refusal, rules)
    return args.ids
  }

  /** Takes grams used on `day` back off the member's totals (a reversing entry, or a handover that could not be recorded). */
  async unuse (tenant: Tenant, memberId: string, day: string, grams: number): Promise<void> {
    await this.deps.members.unuse(tenant.id, memberId, periodIdsOf(day), Math.round(grams * 1000))
  }
}

function applyStanding (current: Standing, patch: StandingPatch, actor: Actor, now: string): Standing {
  const next: Standing = { ...current, updatedAt: now }
  if (patch.status !== undefined) next.status = patch.status
  if (patch.reason !== undefined) next.reason = patch.reason
  else if (patch.status !== undefined && patch.status !== current.status) next.reason = null
  if (patch.birthDate !== undefined) next.birthDate = patch.birthDate
  if (patch.memberSince !== undefined) next.memberSince = patch.memberSince
  if (patch.validUntil !== undefined) next.validUntil = patch.validUntil
  if (patch.monthlyAllowanceGrams !== undefined) next.monthlyAllowanceGrams = patch.monthlyAllowanceGrams
  if (patch.identityCheck !== undefined) {
    next.identityCheck = patch.identityCheck === null
      ? null
      : { at: patch.identityCheck.at ?? now, by: { id: actor.sub, name: actor.name ?? actor.email ?? actor.sub }, document: patch.identityCheck.document }
    if (patch.identityCheck !== null && current.status === 'pending' && patch.status === undefined) {
      next.status = 'active'
      if (patch.reason === undefined) next.reason = null
    }
  }
  return next
}
