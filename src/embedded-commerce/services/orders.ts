import { collectionAmounts, fulfillmentStatus, paymentStatus } from '../calc.ts'
import { newId } from '../ids.ts'
import type { Fulfillment, OrderDoc, Payment, PaymentCollection } from '../model.ts'
import type { AuthContext } from '../tokens.ts'
import type { StockDelta } from '../store/port.ts'
import { invalidData, notAllowed, notFound, type MedusaError } from '../errors.ts'
import type { CaptureInput, FulfillInput, ShipmentInput, UpdateOrderInput } from '../requests.ts'
import { creationOrder, INDEX, LOOKUP, nowIso, score, type CommerceContext } from './context.ts'
import { docsOf, indexSize, listDocs, loadDoc, mutate } from './repo.ts'
import { mergeMetadata } from './catalog.ts'
import { listSalesChannels, locationsOfChannel } from './setup.ts'

// Orders after completion: reads with computed statuses, capture, fulfillment, shipment, delivery, cancel,
// complete and metadata. Each change is a compare-and-set of the order, with its stock changes, in one step.

export const orderMissing = (id: string): MedusaError => notFound(`Order id not found: ${id}`)

/** Medusa refuses every change to a canceled order (fulfill, ship, deliver, update, cancel again) with these words. */
function refuseIfCanceled (order: OrderDoc): void {
  if (order.status === 'canceled') throw invalidData(`Order with id ${order.id} has been canceled.`)
}

export async function getOrder (ctx: CommerceContext, id: string): Promise<OrderDoc> {
  return await loadDoc(ctx.store, 'order', id, () => orderMissing(id))
}

async function ordersOfChannels (ctx: CommerceContext, channelIds: readonly string[]): Promise<OrderDoc[]> {
  const lists = await Promise.all(channelIds.map((id) => listDocs(ctx.store, 'order', INDEX.ordersOfChannel(id))))
  return lists.flat()
}

export async function ordersOfCustomer (ctx: CommerceContext, customerId: string): Promise<OrderDoc[]> {
  return await listDocs(ctx.store, 'order', INDEX.ordersOfCustomer(customerId))
}

/**
 * The orders of these customers in these (distinct) channels, listed as `ordersOfChannels` lists them (channel
 * by channel, each in its index's order: creation time, then id): read from each customer's own index, so that a
 * member's orders cost what they ordered, not every order of the club.
 */
export async function ordersOfCustomersIn (ctx: CommerceContext, customerIds: readonly string[], channelIds: readonly string[]): Promise<OrderDoc[]> {
  const lists = await Promise.all([...new Set(customerIds)].map(async (id) => await ordersOfCustomer(ctx, id)))
  const channel = new Map(channelIds.map((id, i) => [id, i]))
  const at = (o: OrderDoc): number => channel.get(o.sales_channel_id) as number
  return lists.flat().filter((o) => channel.has(o.sales_channel_id))
    .sort((a, b) => at(a) - at(b) || creationOrder()(a, b))
}

/** The orders of these channels that match the filters, in the channels' index order (before `sortOrders`). */
export async function ordersMatching (ctx: CommerceContext, channelIds: readonly string[], filters: OrderFilters): Promise<OrderDoc[]> {
  const orders = filters.customer_id?.length
    ? await ordersOfCustomersIn(ctx, filters.customer_id, channelIds)
    : await ordersOfChannels(ctx, channelIds)
  return orders.filter((o) => matchesOrder(o, filters))
}

export interface OrderFilters {
  status?: string[]
  customer_id?: string[]
  sales_channel_id?: string[]
  payment_status?: string[]
  fulfillment_status?: string[]
  q?: string
}

function matchesOrder (order: OrderDoc, f: OrderFilters): boolean {
  const within = (values: string[] | undefined, value: string | null): boolean => !values || values.length === 0 || (value !== null && values.includes(value))
  const q = f.q?.toLowerCase()
  return within(f.status, order.status) &&
    within(f.customer_id, order.customer_id) &&
    within(f.sales_channel_id, order.sales_channel_id) &&
    within(f.payment_status, paymentStatus(order)) &&
    within(f.fulfillment_status, fulfillmentStatus(order)) &&
    (!q || String(order.display_id) === q || order.id.toLowerCase() === q || (order.email ?? '').includes(q))
}

