import { z } from 'zod'

// What the embedded backend's routes accept, as Medusa 2.21 validates it: the routes declare these schemas and
// the services take their output types. Objects are lenient (unknown fields dropped) unless Medusa refuses
// unknown fields there (strict).

const metadata = z.record(z.string(), z.unknown())
const email = z.string().trim().toLowerCase().pipe(z.email())

export const idParams = z.object({ id: z.string().min(1) })

/** A query filter value: `a`, `a,b`, repeated keys or `key[]` all mean "any of". */
export const filterValues = z.union([z.string(), z.array(z.string())]).optional()
  .transform((v) => v === undefined ? undefined : (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean))

/** limit/offset/fields/order of Medusa's list routes; other keys are the route's filters. */
export function listQuery (defaultLimit: number) {
  return z.looseObject({
    limit: z.coerce.number().int().min(0).default(defaultLimit),
    offset: z.coerce.number().int().min(0).default(0),
    fields: z.string().optional(),
    order: z.string().optional(),
  })
}

export const fieldsQuery = z.looseObject({ fields: z.string().optional() })

// Accounts

export const credentialsBody = z.object({ email, password: z.string().min(1) })
export type Credentials = z.output<typeof credentialsBody>

export const createCustomerBody = z.object({
  email,
  first_name: z.string().nullish(),
  last_name: z.string().nullish(),
  phone: z.string().nullish(),
  metadata: metadata.nullish(),
})
export type CreateCustomerInput = z.output<typeof createCustomerBody>

export const updateCustomerBody = z.object({
  first_name: z.string().nullish(),
  last_name: z.string().nullish(),
  phone: z.string().nullish(),
  metadata: metadata.nullish(),
})
export type UpdateCustomerInput = z.output<typeof updateCustomerBody>

/** A customer changing itself: its metadata (its clubs) is not its to change. */
export const updateMeBody = updateCustomerBody.omit({ metadata: true })

export const createInviteBody = z.object({ email, metadata: metadata.nullish() })
export type CreateInviteInput = z.output<typeof createInviteBody>

export const acceptInviteBody = z.object({
  email: email.optional(),
  first_name: z.string().nullish(),
  last_name: z.string().nullish(),
})
export type AcceptInviteInput = z.output<typeof acceptInviteBody>

// Carts

const addressFields = {
  first_name: z.string().nullish(),
  last_name: z.string().nullish(),
  company: z.string().nullish(),
  address_1: z.string().nullish(),
  address_2: z.string().nullish(),
  city: z.string().nullish(),
  postal_code: z.string().nullish(),
  province: z.string().nullish(),
  country_code: z.string().nullish(),
  phone: z.string().nullish(),
  metadata: metadata.nullish(),
}
const addressBody = z.object({ ...addressFields, country_code: z.string().trim().toLowerCase().nullish() })
// Medusa 2.21 compares an update's country as sent ("AR" is not within a region of "ar").
const updateAddressBody = z.object(addressFields)
export type AddressInput = z.output<typeof updateAddressBody>

export const lineItemBody = z.object({
  variant_id: z.string().min(1),
  quantity: z.number().int().min(1),
  metadata: metadata.nullish(),
})
export type LineItemInput = z.output<typeof lineItemBody>

export const createCartBody = z.object({
  region_id: z.string().min(1).optional(),
  email: email.optional(),
  sales_channel_id: z.string().min(1).optional(),
  shipping_address: addressBody.optional(),
  billing_address: addressBody.optional(),
  items: z.array(lineItemBody).optional(),
  metadata: metadata.nullish(),
})
export type CreateCartInput = z.output<typeof createCartBody>

export const updateCartBody = z.object({
  region_id: z.string().min(1).optional(),
  email: email.optional(),
  shipping_address: updateAddressBody.optional(),
  billing_address: updateAddressBody.optional(),
  metadata: metadata.nullish(),
})
export type UpdateCartInput = z.output<typeof updateCartBody>

export const lineParams = idParams.extend({ line_id: z.string().min(1) })
export const lineQuantityBody = z.object({ quantity: z.number().int().min(0), metadata: metadata.nullish() })
export type LineQuantityInput = z.output<typeof lineQuantityBody>
export const shippingMethodBody = z.object({ option_id: z.string().min(1), data: metadata.optional() })
export const paymentCollectionBody = z.object({ cart_id: z.string().min(1) })
export const paymentSessionBody = z.object({ provider_id: z.string().min(1), data: metadata.optional() })
export type PaymentSessionInput = z.output<typeof paymentSessionBody>

// Catalog

