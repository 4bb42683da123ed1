import { z } from 'zod'

// The interface's order-side resources (Order, activity event, member, stock level).

export const ORDER_STATUSES = ['pending', 'requires_action', 'completed', 'canceled'] as const
export const FULFILLMENT_STATUSES = ['not_fulfilled', 'partially_fulfilled', 'fulfilled', 'shipped', 'returned', 'canceled'] as const
export const PAYMENT_STATUSES = ['not_paid', 'awaiting', 'captured', 'partially_refunded', 'refunded'] as const
export type OrderStatus = typeof ORDER_STATUSES[number]
export type FulfillmentStatus = typeof FULFILLMENT_STATUSES[number]
export type PaymentStatus = typeof PAYMENT_STATUSES[number]

export const ACTIVITY_DESCRIPTIONS = [
  'orders:activity.created', 'orders:activity.paymentConfirmed', 'orders:activity.fulfilled', 'orders:activity.shipped',
  'orders:activity.completed', 'orders:activity.invoiced', 'orders:activity.cancelled', 'orders:activity.note', 'orders:activity.handedOver',
] as const
export type ActivityDescription = typeof ACTIVITY_DESCRIPTIONS[number]

const authorSchema = z.object({ id: z.string(), firstName: z.string(), lastName: z.string() })
export type Author = z.infer<typeof authorSchema>

export const activitySchema = z.object({
  type: z.enum(['system', 'user']),
  status: z.enum(['info', 'success', 'warning', 'error']),
  description: z.enum(ACTIVITY_DESCRIPTIONS),
  at: z.string(),
  author: authorSchema,
  note: z.string().optional(),
}).meta({ id: 'OrderActivityEvent' })
export type Activity = z.infer<typeof activitySchema>

const addressSchema = z.object({
  firstName: z.string(),
  lastName: z.string(),
  address1: z.string(),
  address2: z.string(),
  city: z.string(),
  province: z.string(),
  postalCode: z.string(),
  countryCode: z.string(),
  phone: z.string(),
})
export type Address = z.infer<typeof addressSchema>

const customerSchema = z.object({ id: z.string(), email: z.string(), firstName: z.string(), lastName: z.string() })
export type Customer = z.infer<typeof customerSchema>

const itemSchema = z.object({
  id: z.string(),
  title: z.string(),
  variantId: z.string(),
  productId: z.string(),
  quantity: z.number(),
  unitPrice: z.number(),
  total: z.number(),
  thumbnail: z.string().optional(),
})
export type Item = z.infer<typeof itemSchema>

const paymentSchema = z.object({
  id: z.string(),
  amount: z.number(),
  currency: z.string(),
  status: z.enum(PAYMENT_STATUSES),
  providerId: z.string(),
  createdAt: z.string(),
})
export type Payment = z.infer<typeof paymentSchema>

const fulfillmentSchema = z.object({
  id: z.string(),
  items: z.array(z.object({ id: z.string(), itemId: z.string(), quantity: z.number() })),
  locationId: z.string(),
  createdAt: z.string(),
  shippedAt: z.string().nullable(),
  /** Set once a packed fulfillment is undone (a cancel unpacks before it cancels the order). */
  canceledAt: z.string().nullable(),
})
export type Fulfillment = z.infer<typeof fulfillmentSchema>

const orderMetadataSchema = z.object({
  isInvoiced: z.boolean(),
  invoicedAt: z.string().nullable(),
  activityLogs: z.array(activitySchema),
})

export const orderSchema = z.object({
  id: z.string(),
  displayId: z.string(),
  number: z.number(),
  status: z.enum(ORDER_STATUSES),
  fulfillmentStatus: z.enum(FULFILLMENT_STATUSES),
  paymentStatus: z.enum(PAYMENT_STATUSES),
  customerId: z.string(),
  customer: customerSchema,
  items: z.array(itemSchema),
  payments: z.array(paymentSchema),
  fulfillments: z.array(fulfillmentSchema),
  subtotal: z.number(),
  subTotal: z.number(),
  discountTotal: z.number(),
  shippingTotal: z.number(),
  taxTotal: z.number(),
  total: z.number(),
  currency: z.string(),
  shippingAddress: addressSchema.nullable(),
  metadata: orderMetadataSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
}).meta({ id: 'Order' })
export type Order = z.infer<typeof orderSchema>

export const orderSummarySchema = orderSchema.pick({ id: true, displayId: true, status: true, total: true, createdAt: true }).extend({
  number: z.number(),
  paymentStatus: z.enum(PAYMENT_STATUSES),
  fulfillmentStatus: z.enum(FULFILLMENT_STATUSES),
  currency: z.string(),
  customer: customerSchema.pick({ id: true, email: true }),
})
export type OrderSummary = z.infer<typeof orderSummarySchema>

export const cartSchema = z.object({
  id: z.string(),
  regionId: z.string(),
  email: z.string(),
  customerId: z.string(),
  currency: z.string(),
  items: z.array(itemSchema),
  shippingMethods: z.array(z.object({ id: z.string(), shippingOptionId: z.string(), name: z.string(), amount: z.number() })),
  paymentCollection: z.object({
    id: z.string(),
    status: z.string(),
    paymentSessions: z.array(z.object({ id: z.string(), providerId: z.string(), status: z.string() })),
  }).nullable(),
  subtotal: z.number(),
  shippingTotal: z.number(),
  taxTotal: z.number(),
  total: z.number(),
  completedAt: z.string().nullable(),
}).meta({ id: 'Cart' })
export type Cart = z.infer<typeof cartSchema>

export const productSchema = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  thumbnail: z.string().nullable(),
  variants: z.array(z.object({
    id: z.string(),
    title: z.string(),
    sku: z.string().nullable(),
    prices: z.array(z.object({ amount: z.number(), currencyCode: z.string() })),
    /** Units available; null when the variant's stock is not tracked (always orderable) or unknown. */
    inventoryQuantity: z.number().nullable(),
    /** Grams one unit holds; null: not a controlled product (counts toward no cap). */
    grams: z.number().nullable(),
    thcPercent: z.number().nullable(),
    cbdPercent: z.number().nullable(),
  })),
}).meta({ id: 'Product' })
export type Product = z.infer<typeof productSchema>

export const shippingOptionSchema = z.object({ id: z.string(), name: z.string(), amount: z.number() })
export type ShippingOption = z.infer<typeof shippingOptionSchema>

export const memberSchema = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  phone: z.string(),
  hasAccount: z.boolean(),
  createdAt: z.string(),
})
export type Member = z.infer<typeof memberSchema>

export const inventoryLevelSchema = z.object({
  id: z.string(),
  sku: z.string(),
  title: z.string(),
  locationId: z.string(),
  stockedQuantity: z.number(),
  reservedQuantity: z.number(),
  availableQuantity: z.number(),
  incomingQuantity: z.number(),
})
export type InventoryLevel = z.infer<typeof inventoryLevelSchema>