/**
 * A page of the orders of these channels that match the filters, sorted by `order` (`sortOrders`), and how many
 * match. A club's list by creation time with no filter on the orders themselves (staff's list) is paged by the
 * channel's index instead of reading every order the club ever had.
 */
export async function pageOfOrders (
  ctx: CommerceContext, channelIds: readonly string[], filters: OrderFilters, order: string | undefined, page: { offset: number, limit: number }
): Promise<{ orders: OrderDoc[], count: number }> {
  const field = (order ?? '-created_at').replace(/^-/, '')
  const newestFirst = order === undefined || order.startsWith('-')
  const channel = channelIds.length === 1 ? channelIds[0] : undefined
  const byIndex = channel !== undefined && field !== 'display_id' && field !== 'updated_at' &&
    !filters.status?.length && !filters.payment_status?.length && !filters.fulfillment_status?.length && !filters.q
  if (byIndex && filters.customer_id?.length) return await customersPage(ctx, [...new Set(filters.customer_id)], channel, newestFirst, page)
  if (byIndex) {
    const found = await ctx.store.page(INDEX.ordersOfChannel(channel), page.offset, page.limit, newestFirst)
    return { orders: await docsOf(ctx.store, 'order', found.ids), count: found.total }
  }
  const sorted = sortOrders(await ordersMatching(ctx, channelIds, filters), order)
  return { orders: sorted.slice(page.offset, page.offset + page.limit), count: sorted.length }
}

/**
 * Fills the customer's index of orders by channel from their index of all orders when the first holds fewer
 * (orders completed before it existed, or by an instance of an older version): the customer's orders are read
 * whole then, once; a count of each index (every channel of the backend) otherwise.
 */
export async function completeByChannel (ctx: CommerceContext, customerId: string, known?: readonly string[]): Promise<void> {
  const channels = known ?? (await listSalesChannels(ctx)).map((c) => c.id)
  const [all, ...each] = await Promise.all([
    indexSize(ctx.store, INDEX.ordersOfCustomer(customerId)), ...channels.map(async (c) => await indexSize(ctx.store, INDEX.ordersOfCustomerIn(customerId, c))),
  ])
  if (all === each.reduce((sum, n) => sum + n, 0)) return
  const orders = await ordersOfCustomer(ctx, customerId)
  await ctx.store.addToIndexes(orders.map((o) => ({ index: INDEX.ordersOfCustomerIn(customerId, o.sales_channel_id), id: o.id, score: score(o.created_at) })))
}

/**
 * Whether the customer has an order in one of these channels (a guest is visible to the staff of those): a count
 * of their index of each channel, once filled, not their orders read. `allChannels`: every channel of the backend,
 * when the caller has read them for several customers.
 */
export async function hasOrderIn (
  ctx: CommerceContext, customerId: string, channelIds: readonly string[], allChannels?: readonly string[]
): Promise<boolean> {
  if (channelIds.length === 0) return false
  await completeByChannel(ctx, customerId, allChannels)
  const sizes = await Promise.all(channelIds.map(async (c) => await indexSize(ctx.store, INDEX.ordersOfCustomerIn(customerId, c))))
  return sizes.some((n) => n > 0)
}

/** A page of these customers' orders in one channel, from each one's index of it (what `pageOfOrders` answers). */
async function customersPage (
  ctx: CommerceContext, customerIds: readonly string[], channel: string, newestFirst: boolean, page: { offset: number, limit: number }
): Promise<{ orders: OrderDoc[], count: number }> {
  await Promise.all(customerIds.map(async (id) => await completeByChannel(ctx, id)))
  // one customer's page is theirs; several are merged from each one's first offset + limit
  const range = customerIds.length === 1 ? page : { offset: 0, limit: page.offset + page.limit }
  const found = await Promise.all(customerIds.map(async (id) =>
    await ctx.store.page(INDEX.ordersOfCustomerIn(id, channel), range.offset, range.limit, newestFirst)))
  const orders = await docsOf(ctx.store, 'order', found.flatMap((f) => f.ids))
  const count = found.reduce((sum, f) => sum + f.total, 0)
  if (customerIds.length === 1) return { orders, count }
  const merged = orders.sort(creationOrder(newestFirst))
  return { orders: merged.slice(page.offset, page.offset + page.limit), count }
}