const nullableMetadata = metadata.nullable()
const priceSchema = z.object({ currency_code: z.string().min(3).max(3).transform((c) => c.toLowerCase()), amount: z.number().int().min(0) })
const variantSchema = z.object({
  title: z.string().min(1),
  sku: z.string().min(1).nullish(),
  manage_inventory: z.boolean().default(true),
  allow_backorder: z.boolean().default(false),
  variant_rank: z.number().int().optional(),
  options: z.record(z.string(), z.string()).optional(),
  prices: z.array(priceSchema).default([]),
  weight: z.number().min(0).max(1_000_000).nullish(),
  metadata: nullableMetadata.optional(),
})
const productStatus = z.enum(['draft', 'proposed', 'published', 'rejected'])
const channelRefs = z.array(z.object({ id: z.string().min(1) }))
// Fields Medusa accepts on create that the embedded backend keeps no record of.
const ignored = {
  shipping_profile_id: z.string().optional(),
  is_giftcard: z.boolean().optional(),
  discountable: z.boolean().optional(),
  images: z.array(z.unknown()).optional(),
  tags: z.array(z.unknown()).optional(),
  type_id: z.string().nullish(),
  collection_id: z.string().nullish(),
}

export const createProductBody = z.strictObject({
  title: z.string().min(1),
  subtitle: z.string().nullish(),
  description: z.string().nullish(),
  handle: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lowercase letters, digits and dashes').optional(),
  status: productStatus.default('draft'),
  thumbnail: z.string().nullish(),
  metadata: nullableMetadata.optional(),
  sales_channels: channelRefs.optional(),
  options: z.array(z.object({ title: z.string().min(1), values: z.array(z.string().min(1)).min(1) })).optional(),
  variants: z.array(variantSchema).optional(),
  ...ignored,
})
export type CreateProductInput = z.output<typeof createProductBody>

export const updateProductBody = z.strictObject({
  title: z.string().min(1).optional(),
  subtitle: z.string().nullish(),
  description: z.string().nullish(),
  status: productStatus.optional(),
  thumbnail: z.string().nullish(),
  metadata: nullableMetadata.optional(),
  sales_channels: channelRefs.optional(),
  variants: z.array(z.strictObject({
    id: z.string().min(1),
    title: z.string().min(1).optional(),
    sku: z.string().min(1).nullish(),
    prices: z.array(priceSchema).optional(),
    weight: z.number().min(0).max(1_000_000).nullish(),
    metadata: nullableMetadata.optional(),
  })).optional(),
  ...ignored,
})
export type UpdateProductInput = z.output<typeof updateProductBody>

export const variantParams = idParams.extend({ variant_id: z.string().min(1) })
// POST /admin/products/{id}/variants/{variant_id}: the fields this backend keeps (Medusa 2.21 takes more).
export const updateVariantBody = z.strictObject({
  title: z.string().min(1).optional(),
  sku: z.string().min(1).nullish(),
  prices: z.array(priceSchema).optional(),
  metadata: nullableMetadata.optional(),
  allow_backorder: z.boolean().optional(),
})
export type UpdateVariantInput = z.output<typeof updateVariantBody>

export const levelParams = idParams.extend({ location_id: z.string().min(1) })
export const stockedQuantityBody = z.object({ stocked_quantity: z.number().int().min(0) })
export const newLevelBody = stockedQuantityBody.extend({ location_id: z.string().min(1) })

// Orders

export const fulfillmentParams = idParams.extend({ fulfillment_id: z.string().min(1) })

export const captureBody = z.object({ amount: z.number().int().positive().optional() })
export type CaptureInput = z.output<typeof captureBody>

const fulfilledItems = z.array(z.object({ id: z.string().min(1), quantity: z.number().int().positive() }))

export const fulfillBody = z.object({
  items: fulfilledItems.min(1),
  location_id: z.string().min(1).optional(),
  no_notification: z.boolean().optional(),
  metadata: metadata.nullish(),
})
export type FulfillInput = z.output<typeof fulfillBody>

export const shipmentBody = z.object({
  items: fulfilledItems.optional(),
  labels: z.array(z.object({ tracking_number: z.string(), tracking_url: z.string(), label_url: z.string() })).optional(),
  no_notification: z.boolean().optional(),
})
export type ShipmentInput = z.output<typeof shipmentBody>

// Medusa validates this body strictly (an unknown field is 400 invalid_data).
export const cancelFulfillmentBody = z.strictObject({
  no_notification: z.boolean().optional(),
  additional_data: metadata.optional(),
})

export const updateOrderBody = z.object({ email: email.optional(), metadata: metadata.nullish() })
export type UpdateOrderInput = z.output<typeof updateOrderBody>
