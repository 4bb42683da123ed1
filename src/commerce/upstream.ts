import { z } from 'zod'

// The parts of Medusa v2 answers this service reads (reference/medusa-v2/samples). Objects are loose: the
// backend sends many more fields. Whatever fails these schemas is a malformed answer (502).

const amount = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/).transform(Number)])
const text = z.string().nullish()
const meta = z.record(z.string(), z.unknown()).nullish()

const upstreamAddress = z.object({
  first_name: text,
  last_name: text,
  address_1: text,
  address_2: text,
  city: text,
  province: text,
  postal_code: text,
  country_code: text,
  phone: text,
}).loose()

const upstreamCustomer = z.object({
  id: z.string(),
  email: text,
  first_name: text,
  last_name: text,
  phone: text,
  has_account: z.boolean().nullish(),
  metadata: meta,
  created_at: text,
}).loose()
export type UpstreamCustomer = z.infer<typeof upstreamCustomer>

const upstreamItem = z.object({
  id: z.string(),
  title: text,
  thumbnail: text,
  variant_id: text,
  product_id: text,
  quantity: amount,
  unit_price: amount,
  total: amount.nullish(),
  subtotal: amount.nullish(),
  detail: z.object({ fulfilled_quantity: amount.nullish(), shipped_quantity: amount.nullish() }).loose().nullish(),
}).loose()
export type UpstreamItem = z.infer<typeof upstreamItem>

const upstreamPayment = z.object({
  id: z.string(),
  amount,
  currency_code: text,
  provider_id: text,
  captured_at: text,
  canceled_at: text,
  created_at: text,
  captures: z.array(z.object({ amount }).loose()).nullish(),
  refunds: z.array(z.object({ amount }).loose()).nullish(),
}).loose()
export type UpstreamPayment = z.infer<typeof upstreamPayment>

const upstreamFulfillment = z.object({
  id: z.string(),
  location_id: text,
  created_at: text,
  shipped_at: text,
  delivered_at: text,
  canceled_at: text,
  items: z.array(z.object({ id: z.string(), line_item_id: text, quantity: amount }).loose()).nullish(),
}).loose()
export type UpstreamFulfillment = z.infer<typeof upstreamFulfillment>

export const upstreamOrder = z.object({
  id: z.string(),
  display_id: z.number().int(),
  status: z.string(),
  payment_status: z.string().nullish(),
  fulfillment_status: z.string().nullish(),
  email: text,
  currency_code: text,
  customer_id: text,
  sales_channel_id: text,
  customer: upstreamCustomer.nullish(),
  items: z.array(upstreamItem).nullish(),
  payment_collections: z.array(z.object({ id: z.string(), status: text, payments: z.array(upstreamPayment).nullish() }).loose()).nullish(),
  fulfillments: z.array(upstreamFulfillment).nullish(),
  shipping_address: upstreamAddress.nullish(),
  subtotal: amount.nullish(),
  item_subtotal: amount.nullish(),
  discount_total: amount.nullish(),
  shipping_total: amount.nullish(),
  tax_total: amount.nullish(),
  total: amount.nullish(),
  metadata: meta,
  created_at: text,
  shipping_methods: z.array(z.object({ name: text }).loose()).nullish(),
  updated_at: text,
}).loose()
export type UpstreamOrder = z.infer<typeof upstreamOrder>

export const orderAnswer = z.object({ order: upstreamOrder })
/** What this service reads of the answer to an order's update: when it changed (its statuses are computed on GET only). */
export const orderUpdatedAnswer = z.object({ order: z.object({ updated_at: text }).optional() })
export const ordersAnswer = z.object({ orders: z.array(upstreamOrder), count: z.number().int() })

const upstreamCart = z.object({
  id: z.string(),
  region_id: text,
  sales_channel_id: text,
  customer_id: text,
  email: text,
  currency_code: text,
  completed_at: text,
  items: z.array(upstreamItem.extend({ total: amount.nullish() })).nullish(),
  shipping_methods: z.array(z.object({ id: z.string(), shipping_option_id: text, name: text, amount: amount.nullish() }).loose()).nullish(),
  shipping_address: upstreamAddress.nullish(),
  payment_collection: z.object({
    id: z.string(),
    status: text,
    payment_sessions: z.array(z.object({ id: z.string(), provider_id: text, status: text }).loose()).nullish(),
  }).loose().nullish(),
  subtotal: amount.nullish(),
  item_subtotal: amount.nullish(),
  shipping_total: amount.nullish(),
  tax_total: amount.nullish(),
  total: amount.nullish(),
}).loose()
export type UpstreamCart = z.infer<typeof upstreamCart>
export const cartAnswer = z.object({ cart: upstreamCart })