/** `order` query: a field, `-field` for descending; default newest first. */
export function sortOrders (orders: OrderDoc[], order: string | undefined): OrderDoc[] {
  const desc = order === undefined || order.startsWith('-')
  const field = (order ?? '-created_at').replace(/^-/, '')
  const key = (o: OrderDoc): string | number => field === 'display_id' ? o.display_id : field === 'updated_at' ? o.updated_at : o.created_at
  return [...orders].sort((a, b) => {
    const ka = key(a)
    const kb = key(b)
    const c = ka < kb ? -1 : ka > kb ? 1 : 0
    return desc ? -c : c
  })
}

async function changeOrder (ctx: CommerceContext, id: string, change: (order: OrderDoc) => StockDelta[] | undefined): Promise<OrderDoc> {
  return await mutate(ctx.store, 'order', id, () => orderMissing(id), (order) => ({ stock: change(order) }))
}

function findPayment (order: OrderDoc, paymentId: string): { pc: PaymentCollection, payment: Payment } {
  for (const pc of order.payment_collections) {
    const payment = pc.payments.find((p) => p.id === paymentId)
    if (payment) return { pc, payment }
  }
  throw notFound(`Payment with id: ${paymentId} was not found`)
}

/**
 * POST /admin/payments/{id}/capture: captures `amount` (default: what is left). Capturing again when all is
 * captured answers the payment as it is (capture_again.json); more than is left is 400 (capture_over.json).
 */
export async function capturePayment (
  ctx: CommerceContext, actor: AuthContext, paymentId: string, body: CaptureInput, visible: (order: OrderDoc) => boolean
): Promise<{ payment: Payment, collectionId: string }> {
  const missing = (): MedusaError => notFound(`Payment with id: ${paymentId} was not found`)
  const orderId = await ctx.store.lookup(LOOKUP.payment, paymentId)
  if (!orderId || !visible(await getOrder(ctx, orderId))) throw missing()
  const order = await changeOrder(ctx, orderId, (o) => {
    const { pc, payment } = findPayment(o, paymentId)
    if (payment.canceled_at) throw notAllowed(`The payment: ${paymentId} has been canceled`)
    const captured = payment.captures.reduce((s, c) => s + c.amount, 0)
    const left = payment.amount - captured
    const amount = body.amount ?? left
    if (amount > left) throw invalidData('You cannot capture more than the authorized amount substracted by what is already captured.')
    if (amount === 0) return undefined
    const now = nowIso()
    payment.captures.push({ id: newId('capt'), amount, created_by: actor.id, created_at: now })
    payment.updated_at = now
    if (captured + amount >= payment.amount) payment.captured_at = now
    if (collectionAmounts(pc).captured_amount >= pc.amount) pc.completed_at = now
    pc.updated_at = now
    return undefined
  })
  const { pc, payment } = findPayment(order, paymentId)
  return { payment, collectionId: pc.id }
}

