import { requireRole, type Actor } from '../auth/actor.ts'
import type { LedgerEntry } from '../dispensing/ledger/chain.ts'
import type { LedgerService } from '../dispensing/ledger/service.ts'
import { AppError, conflict } from '../errors.ts'
import { keys } from '../stores/keys.ts'
import type { Locks } from '../stores/locks.ts'
import type { Role } from '../tenants/roles.ts'
import type { UpstreamOrder } from '../commerce/upstream.ts'
import { activity, authorOf } from './activity.ts'
import { loadLine, quotaOf } from './dispense.ts'
import { orderStatus } from './mapping.ts'
import type { Order } from './schemas.ts'
import { fulfillItems, shipFulfillment, type OrdersService } from './service.ts'

// POST /api/orders/{id}/handover: staff at the counter hand the order over in person. The member's standing and
// caps are checked again at that moment, the dispensing record is written, then the order is marked handed over
// (its metadata: from that write on every view shows it completed) and fulfilled, shipped and completed upstream.

/** Who hands orders over at the counter. */
export const HANDOVER_STAFF: readonly Role[] = ['admin']

// One handover of an order at a time, across instances; a holder that dies frees it after ttlMs.
const HANDOVER_LOCK = { ttlMs: 60_000, waitMs: 15_000 }

const nameOf = (o: UpstreamOrder): string => {
  const customer = [o.customer?.first_name, o.customer?.last_name].filter(Boolean).join(' ')
  const address = [o.shipping_address?.first_name, o.shipping_address?.last_name].filter(Boolean).join(' ')
  return customer || address || o.customer?.email || o.email || ''
}

export class HandoverService {
  constructor (
    private readonly orders: OrdersService, private readonly ledger: LedgerService, private readonly locks: Locks, private readonly now: () => number = Date.now
  ) {}

  async handover (actor: Actor, orderId: string, identityChecked: boolean): Promise<{ order: Order, entries: LedgerEntry[] }> {
    requireRole(actor, HANDOVER_STAFF)
    if (!identityChecked) {
      throw new AppError('VALIDATION_ERROR', 'The member\'s identity must be checked at every handover', {
        details: { errors: { identityChecked: ['must be true: staff saw the member\'s identity document'] } },
      })
    }
    return await this.locks.withLock(keys.dispensing.handoverLock(actor.tenant.id, orderId), HANDOVER_LOCK, async () => await this.handOver(actor, orderId))
  }

  private async handOver (actor: Actor, orderId: string): Promise<{ order: Order, entries: LedgerEntry[] }> {
    const { tenant } = actor
    const order = await this.orders.read(actor, orderId)
    if (orderStatus(order.status) === 'canceled') throw conflict('A canceled order cannot be handed over')
    if (typeof order.metadata?.handedOverAt === 'string' || await this.ledger.handedOver(tenant, orderId)) throw conflict('The order is already handed over')
    const ms = this.now()
    const entries = await this.recordDispensation(actor, order, ms)
    await this.orders.record(actor, orderId, [activity('orders:activity.handedOver', 'success', authorOf(actor), undefined, new Date(ms))], {
      handedOverAt: new Date(ms).toISOString(), handedOverBy: actor.sub, identityChecked: true, dispensingEntries: entries.map((e) => e.id),
    })
    await this.completeUpstream(actor, orderId)
    const after = await this.orders.get(actor, orderId)
    await this.orders.notify(actor, after, 'order.completed')
    return { order: after, entries }
  }

  /**
   * The dispensation itself, at `ms`: the member's standing and caps checked again (the order's reservation
   * becomes grams used, or the refusal is thrown) and the record written. Shared with the one-call order.
   */
  async recordDispensation (actor: Actor, order: UpstreamOrder, ms: number): Promise<LedgerEntry[]> {
    const { tenant } = actor
    const { dispense } = this.orders
    const memberId = dispense.memberOf(order)
    const lines = await dispense.lines(actor, order.id, order.items ?? [])
    const ids = await dispense.dispensing.finalize(tenant, memberId, quotaOf(order.metadata)?.holdId ?? null, lines.map(loadLine), ms)
    try {
      const standing = await dispense.dispensing.standingOf(tenant, memberId)
      return await this.ledger.recordHandover(tenant, {
        orderId: order.id,
        at: ms,
        memberId,
        memberName: nameOf(order),
        memberBirthYear: standing.birthDate ? Number(standing.birthDate.slice(0, 4)) : null,
        staff: { id: actor.sub, name: actor.name ?? actor.email ?? actor.sub },
        lines,
      })
    } catch (err) {
      // not recorded, not dispensed: the grams go back
      await dispense.dispensing.unuse(tenant, memberId, ids.day, lines.reduce((sum, l) => sum + l.grams, 0))
      throw err
    }
  }

  /**
   * Fulfilled, shipped and completed in the backend. The handover happened and is recorded whatever the backend
   * answers: a step it refuses is written to the order's log, and the order still shows handed over.
   */
  private async completeUpstream (actor: Actor, orderId: string): Promise<void> {
    const medusa = this.orders.medusa(actor)
    try {
      let order = await medusa.getOrder(orderId)
      const unfulfilled = (order.items ?? []).some((i) => i.quantity - (i.detail?.fulfilled_quantity ?? 0) > 0)
      if (unfulfilled) {
        await fulfillItems(medusa, order, undefined, undefined)
        order = await medusa.getOrder(orderId)
      }
      for (const f of order.fulfillments ?? []) if (!f.canceled_at && !f.shipped_at) await shipFulfillment(medusa, order, f.id)
      if (orderStatus(order.status) !== 'completed') await medusa.completeOrder(orderId)
    } catch (err) {
      this.orders.log.warn({ err, orderId, tenantId: actor.tenant.id }, 'handed over, but the backend did not take every step')
      await this.orders.record(actor, orderId, [
        activity('orders:activity.note', 'error', authorOf(actor), `handover: backend step failed: ${err instanceof AppError ? err.message : 'internal error'}`)
      ])
    }
  }
}
