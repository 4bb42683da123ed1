import type { FastifyBaseLogger } from 'fastify'
import { requireRole, type Actor } from '../auth/actor.ts'
import type { Role } from '../tenants/roles.ts'
import type { UpstreamSessionStore } from '../commerce/sessions.ts'
import { AppError, conflict, notFound } from '../errors.ts'
import type { Notifier } from '../notifications/types.ts'
import type { Tenant } from '../tenants/model.ts'
import { keys } from '../stores/keys.ts'
import type { Locks } from '../stores/locks.ts'
import { activity, authorOf, withActivities } from './activity.ts'
import { isShippedOrDelivered, mapActivities, mapOrder, mapOrderSummary, orderStatus } from './mapping.ts'
import type { Medusa } from '../commerce/medusa.ts'
import { notifyMember, shippingMethodOf, type NotifiedOrder, type OrderEvent } from './notify.ts'
import type { Activity, FulfillmentStatus, Order, OrderStatus, OrderSummary, PaymentStatus } from './schemas.ts'
import type { UpstreamOrder } from '../commerce/upstream.ts'
import { quotaOf, type OrderDispensing } from './dispense.ts'

// Orders as the club's staff and members see them: reads scoped to the tenant's sales channel (and, for a
// member, to their own orders), and the admin steps, each followed by a re-read of the order.

export interface ListFilter {
  limit: number
  offset: number
  status?: OrderStatus
  fulfillmentStatus?: FulfillmentStatus
  paymentStatus?: PaymentStatus
  customerId?: string
}

/** Who sees every order of the club and takes the admin steps ; anyone else sees their own. */
export const ORDER_MANAGERS: readonly Role[] = ['admin']

// Filters on mapped statuses run here (the backend computes its statuses on read and cannot filter on them):
// the tenant's orders are read in pages up to this bound.
const SCAN_PAGE = 100
const SCAN_MAX = 2000
const MEMBER_IDS_MAX = 50

// The order's metadata is read, changed and written back whole (the backend has no compare-and-set on it), so
// writers of one order take its lock, across instances; a writer that dies frees it after METADATA_LOCK.ttlMs.
const METADATA_LOCK = { ttlMs: 30_000, waitMs: 15_000 }

export interface OrdersDeps {
  sessions: UpstreamSessionStore
  notifier: Notifier
  locks: Locks
  log: FastifyBaseLogger
  /** The club's commerce backend. */
  medusaFor: (tenant: Tenant) => Medusa
  dispense: OrderDispensing
}

export class OrdersService {
  private readonly customerIds = new WeakMap<Actor, Promise<string[] | undefined>>()

  constructor (private readonly deps: OrdersDeps) {}

  get dispense (): OrderDispensing {
    return this.deps.dispense
  }

  get log (): FastifyBaseLogger {
    return this.deps.log
  }

  medusa (actor: Actor): Medusa {
    return this.deps.medusaFor(actor.tenant)
  }

  /**
   * The upstream customer ids whose orders the caller may see: undefined (every order) for an admin; for anyone
   * else (members, and growers, whose work is the crops and the stock, not the orders) their token's subject,
   * their club login, and their email's customers.
   */
  async memberCustomerIds (actor: Actor): Promise<string[] | undefined> {
    // Looked up once per actor, that is per request or bot turn: a turn that lists the orders and then reads one asks once.
    let ids = this.customerIds.get(actor)
    if (!ids) {
      ids = this.lookUpCustomerIds(actor)
      this.customerIds.set(actor, ids)
      ids.catch(() => this.customerIds.delete(actor))
    }
    return await ids
  }

  private async lookUpCustomerIds (actor: Actor): Promise<string[] | undefined> {
    if (seesEveryOrder(actor)) return undefined
    const session = await this.deps.sessions.get(actor.tenant.id, actor.sub)
    const ids = new Set([actor.sub, ...(session?.customerId ? [session.customerId] : [])])
    if (actor.email) for (const id of await customerIdsWithEmail(this.medusa(actor), actor.email)) ids.add(id)
    return [...ids]
  }