/** POST /admin/orders/{id}/fulfillments: takes the units out of stock at `location_id` and out of the reservation. */
export async function createFulfillment (ctx: CommerceContext, actor: AuthContext, id: string, body: FulfillInput): Promise<OrderDoc> {
  const current = await getOrder(ctx, id)
  const locationId = body.location_id ?? current.stock_location_id
  const locations = (await locationsOfChannel(ctx, current.sales_channel_id)).map((l) => l.id)
  if (!locations.includes(locationId)) throw invalidData(`Location ${locationId} does not serve the order's sales channel`)
  return await changeOrder(ctx, id, (order) => {
    refuseIfCanceled(order)
    const now = nowIso()
    const deltas: StockDelta[] = []
    const fulfillment: Fulfillment = {
      id: newId('ful'),
      location_id: locationId,
      shipping_option_id: order.shipping_methods[0]?.shipping_option_id ?? null,
      packed_at: now,
      shipped_at: null,
      delivered_at: null,
      canceled_at: null,
      created_by: actor.id,
      marked_shipped_by: null,
      delivery_address_id: newId('fuladdr'),
      items: [],
      labels: [],
      created_at: now,
      updated_at: now,
    }
    for (const wanted of body.items) {
      const item = order.items.find((i) => i.id === wanted.id)
      if (!item) throw invalidData(`Item ${wanted.id} does not belong to order ${id}`)
      if (item.fulfilled_quantity + wanted.quantity > item.quantity) {
        throw invalidData(
        `Quantity to fulfill exceeds the reserved quantity for the item: ${item.id}`
        )
      }
      item.fulfilled_quantity += wanted.quantity
      item.updated_at = now
      fulfillment.items.push({
        id: newId('fulit'),
        line_item_id: item.id,
        inventory_item_id: item.inventory_item_id,
        title: item.variant_title,
        sku: item.variant_sku,
        quantity: wanted.quantity,
        created_at: now
      })
      if (item.inventory_item_id) {
        deltas.push({ inventoryItemId: item.inventory_item_id, locationId: order.stock_location_id, stocked: 0, reserved: -wanted.quantity })
        deltas.push({ inventoryItemId: item.inventory_item_id, locationId, stocked: -wanted.quantity, reserved: 0 })
      }
    }
    order.fulfillments.push(fulfillment)
    order.version += 1
    return deltas
  })
}

function fulfillmentOf (order: OrderDoc, fulfillmentId: string): Fulfillment {
  const f = order.fulfillments.find((x) => x.id === fulfillmentId)
  if (!f) throw notFound(`Fulfillment with id: ${fulfillmentId} was not found`)
  if (f.canceled_at) throw notAllowed(`Fulfillment ${fulfillmentId} has been canceled`)
  return f
}

function addToItems (order: OrderDoc, f: Fulfillment, field: 'shipped_quantity' | 'delivered_quantity', now: string): void {
  for (const fi of f.items) {
    const item = order.items.find((i) => i.id === fi.line_item_id)
    if (item) {
      item[field] += fi.quantity
      item.updated_at = now
    }
  }
}

/** Marks a whole fulfillment shipped; shipping it again answers the order unchanged. */
export async function createShipment (ctx: CommerceContext, actor: AuthContext, id: string, fulfillmentId: string, body: ShipmentInput): Promise<OrderDoc> {
  return await changeOrder(ctx, id, (order) => {
    refuseIfCanceled(order)
    const f = fulfillmentOf(order, fulfillmentId)
    if (f.shipped_at) return undefined
    const now = nowIso()
    f.shipped_at = now
    f.marked_shipped_by = actor.id
    f.updated_at = now
    f.labels.push(...(body.labels ?? []).map((l) => ({ id: newId('fulla'), ...l, created_at: now })))
    addToItems(order, f, 'shipped_quantity', now)
    order.version += 1
    return undefined
  })
}

/** Marks a fulfillment delivered (shipped too, for a pickup handed over at the club); again is a no-op. */
export async function markDelivered (ctx: CommerceContext, id: string, fulfillmentId: string, actor: AuthContext): Promise<OrderDoc> {
  return await changeOrder(ctx, id, (order) => {
    refuseIfCanceled(order)
    const f = fulfillmentOf(order, fulfillmentId)
    if (f.delivered_at) return undefined
    const now = nowIso()
    if (!f.shipped_at) {
      f.shipped_at = now
      f.marked_shipped_by = actor.id
      addToItems(order, f, 'shipped_quantity', now)
    }
    f.delivered_at = now
    f.updated_at = now
    addToItems(order, f, 'delivered_quantity', now)
    order.version += 1
    return undefined
  })
}