/** Completion answers an order, or the cart again with an error when it could not complete. */
export const completeAnswer = z.union([
  z.object({ type: z.literal('order'), order: upstreamOrder }),
  z.object({ type: z.literal('cart'), cart: upstreamCart.nullish(), error: z.object({ message: text, type: text }).loose().nullish() }),
])

const upstreamVariant = z.object({
  id: z.string(),
  title: text,
  sku: text,
  inventory_quantity: amount.nullish(),
  manage_inventory: z.boolean().nullish(),
  calculated_price: z.object({ calculated_amount: amount.nullish(), currency_code: text }).loose().nullish(),
  prices: z.array(z.object({ amount, currency_code: text }).loose()).nullish(),
  weight: z.number().nullish(),
  metadata: meta,
}).loose()

const upstreamProduct = z.object({
  id: z.string(),
  title: text,
  description: text,
  thumbnail: text,
  variants: z.array(upstreamVariant).nullish(),
}).loose()
export type UpstreamProduct = z.infer<typeof upstreamProduct>
export const productsAnswer = z.object({ products: z.array(upstreamProduct), count: z.number().int() })

/** A variant as the admin product routes answer it: its metadata (grams per unit) and inventory item. */
const upstreamAdminVariant = upstreamVariant.extend({
  metadata: meta,
  inventory_items: z.array(z.object({ inventory_item_id: z.string() }).loose()).nullish(),
})
const upstreamAdminProduct = z.object({
  id: z.string(),
  title: text,
  description: text,
  handle: text,
  status: z.string(),
  metadata: meta,
  created_at: text,
  variants: z.array(upstreamAdminVariant).nullish(),
  sales_channels: z.array(z.object({ id: z.string() }).loose()).nullish(),
}).loose()
export type UpstreamAdminProduct = z.infer<typeof upstreamAdminProduct>
export const adminProductAnswer = z.object({ product: upstreamAdminProduct })
export const adminProductsAnswer = z.object({ products: z.array(upstreamAdminProduct), count: z.number().int() })

const upstreamShippingOption = z.object({
  id: z.string(),
  name: text,
  shipping_profile_id: text,
  amount: amount.nullish(),
  calculated_price: z.object({ calculated_amount: amount.nullish() }).loose().nullish(),
}).loose()
export type UpstreamShippingOption = z.infer<typeof upstreamShippingOption>
export const shippingOptionsAnswer = z.object({ shipping_options: z.array(upstreamShippingOption) })

export const paymentCollectionAnswer = z.object({ payment_collection: z.object({ id: z.string() }).loose() })
export const paymentProvidersAnswer = z.object({ payment_providers: z.array(z.object({ id: z.string() }).loose()) })

export const customersAnswer = z.object({ customers: z.array(upstreamCustomer), count: z.number().int() })
export const customerAnswer = z.object({ customer: upstreamCustomer })

export const upstreamInventoryItem = z.object({
  id: z.string(),
  sku: text,
  title: text,
  location_levels: z.array(z.object({
    location_id: z.string(),
    stocked_quantity: amount.nullish(),
    reserved_quantity: amount.nullish(),
    available_quantity: amount.nullish(),
    incoming_quantity: amount.nullish(),
  }).loose()).nullish(),
}).loose()
export type UpstreamInventoryItem = z.infer<typeof upstreamInventoryItem>
export const inventoryAnswer = z.object({ inventory_items: z.array(upstreamInventoryItem), count: z.number().int() })
export const inventoryItemAnswer = z.object({ inventory_item: upstreamInventoryItem })

/** Any JSON object: for POST answers whose content is not read (statuses come from a re-read). */
export const stockLocationAnswer = z.object({
  stock_location: z.object({ id: z.string(), sales_channels: z.array(z.object({ id: z.string() }).loose()).nullish() }).loose(),
})

export const anyObject = z.record(z.string(), z.unknown())