  async list (actor: Actor, filter: ListFilter): Promise<{ orders: OrderSummary[], count: number }> {
    const own = await this.memberCustomerIds(actor)
    let customerIds = own
    if (filter.customerId) customerIds = own ? own.filter((id) => id === filter.customerId) : [filter.customerId]
    if (customerIds?.length === 0) return { orders: [], count: 0 }
    const local = filter.status ?? filter.fulfillmentStatus ?? filter.paymentStatus
    if (!local) {
      // limit=0 still needs the count: ask for one row and drop it.
      const page = await this.medusa(actor).listOrders({ limit: Math.max(filter.limit, 1), offset: filter.offset, customerIds })
      return { orders: page.orders.slice(0, filter.limit).map(mapOrderSummary), count: page.count }
    }
    const matching: OrderSummary[] = []
    for (let offset = 0; offset < SCAN_MAX; offset += SCAN_PAGE) {
      const page = await this.medusa(actor).listOrders({ limit: SCAN_PAGE, offset, customerIds })
      for (const o of page.orders) {
        const summary = mapOrderSummary(o)
        if (filter.status && summary.status !== filter.status) continue
        if (filter.paymentStatus && summary.paymentStatus !== filter.paymentStatus) continue
        if (filter.fulfillmentStatus && summary.fulfillmentStatus !== filter.fulfillmentStatus) continue
        matching.push(summary)
      }
      if (page.orders.length < SCAN_PAGE || offset + SCAN_PAGE >= page.count) break
    }
    return { orders: matching.slice(filter.offset, filter.offset + filter.limit), count: matching.length }
  }

  /** The order, if it is this tenant's and (unless the caller is an admin) theirs; else 404, never a hint that it exists. */
  async read (actor: Actor, orderId: string): Promise<UpstreamOrder> {
    const medusa = this.medusa(actor)
    const order = await medusa.getOrder(orderId)
    if (order.sales_channel_id && order.sales_channel_id !== medusa.settings.salesChannelId) throw notFound('Order')
    const own = await this.memberCustomerIds(actor)
    if (own && !own.includes(order.customer_id ?? '')) throw notFound('Order')
    return order
  }

  async get (actor: Actor, orderId: string): Promise<Order> {
    return mapOrder(await this.read(actor, orderId))
  }

  async activities (actor: Actor, orderId: string): Promise<Activity[]> {
    return mapActivities((await this.read(actor, orderId)).metadata)
  }

  async capture (actor: Actor, orderId: string): Promise<Order> {
    requireRole(actor, ORDER_MANAGERS)
    const order = await this.read(actor, orderId)
    if (await capturePayments(this.medusa(actor), order) === 0) return mapOrder(order)
    const after = await this.record(actor, orderId, [activity('orders:activity.paymentConfirmed', 'success', authorOf(actor))])
    await this.notify(actor, after, 'order.paymentConfirmed')
    return after
  }

  async fulfill (actor: Actor, orderId: string, items: Array<{ id: string, quantity: number }> | undefined, locationId: string | undefined): Promise<{
    order: Order, fulfillmentId: string
  }> {
    requireRole(actor, ORDER_MANAGERS)
    const order = await this.read(actor, orderId)
    const fulfillmentId = await fulfillItems(this.medusa(actor), order, items, locationId)
    const after = await this.record(actor, orderId, [activity('orders:activity.fulfilled', 'success', authorOf(actor))])
    // a pickup order is ready once packed; a delivery order is news when it ships
    const shippingMethod = shippingOf(order)
    if (shippingMethod === 'pickup') await this.notify(actor, { ...after, shippingMethod }, 'order.shipped')
    return { order: after, fulfillmentId }
  }

  async ship (actor: Actor, orderId: string, fulfillmentId: string): Promise<Order> {
    requireRole(actor, ORDER_MANAGERS)
    const order = await this.read(actor, orderId)
    await shipFulfillment(this.medusa(actor), order, fulfillmentId)
    const after = await this.record(actor, orderId, [activity('orders:activity.shipped', 'success', authorOf(actor))])
    await this.notify(actor, { ...after, shippingMethod: shippingOf(order) }, 'order.shipped')
    return after
  }

