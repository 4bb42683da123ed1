import type { Notifier } from '../notifications/types.ts'
import type { Tenant } from '../tenants/model.ts'
import { daysBefore } from './decide.ts'
import type { MemberStore } from './store/index.ts'
import { awaitsExpiry } from './store/port.ts'

// The daily pass over a club's registrations (docs/dispensing.md): ten days before `validUntil` the member is told
// (a `membership.expiring` notice, which the chat bot also sends to their linked phones), and on the day after it
// the standing becomes `lapsed`. Days are the club's; members are found through the club's index by validUntil.

const EXPIRING_DAYS = 10
const FIRST_DAY = '0001-01-01'
const PUT_ATTEMPTS = 3

export interface ExpiryReport { notified: number, lapsed: number }

const COPY = {
  es: { title: 'Tu membresía vence pronto', body: (day: string) => `Tu registro vence el ${day}. Renovalo con el club para seguir retirando.` },
  en: { title: 'Your membership expires soon', body: (day: string) => `Your registration expires on ${day}. Renew it with the club to keep collecting.` },
}

/**
 * One club's pass on the club day `today`. Re-running it is harmless: a notice is named by the member and the
 * validUntil it announces (notified once per validUntil, the chat's message too), and a lapsed member leaves the index.
 */
export async function expiryPass (deps: { members: MemberStore, notifier: Notifier }, tenant: Tenant, today: string): Promise<ExpiryReport> {
  const { members, notifier } = deps
  let notified = 0
  let lapsed = 0
  const inTen = daysBefore(today, -EXPIRING_DAYS)
  for (const { memberId } of await members.validUntilBetween(tenant.id, today, inTen)) {
    const standing = await members.getStanding(tenant.id, memberId)
    // the index may lag its standing (written right after it): the standing decides
    if (!standing.validUntil || standing.validUntil < today || standing.validUntil > inTen || !awaitsExpiry(standing)) continue
    const copy = COPY[tenant.locale]
    await notifier.notify({
      tenantId: tenant.id,
      recipientId: memberId,
      recipientRole: 'member',
      domain: 'memberships',
      event: 'membership.expiring',
      title: copy.title,
      body: copy.body(standing.validUntil),
      severity: 'warning',
      source: 'system',
      resourceType: 'membership',
      resourceId: memberId,
      metadata: { validUntil: standing.validUntil },
      externalId: `membership.expiring:${memberId}:${standing.validUntil}`,
    })
    notified++
  }
  for (const { memberId } of await members.validUntilBetween(tenant.id, FIRST_DAY, daysBefore(today, 1))) {
    if (await lapse(members, tenant.id, memberId, today)) lapsed++
  }
  return { notified, lapsed }
}

/** Lapses the member whose validUntil is before `today`, unless their standing changed meanwhile (then re-read). */
async function lapse (members: MemberStore, tenantId: string, memberId: string, today: string): Promise<boolean> {
  for (let attempt = 0; attempt < PUT_ATTEMPTS; attempt++) {
    const current = await members.getStanding(tenantId, memberId)
    if (!current.validUntil || current.validUntil >= today || !awaitsExpiry(current)) return false
    const next = { ...current, status: 'lapsed' as const, reason: `registration expired on ${current.validUntil}`, updatedAt: new Date().toISOString() }
    if (await members.putStanding(tenantId, memberId, next, current.updatedAt)) return true
  }
  return false
}