/**
 * POST /admin/orders/{id}/fulfillments/{fid}/cancel, as Medusa 2.21's workflow: refused once the order is
 * canceled, or the fulfillment canceled or shipped. The packed units go back into stock at the fulfillment's
 * location and back into the order's reservation, as before fulfilling.
 */
export async function cancelFulfillment (ctx: CommerceContext, id: string, fulfillmentId: string): Promise<OrderDoc> {
  return await changeOrder(ctx, id, (order) => {
    refuseIfCanceled(order)
    const f = order.fulfillments.find((x) => x.id === fulfillmentId)
    if (!f) throw invalidData(`Fulfillment with id ${fulfillmentId} not found in the order`)
    if (f.canceled_at) throw notAllowed('The fulfillment is already canceled')
    if (f.shipped_at) throw notAllowed('The fulfillment has already been shipped. Shipped fulfillments cannot be canceled')
    const now = nowIso()
    const deltas: StockDelta[] = []
    for (const fi of f.items) {
      const item = order.items.find((i) => i.id === fi.line_item_id)
      if (item) {
        item.fulfilled_quantity -= fi.quantity
        item.updated_at = now
      }
      if (fi.inventory_item_id) {
        deltas.push({ inventoryItemId: fi.inventory_item_id, locationId: f.location_id, stocked: fi.quantity, reserved: 0 })
        deltas.push({ inventoryItemId: fi.inventory_item_id, locationId: order.stock_location_id, stocked: 0, reserved: fi.quantity })
      }
    }
    f.canceled_at = now
    f.updated_at = now
    order.version += 1
    return deltas
  })
}

/**
 * Cancels an order as Medusa does: not once canceled or completed, nor while it has a live fulfillment (packed
 * or shipped; cancel the fulfillment first). Releases the reservation, cancels authorized payments and refunds
 * captured ones.
 */
export async function cancelOrder (ctx: CommerceContext, actor: AuthContext, id: string): Promise<OrderDoc> {
  return await changeOrder(ctx, id, (order) => {
    refuseIfCanceled(order)
    if (order.status === 'completed') throw notAllowed('Cannot cancel a completed order. Please use the return process to handle refunds or exchanges.')
    if (order.fulfillments.some((f) => !f.canceled_at)) throw notAllowed('All fulfillments must be canceled before canceling an order')
    const now = nowIso()
    const deltas: StockDelta[] = []
    for (const item of order.items) {
      if (item.inventory_item_id && item.quantity > 0) {
        deltas.push({
          inventoryItemId: item.inventory_item_id, locationId: order.stock_location_id, stocked: 0, reserved: -item.quantity
        })
      }
    }
    for (const pc of order.payment_collections) {
      for (const p of pc.payments) {
        const captured = p.captures.reduce((s, c) => s + c.amount, 0) - p.refunds.reduce((s, r) => s + r.amount, 0)
        if (captured > 0) p.refunds.push({ id: newId('ref'), amount: captured, created_by: actor.id, created_at: now })
        else p.canceled_at = now
        p.updated_at = now
      }
      pc.updated_at = now
    }
    order.status = 'canceled'
    order.canceled_at = now
    order.version += 1
    return deltas
  })
}

export async function completeOrder (ctx: CommerceContext, id: string): Promise<OrderDoc> {
  return await changeOrder(ctx, id, (order) => {
    if (order.status === 'canceled') throw notAllowed(`Order ${id} has been canceled and cannot be completed`)
    order.status = 'completed'
    return undefined
  })
}

/** POST /admin/orders/{id}: email and metadata (merged key by key, as the activity log and invoice flags use it). */
export async function updateOrder (ctx: CommerceContext, id: string, body: UpdateOrderInput): Promise<OrderDoc> {
  return await changeOrder(ctx, id, (order) => {
    refuseIfCanceled(order)
    if (body.email) order.email = body.email
    order.metadata = mergeMetadata(order.metadata, body.metadata ?? undefined)
    return undefined
  })
}
