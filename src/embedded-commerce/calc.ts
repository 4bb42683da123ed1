import type { LineItem, OrderDoc, PaymentCollection, ShippingMethod } from './model.ts'

// Pure figures computed on read, as Medusa computes them on GET: totals, amounts and statuses.

export interface Totals {
  item_total: number
  shipping_total: number
  total: number
}

export function totals (items: readonly Pick<LineItem, 'unit_price' | 'quantity'>[], methods: readonly Pick<ShippingMethod, 'amount'>[]): Totals {
  const itemTotal = items.reduce((sum, i) => sum + i.unit_price * i.quantity, 0)
  const shippingTotal = methods.reduce((sum, m) => sum + m.amount, 0)
  return { item_total: itemTotal, shipping_total: shippingTotal, total: itemTotal + shippingTotal }
}

export interface CollectionAmounts {
  authorized_amount: number
  captured_amount: number
  refunded_amount: number
}

export function collectionAmounts (pc: PaymentCollection): CollectionAmounts {
  const live = pc.payments.filter((p) => !p.canceled_at)
  const sum = (xs: Array<{ amount: number }>): number => xs.reduce((s, x) => s + x.amount, 0)
  return {
    authorized_amount: sum(live),
    captured_amount: sum(pc.payments.flatMap((p) => p.captures)),
    refunded_amount: sum(pc.payments.flatMap((p) => p.refunds)),
  }
}

export type CollectionStatus = 'not_paid' | 'authorized' | 'partially_authorized' | 'completed' | 'canceled'

export function collectionStatus (pc: PaymentCollection): CollectionStatus {
  const a = collectionAmounts(pc)
  if (pc.payments.length > 0 && pc.payments.every((p) => p.canceled_at) && a.captured_amount === 0) return 'canceled'
  if (a.captured_amount > 0 && a.captured_amount >= pc.amount) return 'completed'
  if (a.authorized_amount > 0) return a.authorized_amount >= pc.amount ? 'authorized' : 'partially_authorized'
  return 'not_paid'
}

export type PaymentStatus = 'not_paid'
  | 'authorized'
  | 'partially_authorized'
  | 'captured'
  | 'partially_captured'
  | 'refunded'
  | 'partially_refunded'
  | 'canceled'

export function paymentStatus (order: Pick<OrderDoc, 'status' | 'payment_collections'>): PaymentStatus {
  const amounts = order.payment_collections.map(collectionAmounts)
  const sum = (f: keyof CollectionAmounts): number => amounts.reduce((s, a) => s + a[f], 0)
  const due = order.payment_collections.reduce((s, pc) => s + pc.amount, 0)
  const authorized = sum('authorized_amount')
  const captured = sum('captured_amount')
  const refunded = sum('refunded_amount')
  if (refunded > 0) return refunded >= captured ? 'refunded' : 'partially_refunded'
  if (order.status === 'canceled' && captured === 0) return 'canceled'
  if (captured > 0) return captured >= due ? 'captured' : 'partially_captured'
  if (authorized > 0) return authorized >= due ? 'authorized' : 'partially_authorized'
  return 'not_paid'
}

export type FulfillmentStatus = 'not_fulfilled'
  | 'partially_fulfilled'
  | 'fulfilled'
  | 'partially_shipped'
  | 'shipped'
  | 'partially_delivered'
  | 'delivered'
  | 'canceled'

/**
 * Medusa 2.21's rule (core-flows getLastFulfillmentStatus): each fulfillment counts at its furthest step
 * (canceled, delivered, shipped, packed); the furthest step any fulfillment reached names the status, whole
 * when every live fulfillment reached it and every unit is fulfilled, else partially. Only canceled
 * fulfillments: canceled; none at all: not_fulfilled.
 */
export function fulfillmentStatus (order: Pick<OrderDoc, 'items' | 'fulfillments'>): FulfillmentStatus {
  const count = { canceled: 0, delivered: 0, shipped: 0, fulfilled: 0 }
  for (const f of order.fulfillments) {
    if (f.canceled_at) count.canceled += 1
    else if (f.delivered_at) count.delivered += 1
    else if (f.shipped_at) count.shipped += 1
    else if (f.packed_at) count.fulfilled += 1
  }
  const live = order.fulfillments.length - count.canceled
  const unfulfilled = order.items.some((i) => i.fulfilled_quantity < i.quantity)
  for (const step of ['delivered', 'shipped', 'fulfilled'] as const) {
    if (count[step] > 0) return count[step] === live && !unfulfilled ? step : `partially_${step}`
  }
  return count.canceled > 0 && count.canceled === order.fulfillments.length ? 'canceled' : 'not_fulfilled'
}