  /**
   * Cancels an order not yet shipped. Medusa cancels only orders without live fulfillments, so packed but
   * unshipped fulfillments are canceled first (their units go back to the order's reservation). Staff's reason,
   * when given, is the note of the cancellation event.
   */
  async cancel (actor: Actor, orderId: string, reason?: string): Promise<Order> {
    requireRole(actor, ORDER_MANAGERS)
    const order = await this.read(actor, orderId)
    refuseCancel(order)
    const medusa = this.medusa(actor)
    const author = authorOf(actor)
    // A canceled order's metadata can no longer be changed upstream: the event is written first, and a refusal after it is noted.
    await this.record(actor, orderId, [activity('orders:activity.cancelled', 'success', author, reason)])
    try {
      for (const f of order.fulfillments ?? []) {
        if (!f.canceled_at) await medusa.cancelFulfillment(orderId, f.id)
      }
      // Staff may have packed or shipped meanwhile: the backend would refuse, say why in our words.
      const current = await medusa.getOrder(orderId)
      refuseCancel(current)
      if ((current.fulfillments ?? []).some((f) => !f.canceled_at)) throw conflict('The order was fulfilled while it was being canceled')
      await medusa.cancelOrder(orderId)
    } catch (err) {
      await this.record(actor, orderId, [
        activity('orders:activity.note', 'error', author, `cancel failed: ${err instanceof AppError ? err.message : 'internal error'}`)
      ])
      throw err
    }
    const after = mapOrder(await medusa.getOrder(orderId))
    // the grams the order reserved go back to the member's quota
    const quota = quotaOf(order.metadata)
    if (quota) await this.deps.dispense.release(actor.tenant, quota)
    await this.notify(actor, after, 'order.cancelled')
    return after
  }

  /** Marks the order invoiced once; a second call answers the order as it is. */
  async invoice (actor: Actor, orderId: string): Promise<Order> {
    requireRole(actor, ORDER_MANAGERS)
    const order = await this.read(actor, orderId)
    if (order.metadata?.isInvoiced === true) return mapOrder(order)
    if (orderStatus(order.status) === 'canceled') throw conflict('A canceled order cannot be invoiced')
    const now = new Date()
    return await this.record(actor, orderId, [activity('orders:activity.invoiced', 'success', authorOf(actor), undefined, now)], {
      isInvoiced: true,
      invoicedAt: now.toISOString(),
    })
  }

  /** Appends events to the order's log (one writer per order at a time), then answers the re-read order. */
  async record (actor: Actor, orderId: string, events: Activity[], patch: Record<string, unknown> = {}): Promise<Order> {
    return (await this.append(actor, orderId, () => events, patch)).order
  }

  /**
   * Appends the event unless the log already has one of its kind (a cart completed by requests racing, or
   * again): answers the order and whether this call added it.
   */
  async recordOnce (actor: Actor, orderId: string, event: Activity, patch: Record<string, unknown> = {}): Promise<{ order: Order, added: boolean }> {
    return await this.append(actor, orderId, (log) => log.some((a) => a.description === event.description) ? [] : [event], patch)
  }

  /**
   * The order is read once, under the lock: the metadata written is the only change, so the answer is that
   * read with the new metadata (and the backend's new `updated_at`), not a second read.
   */
  private async append (actor: Actor, orderId: string, pick: (log: Activity[]) => Activity[], patch: Record<string, unknown> = {}): Promise<{
    order: Order, added: boolean
  }> {
    return await this.deps.locks.withLock(keys.orders.metadataLock(actor.tenant.id, orderId), METADATA_LOCK, async () => {
      const medusa = this.medusa(actor)
      const current = await medusa.getOrder(orderId)
      const events = pick(mapActivities(current.metadata))
      if (events.length === 0) return { order: mapOrder(current), added: false }
      const metadata = withActivities(current.metadata, events, patch)
      const updatedAt = await medusa.updateOrderMetadata(orderId, metadata)
      return { order: mapOrder({ ...current, metadata, updated_at: updatedAt ?? current.updated_at }), added: true }
    })
  }

