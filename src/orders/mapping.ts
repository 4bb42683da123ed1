import { dosageOf } from '../dispensing/dosage.ts'
import type {
  UpstreamCart, UpstreamCustomer, UpstreamFulfillment, UpstreamInventoryItem, UpstreamItem, UpstreamOrder, UpstreamPayment,
  UpstreamProduct, UpstreamShippingOption,
} from '../commerce/upstream.ts'
import {
  activitySchema, type Activity, type Address, type Cart, type Customer, type Fulfillment, type FulfillmentStatus, type InventoryLevel,
  type Item, type Member, type Order, type OrderStatus, type OrderSummary, type Payment, type PaymentStatus, type Product, type ShippingOption,
} from './schemas.ts'

// Upstream (Medusa v2, snake_case) to the interface (camelCase), by the spec's naming map. Pure.

// The one status table: Medusa's order, payment and fulfillment statuses as ours. A value missing here (a newer backend) falls back to the
// value that asks staff to look, rather than failing every read of the order.
const ORDER_STATUS: Record<string, OrderStatus> = {
  pending: 'pending',
  draft: 'pending',
  requires_action: 'requires_action',
  completed: 'completed',
  archived: 'completed',
  canceled: 'canceled',
}
const PAYMENT_STATUS: Record<string, PaymentStatus> = {
  not_paid: 'not_paid',
  awaiting: 'awaiting',
  authorized: 'awaiting',
  partially_authorized: 'awaiting',
  requires_action: 'awaiting',
  captured: 'captured',
  partially_captured: 'captured',
  canceled: 'not_paid',
  partially_refunded: 'partially_refunded',
  refunded: 'refunded',
}
const FULFILLMENT_STATUS: Record<string, FulfillmentStatus> = {
  not_fulfilled: 'not_fulfilled',
  partially_fulfilled: 'partially_fulfilled',
  fulfilled: 'fulfilled',
  partially_shipped: 'partially_fulfilled',
  shipped: 'shipped',
  partially_delivered: 'shipped',
  delivered: 'shipped',
  returned: 'returned',
  partially_returned: 'returned',
  canceled: 'canceled',
}

export const UPSTREAM_ORDER_STATUSES = Object.keys(ORDER_STATUS)
export const UPSTREAM_PAYMENT_STATUSES = Object.keys(PAYMENT_STATUS)
export const UPSTREAM_FULFILLMENT_STATUSES = Object.keys(FULFILLMENT_STATUS)

// Own keys only: an upstream value such as "constructor" must not reach Object.prototype.
const lookup = <T>(table: Record<string, T>, s: string | null | undefined, fallback: T): T => s && Object.hasOwn(table, s) ? table[s] as T : fallback
export const orderStatus = (s: string | null | undefined): OrderStatus => lookup(ORDER_STATUS, s, 'requires_action')
const paymentStatus = (s: string | null | undefined): PaymentStatus => lookup(PAYMENT_STATUS, s, 'not_paid')
const fulfillmentStatus = (s: string | null | undefined): FulfillmentStatus => lookup(FULFILLMENT_STATUS, s, 'not_fulfilled')

/** Whether the goods left: the order can no longer be cancelled. */
export function isShippedOrDelivered (order: UpstreamOrder): boolean {
  if (['shipped', 'partially_shipped', 'delivered', 'partially_delivered'].includes(order.fulfillment_status ?? '')) return true
  return (order.fulfillments ?? []).some((f) => !f.canceled_at && (f.shipped_at || f.delivered_at))
}

const str = (v: string | null | undefined): string => v ?? ''
const num = (v: number | null | undefined): number => v ?? 0
const sum = (values: Array<{ amount: number }> | null | undefined): number => (values ?? []).reduce((acc, v) => acc + v.amount, 0)
const currency = (code: string | null | undefined): string => str(code).toUpperCase()

function mapAddress (a: UpstreamOrder['shipping_address']): Address | null {
  if (!a) return null
  return {
    firstName: str(a.first_name),
    lastName: str(a.last_name),
    address1: str(a.address_1),
    address2: str(a.address_2),
    city: str(a.city),
    province: str(a.province),
    postalCode: str(a.postal_code),
    countryCode: str(a.country_code),
    phone: str(a.phone),
  }
}

function mapItem (i: UpstreamItem): Item {
  return {
    id: i.id,
    title: str(i.title),
    variantId: str(i.variant_id),
    productId: str(i.product_id),
    quantity: i.quantity,
    unitPrice: i.unit_price,
    total: i.total ?? i.unit_price * i.quantity,
    ...(i.thumbnail ? { thumbnail: i.thumbnail } : {}),
  }
}

