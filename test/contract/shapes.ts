import { expect } from 'vitest'
import { z } from 'zod'

// The exact shapes of this service's answers, written here independently of the service's own schemas (which
// let empty strings and any value through): every key, no other key, and what each value must look like.
// One set for both backends: an answer that differs by backend fails here.

export const id = z.string().regex(/^[a-z]+_[A-Za-z0-9_]+$/)
const text = z.string().min(1)
const date = z.iso.datetime({ offset: true })
const money = z.number().int().nonnegative()
const count = z.number().int().nonnegative()
const ars = z.literal('ARS')
const displayId = z.string().regex(/^[1-9]\d*$/)

export const ORDER_STATUS = z.enum(['pending', 'requires_action', 'completed', 'canceled'])
export const PAYMENT_STATUS = z.enum(['not_paid', 'awaiting', 'captured', 'partially_refunded', 'refunded'])
export const FULFILLMENT_STATUS = z.enum(['not_fulfilled', 'partially_fulfilled', 'fulfilled', 'shipped', 'returned', 'canceled'])

const item = z.strictObject({
  id,
  title: text,
  variantId: id,
  productId: id,
  quantity: z.number().int().positive(),
  unitPrice: money,
  total: money,
})

const activity = z.strictObject({
  type: z.literal('user'),
  status: z.enum(['info', 'success', 'warning', 'error']),
  description: z.enum([
    'orders:activity.created', 'orders:activity.paymentConfirmed', 'orders:activity.fulfilled', 'orders:activity.shipped',
    'orders:activity.completed', 'orders:activity.invoiced', 'orders:activity.cancelled', 'orders:activity.note',
  ]),
  at: date,
  author: z.strictObject({ id: text, firstName: text, lastName: z.string() }),
  note: text.optional(),
})

interface Totals { items: Array<{ total: number }>, subtotal: number, shippingTotal: number, taxTotal: number, discountTotal: number, total: number }
const itemsTotal = (o: Pick<Totals, 'items'>) => o.items.reduce((acc, i) => acc + i.total, 0)
const addsUp = (o: Totals) => o.subtotal + o.shippingTotal + o.taxTotal - o.discountTotal === o.total

export const ORDER = z.strictObject({
  id,
  displayId,
  number: z.number().int().positive(),
  status: ORDER_STATUS,
  fulfillmentStatus: FULFILLMENT_STATUS,
  paymentStatus: PAYMENT_STATUS,
  customerId: id,
  customer: z.strictObject({ id, email: z.email(), firstName: z.string(), lastName: z.string() }),
  items: z.array(item).min(1),
  payments: z.array(z.strictObject({ id, amount: money, currency: ars, status: PAYMENT_STATUS, providerId: z.string().regex(/^pp_/), createdAt: date })).min(1),
  fulfillments: z.array(z.strictObject({
    id,
    items: z.array(z.strictObject({ id, itemId: id, quantity: z.number().int().positive() })).min(1),
    locationId: id,
    createdAt: date,
    shippedAt: date.nullable(),
    canceledAt: date.nullable(),
  })),
  subtotal: money,
  subTotal: money,
  discountTotal: money,
  shippingTotal: money,
  taxTotal: money,
  total: money,
  currency: ars,
  // The backend gives the order its region's only country; the one-call route sets the customer's names on it
  // (the member flow sets no address).
  shippingAddress: z.strictObject({
    firstName: z.string(),
    lastName: z.string(),
    address1: z.literal(''),
    address2: z.literal(''),
    city: z.literal(''),
    province: z.literal(''),
    postalCode: z.literal(''),
    countryCode: z.literal('ar'),
    phone: z.literal(''),
  }),
  metadata: z.strictObject({ isInvoiced: z.boolean(), invoicedAt: date.nullable(), activityLogs: z.array(activity) }),
  createdAt: date,
  updatedAt: date,
}).refine(
  (o) => o.number === Number(o.displayId) && o.subTotal === o.subtotal && o.customer.id === o.customerId,
  'number, subTotal and customer.id repeat displayId, subtotal and customerId'
)
  // Spec: subtotal is without tax and shipping (a Medusa v2 `subtotal` includes shipping). A real Medusa
  // answers total 0 once a canceled order's payment is refunded, so the sum holds until the cancel.
  .refine(
    (o) => o.subtotal === itemsTotal(o) && (o.status === 'canceled' || addsUp(o)),
    'subtotal is the items\' total, and subtotal + shippingTotal + taxTotal - discountTotal = total'
  )