  async notify (actor: Actor, order: NotifiedOrder, event: OrderEvent): Promise<void> {
    await notifyMember(this.deps.notifier, this.deps.log, actor.tenant, order, event)
  }
}

const shippingOf = (order: UpstreamOrder) => shippingMethodOf((order.shipping_methods ?? []).map((m) => m.name))

/** The backend's customers with this email: the member's account and the guests made for their email. */
export async function customerIdsWithEmail (medusa: Medusa, email: string): Promise<string[]> {
  const { customers } = await medusa.listCustomers({ limit: MEMBER_IDS_MAX, offset: 0, email })
  return customers.filter((c) => c.email?.toLowerCase() === email.toLowerCase()).map((c) => c.id)
}

export function seesEveryOrder (actor: Pick<Actor, 'role'>): boolean {
  return ORDER_MANAGERS.includes(actor.role)
}

// The admin steps, shared by the single-step routes and the one-call flow. Each takes the order as last read.

/** Only an order neither canceled, completed nor shipped (in part or whole) can be canceled: 409 otherwise. */
function refuseCancel (order: UpstreamOrder): void {
  const status = orderStatus(order.status)
  if (status === 'canceled') throw conflict('The order is already canceled')
  if (isShippedOrDelivered(order)) throw conflict('A shipped or delivered order cannot be canceled')
  if (status === 'completed') throw conflict('A completed order cannot be canceled')
}

/** Captures every payment not yet captured or canceled (an order already paid is left as it is); answers how many. */
export async function capturePayments (medusa: Medusa, order: UpstreamOrder): Promise<number> {
  const payments = (order.payment_collections ?? []).flatMap((pc) => pc.payments ?? [])
  if (payments.length === 0) throw conflict('The order has no payment to capture')
  const open = payments.filter((p) => !p.captured_at && !p.canceled_at && (p.captures ?? []).length === 0)
  for (const p of open) await medusa.capturePayment(p.id)
  return open.length
}

/** Fulfills the given items, or all that remain; answers the new fulfillment's id. */
export async function fulfillItems (
  medusa: Medusa, order: UpstreamOrder, items: Array<{ id: string, quantity: number }> | undefined, locationId: string | undefined
): Promise<string> {
  if (orderStatus(order.status) === 'canceled') throw conflict('A canceled order cannot be fulfilled')
  const remaining = (order.items ?? [])
    .map((i) => ({ id: i.id, quantity: i.quantity - (i.detail?.fulfilled_quantity ?? 0) }))
    .filter((i) => i.quantity > 0)
  const chosen = items ?? remaining
  for (const i of chosen) {
    if (!(order.items ?? []).some((o) => o.id === i.id)) throw new AppError('VALIDATION_ERROR', `Item ${i.id} is not in the order`, { status: 422 })
  }
  if (chosen.length === 0) throw conflict('Every item of the order is already fulfilled')
  const before = new Set((order.fulfillments ?? []).map((f) => f.id))
  await medusa.createFulfillment(order.id, chosen, locationId ?? medusa.settings.stockLocationId)
  const after = await medusa.getOrder(order.id)
  const created = (after.fulfillments ?? []).find((f) => !before.has(f.id))
  if (!created) throw new AppError('BACKEND_ERROR', 'The commerce backend did not report the new fulfillment')
  return created.id
}

export async function shipFulfillment (medusa: Medusa, order: UpstreamOrder, fulfillmentId: string): Promise<void> {
  const fulfillment = (order.fulfillments ?? []).find((f) => f.id === fulfillmentId)
  if (!fulfillment) throw notFound('Fulfillment')
  if (fulfillment.canceled_at) throw conflict('The fulfillment is canceled')
  if (fulfillment.shipped_at) throw conflict('The fulfillment is already shipped')
  const items = (fulfillment.items ?? []).map((i) => ({ id: i.line_item_id ?? i.id, quantity: i.quantity }))
  await medusa.createShipment(order.id, fulfillmentId, items)
}
