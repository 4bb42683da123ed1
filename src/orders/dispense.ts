import type { Actor } from '../auth/actor.ts'
import type { DispensingService } from '../dispensing/service.ts'
import type { DispensedLine } from '../dispensing/ledger/batches.ts'
import type { Tenant } from '../tenants/model.ts'
import { rulesOf } from '../tenants/rules.ts'
import type { UpstreamOrder } from '../commerce/upstream.ts'
import type { Product } from './schemas.ts'

// An order's grams under the club's rules: the order paths reserve them before the cart completes (keyed by the
// cart), a cancel releases them, the handover makes them final. The order's metadata says whose quota and which
// reservation (`dispensing: {memberId, holdId}`), so a cancel or handover on another instance finds them.

export interface VariantFacts { productId: string, product: string, grams: number | null, thcPercent: number | null, cbdPercent: number | null }

export interface OrderQuota { memberId: string, holdId: string }

/** The club's products as kept (and read again, once, when a variant is not among them). */
export interface CatalogSource {
  products: (actor: Actor) => Promise<Product[]>
  fresh: (actor: Actor) => Promise<Product[]>
}

/** The order's reservation as its metadata keeps it; undefined for an order placed before rules existed. */
export function quotaOf (metadata: Record<string, unknown> | null | undefined): OrderQuota | undefined {
  const d = metadata?.dispensing
  if (typeof d !== 'object' || d === null) return undefined
  const { memberId, holdId } = d as Record<string, unknown>
  return typeof memberId === 'string' && typeof holdId === 'string' ? { memberId, holdId } : undefined
}

export const quotaMetadata = (q: OrderQuota): Record<string, unknown> => ({ dispensing: { memberId: q.memberId, holdId: q.holdId } })

const factsIn = (products: Product[]): Map<string, VariantFacts> => new Map(products.flatMap((p) => p.variants.map((v) => [v.id, {
  productId: p.id,
  product: v.title && v.title !== p.title
    ? `${p.title} ${v.title}`
    : p.title,
  grams: v.grams,
  thcPercent: v.thcPercent,
  cbdPercent: v.cbdPercent,
}] as const)))

/** The THC a dispensation of the variant may carry, from the batches it is packaged from (the dispensing record knows them). */
export type BatchThc = (tenant: Tenant, variantId: string, own: number | null) => Promise<number | null>

export class OrderDispensing {
  constructor (readonly dispensing: DispensingService, private readonly catalog: CatalogSource, private readonly batchThc?: BatchThc) {}

  /** What each variant holds, from the kept catalog; a variant missing from it sends one fresh read. */
  async facts (actor: Actor, variantIds: readonly string[]): Promise<Map<string, VariantFacts>> {
    let facts = factsIn(await this.catalog.products(actor))
    if (variantIds.some((id) => !facts.has(id))) facts = factsIn(await this.catalog.fresh(actor))
    return facts
  }

  /** The order's or cart's lines with their grams, THC and CBD (a variant the club does not list counts nothing). */
  async lines (
    actor: Actor, orderId: string, items: ReadonlyArray<{ id?: string, variant_id?: string | null, quantity: number, title?: string | null }>
  ): Promise<DispensedLine[]> {
    const facts = await this.facts(actor, items.flatMap((i) => i.variant_id ? [i.variant_id] : []))
    // a THC ceiling (young members) is checked on the batches' lab THC where the variant is packaged from batches:
    // read only in a club whose rules set one, for controlled variants
    const ceiling = rulesOf(actor.tenant).young?.maxThcPercent != null
    const thc = await Promise.all(items.map(async (i) => {
      const f = i.variant_id ? facts.get(i.variant_id) : undefined
      const own = f?.thcPercent ?? null
      return ceiling && this.batchThc && i.variant_id && f?.grams ? await this.batchThc(actor.tenant, i.variant_id, own) : own
    }))
    return items.map((i, n) => {
      const f = i.variant_id ? facts.get(i.variant_id) : undefined
      const perUnit = f?.grams ?? null
      return {
        orderId,
        lineId: i.id ?? `line_${n + 1}`,
        productId: f?.productId ?? null,
        variantId: i.variant_id ?? null,
        product: f?.product ?? i.title ?? '',
        quantity: i.quantity,
        grams: perUnit === null ? 0 : Math.round(perUnit * i.quantity * 1000) / 1000,
        thcPercent: thc[n] ?? null,
        cbdPercent: f?.cbdPercent ?? null,
      }
    })
  }

  /**
   * Checks delivery and reserves the cart's grams for `memberId` under the cart's id: refused with the rule's
   * error before the cart completes. Made again (a repeated completion), it reserves nothing twice.
   */
  async reserveCart (
    actor: Actor, memberId: string, cart: { id: string, items?: ReadonlyArray<{ variant_id?: string | null, quantity: number }> | null },
    shipping: string | undefined
  ): Promise<OrderQuota> {
    this.dispensing.checkShipping(actor.tenant, shipping)
    const lines = await this.lines(actor, '', cart.items ?? [])
    await this.dispensing.reserve(actor.tenant, memberId, cart.id, lines.map(loadLine))
    return { memberId, holdId: cart.id }
  }

  /** Gives the reservation back (a cart that did not become an order, a cancelled order). */
  async release (tenant: Tenant, quota: OrderQuota): Promise<void> {
    await this.dispensing.release(tenant, quota.memberId, quota.holdId)
  }

  /** The member an order counts against: the one its reservation names, else its customer. */
  memberOf (order: Pick<UpstreamOrder, 'metadata' | 'customer_id'>): string {
    return quotaOf(order.metadata)?.memberId ?? order.customer_id ?? ''
  }
}

/** A dispensed line as the quota counts it: grams per unit times units is the line's grams. */
export const loadLine = (l: DispensedLine) => ({ quantity: 1, grams: l.grams > 0 ? l.grams : null, thcPercent: l.thcPercent })