/** A payment's own status, by the same table: refunds, then capture, then cancellation, else awaiting capture. */
function paymentStatusOf (p: UpstreamPayment): PaymentStatus {
  const refunded = sum(p.refunds)
  if (refunded > 0) return refunded >= p.amount ? 'refunded' : 'partially_refunded'
  if (p.captured_at || sum(p.captures) > 0) return paymentStatus('captured')
  if (p.canceled_at) return paymentStatus('canceled')
  return paymentStatus('authorized')
}

function mapPayment (p: UpstreamPayment): Payment {
  return {
    id: p.id, amount: p.amount, currency: currency(p.currency_code), status: paymentStatusOf(p), providerId: str(p.provider_id), createdAt: str(p.created_at)
  }
}

function mapFulfillment (f: UpstreamFulfillment): Fulfillment {
  return {
    id: f.id,
    items: (f.items ?? []).map((i) => ({ id: i.id, itemId: str(i.line_item_id), quantity: i.quantity })),
    locationId: str(f.location_id),
    createdAt: str(f.created_at),
    shippedAt: f.shipped_at ?? null,
    canceledAt: f.canceled_at ?? null,
  }
}

/**
 * A customer without names (a guest customer, made from a cart's email) takes them, both, from the order's
 * shipping address: the one-call route puts the names it is sent there. A customer with either name keeps its own.
 */
function mapCustomer (c: UpstreamCustomer | null | undefined, order?: UpstreamOrder): Customer {
  const named = c?.first_name || c?.last_name ? c : order?.shipping_address
  return {
    id: c?.id ?? str(order?.customer_id),
    email: str(c?.email ?? order?.email),
    firstName: str(named?.first_name),
    lastName: str(named?.last_name),
  }
}

// Activity events are kept upstream in `metadata.activity_logs` with snake_case author names.
interface StoredActivity {
  type: Activity['type']
  status: Activity['status']
  description: Activity['description']
  at: string
  author: { id: string, first_name: string, last_name: string }
  note?: string
}

export function toStoredActivity (a: Activity): StoredActivity {
  const { author, ...rest } = a
  return { ...rest, author: { id: author.id, first_name: author.firstName, last_name: author.lastName } }
}

/** Reads the stored log; entries that are not activity events (edited by hand upstream) are skipped. */
export function mapActivities (metadata: Record<string, unknown> | null | undefined): Activity[] {
  const raw = metadata?.activity_logs
  if (!Array.isArray(raw)) return []
  return raw.flatMap((entry) => {
    if (!entry || typeof entry !== 'object') return []
    const e = entry as Record<string, unknown>
    const a = (e.author && typeof e.author === 'object' ? e.author : {}) as Record<string, unknown>
    const parsed = activitySchema.safeParse({
      ...e,
      author: { id: a.id ?? '', firstName: a.first_name ?? a.firstName ?? '', lastName: a.last_name ?? a.lastName ?? '' },
    })
    return parsed.success ? [parsed.data] : []
  })
}

function mapMetadata (metadata: Record<string, unknown> | null | undefined): Order['metadata'] {
  return {
    isInvoiced: metadata?.isInvoiced === true,
    invoicedAt: typeof metadata?.invoicedAt === 'string' ? metadata.invoicedAt : null,
    activityLogs: mapActivities(metadata),
  }
}

/** The spec's subtotal is without tax and shipping: Medusa v2's `subtotal` includes shipping, its `item_subtotal` does not. */
const itemsSubtotal = (t: { item_subtotal?: number | null, subtotal?: number | null }): number => num(t.item_subtotal ?? t.subtotal)

/**
 * An order handed over at the counter (its metadata says so, written before the backend's steps) is completed and
 * shipped as every view shows it, whatever of those steps the backend has taken yet: nobody sees half of it.
 */
function statusesOf (o: Pick<UpstreamOrder, 'status' | 'fulfillment_status' | 'metadata'>): { status: OrderStatus, fulfillmentStatus: FulfillmentStatus } {
  const status = orderStatus(o.status)
  if (typeof o.metadata?.handedOverAt === 'string' && status !== 'canceled') return { status: 'completed', fulfillmentStatus: 'shipped' }
  return { status, fulfillmentStatus: fulfillmentStatus(o.fulfillment_status) }
}