export const ORDER_SUMMARY = z.strictObject({
  id,
  displayId,
  number: z.number().int().positive(),
  status: ORDER_STATUS,
  paymentStatus: PAYMENT_STATUS,
  fulfillmentStatus: FULFILLMENT_STATUS,
  total: money,
  currency: ars,
  customer: z.strictObject({ id, email: z.email() }),
  createdAt: date,
})

export const ACTIVITIES = z.strictObject({ activities: z.array(activity) })

export const PRODUCTS = z.strictObject({
  products: z.array(z.strictObject({
    id,
    title: text,
    description: text,
    thumbnail: z.null(),
    variants: z.array(z.strictObject({
      id,
      title: text,
      sku: text,
      prices: z.array(z.strictObject({ amount: z.number().int().positive(), currencyCode: ars })).length(1),
      inventoryQuantity: count,
      grams: z.number().positive().nullable(),
      thcPercent: z.number().min(0).max(100).nullable(),
      cbdPercent: z.number().min(0).max(100).nullable(),
    })).min(1),
  })),
  count,
})

export const CART = z.strictObject({
  id,
  regionId: id,
  email: z.email(),
  customerId: id,
  currency: ars,
  items: z.array(item),
  shippingMethods: z.array(z.strictObject({ id, shippingOptionId: id, name: z.enum(['pickup', 'delivery']), amount: money })),
  paymentCollection: z.strictObject({
    id,
    status: z.literal('not_paid'),
    paymentSessions: z.array(z.strictObject({ id, providerId: z.string().regex(/^pp_/), status: z.literal('pending') })),
  }).nullable(),
  subtotal: money,
  shippingTotal: money,
  taxTotal: money,
  total: money,
  completedAt: z.null(),
}).refine(
  (c) => c.subtotal === itemsTotal(c) && addsUp({ ...c, discountTotal: 0 }), 'subtotal is the items\' total, and subtotal + shippingTotal + taxTotal = total'
)

export const SHIPPING_OPTIONS = z.strictObject({
  shippingOptions: z.array(z.strictObject({ id, name: z.enum(['pickup', 'delivery']), amount: money })).length(2),
})

export const MEMBER = z.strictObject({
  id,
  email: z.email(),
  firstName: text,
  lastName: text,
  phone: z.string(),
  hasAccount: z.literal(true),
  createdAt: date,
})

export const INVENTORY_LEVEL = z.strictObject({
  id,
  sku: text,
  title: text,
  locationId: id,
  stockedQuantity: count,
  reservedQuantity: count,
  availableQuantity: count,
  incomingQuantity: count,
})

export const STEP_EVENT = z.strictObject({ step: text, message: text, progress: z.number().int().min(0).max(100) })

export const ERROR = z.strictObject({
  error: z.strictObject({ code: text, message: text, details: z.record(z.string(), z.unknown()).optional() }),
})

/** Asserts that `value` has exactly `shape`; a failure lists every path that differs. */
export function expectShape<S extends z.ZodType> (shape: S, value: unknown): z.infer<S> {
  const parsed = shape.safeParse(value)
  if (!parsed.success) {
    expect(parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`), JSON.stringify(value, null, 2).slice(0, 4000)).toEqual([])
  }
  return parsed.data as z.infer<S>
}
