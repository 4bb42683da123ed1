import { DEMO_CLUBS, demoIds, demoMembers, demoStaff, demoStandings } from '../tenants/demo.ts'
import type { TenantStore } from '../tenants/store.ts'
import { zonedDayStartMs } from '../tenants/time.ts'
import type { DispensedLine } from './ledger/batches.ts'
import type { LedgerService } from './ledger/service.ts'
import type { DispensingService } from './service.ts'
import type { Standing } from './standing.ts'
import type { MemberStore } from './store/index.ts'

// Club Sur's demo members as the club knows them (src/tenants/demo.ts): a birth date giving the age the demo
// needs, a member for a year, the identity check by Admin Sur, Olga lapsed; and Lucía's handovers of this month in
// the record, written as a handover writes them (her caps checked and counted, then the hash-chained entry). Those
// stand for handovers at the counter with no backend order behind them (their order ids say `demo`); the lines
// come from the demo catalog, so seeding reads nothing from the commerce backend. A member with a standing keeps
// it (what staff changed survives a restart), and the record refuses a second handover of an order id, so a
// restart or a second instance adds nothing.

const DAY_MS = 86_400_000
const dayBefore = (day: string): string => new Date(Date.parse(`${day}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10)
type DemoStanding = typeof demoStandings[number]

/** The standing of a demo member on `today`; born on 1 January, so `years` is their age all year. */
function demoStanding (entry: DemoStanding, today: string, at: string): Standing {
  const year = Number(today.slice(0, 4))
  const admin = demoStaff.find((s) => s.role === 'admin' && s.tenants.includes(entry.tenantId))
  if (!admin) throw new Error(`demo club ${entry.tenantId} has no admin`)
  const memberSince = `${year - 1}-${today.slice(5, 7)}-01`
  return {
    status: entry.status,
    reason: entry.reason,
    birthDate: `${year - entry.years}-01-01`,
    memberSince,
    // a lapsed member's registration ended with last month
    validUntil: entry.status === 'lapsed' ? dayBefore(`${today.slice(0, 7)}-01`) : null,
    identityCheck: { at: `${memberSince}T15:00:00.000Z`, by: { id: admin.id, name: admin.name }, document: 'id-card' },
    monthlyAllowanceGrams: null,
    updatedAt: at,
  }
}

/** The club days of this month a demo member's handovers fall on: the 1st, the 2nd, ... never after today. */
export function demoDispensationDays (today: string, count: number): string[] {
  const month = today.slice(0, 7)
  return Array.from({ length: count }, (_, i) => `${month}-${String(i + 1).padStart(2, '0')}`).filter((d) => d <= today)
}

/** A handover's lines from the demo catalog, by SKU (a SKU it lacks is a mistake in the demo data). */
function demoLines (tenantId: string, orderId: string, items: ReadonlyArray<{ sku: string, quantity: number }>): DispensedLine[] {
  const club = DEMO_CLUBS.find((c) => c.tenantId === tenantId)
  return items.map((item, n) => {
    const product = club?.products.find((p) => p.variants.some((v) => v.sku === item.sku))
    const variant = product?.variants.find((v) => v.sku === item.sku)
    if (!club || !product || !variant?.grams) throw new Error(`demo SKU ${item.sku} is no flower of ${tenantId}`)
    return {
      orderId,
      lineId: `line_demo_${n + 1}`,
      productId: demoIds.product(club.short, product.key),
      variantId: null,
      product: `${product.title} ${variant.title}`,
      quantity: item.quantity,
      grams: variant.grams * item.quantity,
      thcPercent: product.thc ?? null,
      cbdPercent: product.cbd ?? null,
    }
  })
}

interface Deps { tenants: TenantStore, members: MemberStore, dispensing: DispensingService, ledger: LedgerService }

export async function seedDemoMembers ({ tenants, members, dispensing, ledger }: Deps, now = Date.now()): Promise<void> {
  for (const entry of demoStandings) {
    const tenant = await tenants.get(entry.tenantId)
    const member = demoMembers.find((m) => m.id === entry.memberId)
    const admin = demoStaff.find((s) => s.role === 'admin' && s.tenants.includes(entry.tenantId))
    if (!tenant || !member || !admin) continue
    const today = dispensing.dayOf(tenant, now)
    if ((await members.getStanding(tenant.id, entry.memberId)).updatedAt === null) {
      await members.putStanding(tenant.id, entry.memberId, demoStanding(entry, today, new Date(now).toISOString()), null)
    }
    for (const [i, day] of demoDispensationDays(today, entry.dispensed.length).entries()) {
      const orderId = `order_demo_${member.firstName.toLowerCase()}_${day}`
      if (await ledger.handedOver(tenant, orderId)) continue
      const lines = demoLines(tenant.id, orderId, entry.dispensed[i] ?? [])
      // noon of that club day, or now when that is earlier (the seed runs on the day itself)
      const ms = Math.min(zonedDayStartMs(day, tenant.timeZone) + 12 * 3_600_000, now)
      const ids = await dispensing.finalize(tenant, entry.memberId, null, lines.map((l) => ({ quantity: 1, grams: l.grams, thcPercent: l.thcPercent })), ms)
      const standing = await dispensing.standingOf(tenant, entry.memberId)
      try {
        await ledger.recordHandover(tenant, {
          orderId,
          at: ms,
          memberId: entry.memberId,
          memberName: `${member.firstName} ${member.lastName}`,
          memberBirthYear: standing.birthDate ? Number(standing.birthDate.slice(0, 4)) : null,
          staff: { id: admin.id, name: admin.name },
          lines,
        })
      } catch (err) {
        // another instance recorded it first (409): the grams counted here go back
        await dispensing.unuse(tenant, entry.memberId, ids.day, lines.reduce((sum, l) => sum + l.grams, 0))
        if (!await ledger.handedOver(tenant, orderId)) throw err
      }
    }
  }
}