export function mapOrder (o: UpstreamOrder): Order {
  const payments = (o.payment_collections ?? []).flatMap((pc) => pc.payments ?? [])
  const subtotal = itemsSubtotal(o)
  return {
    id: o.id,
    displayId: String(o.display_id),
    number: o.display_id,
    ...statusesOf(o),
    paymentStatus: paymentStatus(o.payment_status),
    customerId: str(o.customer_id ?? o.customer?.id),
    customer: mapCustomer(o.customer, o),
    items: (o.items ?? []).map(mapItem),
    payments: payments.map(mapPayment),
    fulfillments: (o.fulfillments ?? []).map(mapFulfillment),
    subtotal,
    subTotal: subtotal,
    discountTotal: num(o.discount_total),
    shippingTotal: num(o.shipping_total),
    taxTotal: num(o.tax_total),
    total: num(o.total),
    currency: currency(o.currency_code),
    shippingAddress: mapAddress(o.shipping_address),
    metadata: mapMetadata(o.metadata),
    createdAt: str(o.created_at),
    updatedAt: str(o.updated_at),
  }
}

export function mapOrderSummary (o: UpstreamOrder): OrderSummary {
  return {
    id: o.id,
    displayId: String(o.display_id),
    number: o.display_id,
    ...statusesOf(o),
    paymentStatus: paymentStatus(o.payment_status),
    total: num(o.total),
    currency: currency(o.currency_code),
    customer: { id: str(o.customer_id ?? o.customer?.id), email: str(o.customer?.email ?? o.email) },
    createdAt: str(o.created_at),
  }
}

export function mapCart (c: UpstreamCart): Cart {
  const pc = c.payment_collection
  return {
    id: c.id,
    regionId: str(c.region_id),
    email: str(c.email),
    customerId: str(c.customer_id),
    currency: currency(c.currency_code),
    items: (c.items ?? []).map(mapItem),
    shippingMethods: (c.shipping_methods ?? []).map((
      m
    ) => ({ id: m.id, shippingOptionId: str(m.shipping_option_id), name: str(m.name), amount: num(m.amount) })),
    paymentCollection: pc
      ? {
          id: pc.id,
          status: str(pc.status),
          paymentSessions: (pc.payment_sessions ?? []).map((s) => ({ id: s.id, providerId: str(s.provider_id), status: str(s.status) }))
        }
      : null,
    subtotal: itemsSubtotal(c),
    shippingTotal: num(c.shipping_total),
    taxTotal: num(c.tax_total),
    total: num(c.total),
    completedAt: c.completed_at ?? null,
  }
}

export function mapProduct (p: UpstreamProduct): Product {
  return {
    id: p.id,
    title: str(p.title),
    description: str(p.description),
    thumbnail: p.thumbnail ?? null,
    variants: (p.variants ?? []).map((v) => {
      const calculated = v.calculated_price?.calculated_amount
      const prices = calculated !== undefined && calculated !== null
        ? [{ amount: calculated, currencyCode: currency(v.calculated_price?.currency_code) }]
        : (v.prices ?? []).map((price) => ({ amount: price.amount, currencyCode: currency(price.currency_code) }))
      // stock not tracked upstream has no quantity to show: null, like an unknown one
      const inventoryQuantity = v.manage_inventory === false ? null : v.inventory_quantity ?? null
      return { id: v.id, title: str(v.title), sku: v.sku ?? null, prices, inventoryQuantity, ...dosageOf(v) }
    }),
  }
}

export function mapShippingOption (o: UpstreamShippingOption): ShippingOption {
  return { id: o.id, name: str(o.name), amount: o.amount ?? num(o.calculated_price?.calculated_amount) }
}

export function mapMember (c: UpstreamCustomer): Member {
  return {
    id: c.id,
    email: str(c.email),
    firstName: str(c.first_name),
    lastName: str(c.last_name),
    phone: str(c.phone),
    hasAccount: c.has_account ?? true,
    createdAt: str(c.created_at),
  }
}

export function mapInventoryLevel (item: UpstreamInventoryItem, locationId: string): InventoryLevel {
  const level = (item.location_levels ?? []).find((l) => l.location_id === locationId)
  const stocked = num(level?.stocked_quantity)
  const reserved = num(level?.reserved_quantity)
  return {
    id: item.id,
    sku: str(item.sku),
    title: str(item.title),
    locationId,
    stockedQuantity: stocked,
    reservedQuantity: reserved,
    availableQuantity: level?.available_quantity ?? stocked - reserved,
    incomingQuantity: num(level?.incoming_quantity),
  }
}

/** The clubs a customer belongs to: this project keeps them in the customer's metadata (`tenants`, or `clubs`). */
export function customerTenants (c: UpstreamCustomer): string[] {
  const m = c.metadata ?? {}
  const lists = [m.tenants, m.clubs].filter(Array.isArray) as unknown[][]
  return [...new Set(lists.flat().filter((v): v is string => typeof v === 'string'))]
}
