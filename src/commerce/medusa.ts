import type { CommerceClient, Query } from './client.ts'
import type { ResolvedSettings } from './settings.ts'
import {
  adminProductAnswer, adminProductsAnswer, inventoryItemAnswer,
  anyObject, cartAnswer, completeAnswer, customerAnswer, customersAnswer, inventoryAnswer, orderAnswer, ordersAnswer, paymentCollectionAnswer,
  orderUpdatedAnswer, paymentProvidersAnswer, productsAnswer, shippingOptionsAnswer, stockLocationAnswer,
} from './upstream.ts'

// One club's commerce backend, in the Medusa v2 dialect (reference/medusa-v2/README.md): every call this
// service makes upstream, and nothing else.

// What GET /admin/orders/{id} must carry: statuses are computed on GET only, so each admin step re-reads these.
// A payment's refunds (its own status after a cancel) come only when asked for.
const ORDER_FIELDS = [
  'id', 'display_id', 'status', 'payment_status', 'fulfillment_status', 'email', 'currency_code', 'customer_id', 'sales_channel_id',
  'metadata', 'created_at', 'updated_at', 'subtotal', 'item_subtotal', 'discount_total', 'shipping_total', 'tax_total', 'total',
  '*items', '*shipping_address', '*customer', '*payment_collections', '*payment_collections.payments', '*payment_collections.payments.refunds',
  '*fulfillments', '*fulfillments.items', '*shipping_methods',
].join(',')
const ORDER_LIST_FIELDS = [
  'id', 'display_id', 'status', 'payment_status', 'fulfillment_status', 'email', 'currency_code', 'customer_id', 'sales_channel_id',
  'total', 'created_at', '*customer', 'metadata',
].join(',')
// weight (grams per unit) and metadata (grams, thc, cbd): what a dispensation counts (docs/dispensing.md)
const PRODUCT_FIELDS = '*variants.calculated_price,+variants.inventory_quantity,+variants.weight,+variants.metadata'
// A real Medusa leaves the shipping method's name out of its cart answers unless asked for.
const CART_FIELDS = '+shipping_methods.name'
const INVENTORY_FIELDS = 'id,sku,title,*location_levels'
// Added to the defaults: a real Medusa leaves prices, inventory items and channels out unless asked for.
const ADMIN_PRODUCT_FIELDS = '*variants,*variants.prices,*variants.inventory_items,*sales_channels,+metadata,+variants.metadata'

export class Medusa {
  constructor (private readonly client: CommerceClient, readonly settings: ResolvedSettings) {}

  private store (token?: string) {
    return { kind: 'store' as const, publishableKey: this.settings.publishableKey, token }
  }

  private get admin () {
    return { kind: 'admin' as const, email: this.settings.adminEmail, password: this.settings.adminPassword }
  }

  // Store (the member's side)

  /** The club's products only: its sales channel named, as Medusa allows for a channel of the publishable key. */
  async listProducts (page: { limit: number, offset: number }, token?: string) {
    return await this.client.call(this.settings.baseUrl, 'GET', '/store/products', {
      caller: this.store(token),
      query: {
        region_id: this.settings.regionId, sales_channel_id: this.settings.salesChannelId, fields: PRODUCT_FIELDS, limit: page.limit, offset: page.offset
      },
      schema: productsAnswer,
    })
  }

  /** A cart, with its first lines when `items` are given (one call instead of two). */
  async createCart (email: string | undefined, token?: string, items: Array<{ variant_id: string, quantity: number }> = []) {
    return (await this.client.call(this.settings.baseUrl, 'POST', '/store/carts', {
      caller: this.store(token),
      body: { region_id: this.settings.regionId, ...(email ? { email } : {}), ...(items.length > 0 ? { items } : {}) },
      schema: cartAnswer,
    })).cart
  }

  async getCart (cartId: string, token?: string) {
    return (await this.client.call(this.settings.baseUrl, 'GET', `/store/carts/${enc(cartId)}`, {
      caller: this.store(token), query: { fields: CART_FIELDS }, schema: cartAnswer
    })).cart
  }

  /** POST /store/carts/{id}: an address given replaces the cart's whole (fields not sent become null). */
  async updateCart (cartId: string, body: { shipping_address: UpstreamAddressInput }, token?: string) {
    return (await this.client.call(this.settings.baseUrl, 'POST', `/store/carts/${enc(cartId)}`, {
      caller: this.store(token), query: { fields: CART_FIELDS }, body, schema: cartAnswer,
    })).cart
  }

  async addLineItem (cartId: string, variantId: string, quantity: number, token?: string) {
    return (await this.client.call(this.settings.baseUrl, 'POST', `/store/carts/${enc(cartId)}/line-items`, {
      caller: this.store(token), query: { fields: CART_FIELDS }, body: { variant_id: variantId, quantity }, schema: cartAnswer,
    })).cart
  }

  async removeLineItem (cartId: string, lineItemId: string, token?: string) {
    await this.client.call(this.settings.baseUrl, 'DELETE', `/store/carts/${enc(cartId)}/line-items/${enc(lineItemId)}`, {
      caller: this.store(token), schema: anyObject
    })
  }

  async listShippingOptions (cartId: string, token?: string) {
    return (await this.client.call(this.settings.baseUrl, 'GET', '/store/shipping-options', {
      caller: this.store(token), query: { cart_id: cartId }, schema: shippingOptionsAnswer,
    })).shipping_options
  }

  async addShippingMethod (cartId: string, optionId: string, token?: string) {
    return (await this.client.call(this.settings.baseUrl, 'POST', `/store/carts/${enc(cartId)}/shipping-methods`, {
      caller: this.store(token), query: { fields: CART_FIELDS }, body: { option_id: optionId }, schema: cartAnswer,
    })).cart
  }

  async createPaymentCollection (cartId: string, token?: string) {
    return (await this.client.call(this.settings.baseUrl, 'POST', '/store/payment-collections', {
      caller: this.store(token), body: { cart_id: cartId }, schema: paymentCollectionAnswer,
    })).payment_collection
  }

  async listPaymentProviders (token?: string) {
    return (await this.client.call(this.settings.baseUrl, 'GET', '/store/payment-providers', {
      caller: this.store(token), query: { region_id: this.settings.regionId }, schema: paymentProvidersAnswer,
    })).payment_providers
  }

  async createPaymentSession (collectionId: string, providerId: string, token?: string) {
    await this.client.call(this.settings.baseUrl, 'POST', `/store/payment-collections/${enc(collectionId)}/payment-sessions`, {
      caller: this.store(token), body: { provider_id: providerId }, schema: anyObject,
    })
  }

  async completeCart (cartId: string, token?: string) {
    return await this.client.call(this.settings.baseUrl, 'POST', `/store/carts/${enc(cartId)}/complete`, { caller: this.store(token), schema: completeAnswer })
  }

  async me (token: string) {
    return (await this.client.call(this.settings.baseUrl, 'GET', '/store/customers/me', { caller: this.store(token), schema: customerAnswer })).customer
  }

  // Admin (the club's staff side, with the club's admin login)

  async getOrder (orderId: string) {
    return (await this.client.call(this.settings.baseUrl, 'GET', `/admin/orders/${enc(orderId)}`, {
      caller: this.admin, query: { fields: ORDER_FIELDS }, schema: orderAnswer,
    })).order
  }

  async listOrders (filter: { limit: number, offset: number, customerIds?: string[] }) {
    const query: Query = {
      fields: ORDER_LIST_FIELDS,
      order: '-created_at',
      limit: filter.limit,
      offset: filter.offset,
      sales_channel_id: [this.settings.salesChannelId],
      customer_id: filter.customerIds,
    }
    return await this.client.call(this.settings.baseUrl, 'GET', '/admin/orders', { caller: this.admin, query, schema: ordersAnswer })
  }

  async capturePayment (paymentId: string) {
    await this.client.call(this.settings.baseUrl, 'POST', `/admin/payments/${enc(paymentId)}/capture`, { caller: this.admin, schema: anyObject })
  }

  async createFulfillment (orderId: string, items: Array<{ id: string, quantity: number }>, locationId: string) {
    await this.client.call(this.settings.baseUrl, 'POST', `/admin/orders/${enc(orderId)}/fulfillments`, {
      caller: this.admin, body: { items, location_id: locationId }, schema: anyObject,
    })
  }

  async createShipment (orderId: string, fulfillmentId: string, items: Array<{ id: string, quantity: number }>) {
    await this.client.call(this.settings.baseUrl, 'POST', `/admin/orders/${enc(orderId)}/fulfillments/${enc(fulfillmentId)}/shipments`, {
      caller: this.admin, body: { items }, schema: anyObject,
    })
  }

  async cancelFulfillment (orderId: string, fulfillmentId: string) {
    await this.client.call(this.settings.baseUrl, 'POST', `/admin/orders/${enc(orderId)}/fulfillments/${enc(fulfillmentId)}/cancel`, {
      caller: this.admin, schema: anyObject
    })
  }

  async cancelOrder (orderId: string) {
    await this.client.call(this.settings.baseUrl, 'POST', `/admin/orders/${enc(orderId)}/cancel`, { caller: this.admin, schema: anyObject })
  }

  async completeOrder (orderId: string) {
    await this.client.call(this.settings.baseUrl, 'POST', `/admin/orders/${enc(orderId)}/complete`, { caller: this.admin, schema: anyObject })
  }

  /** Answers the order's new `updated_at` when the backend sends it (its statuses are not reliable here: see ORDER_FIELDS). */
  async updateOrderMetadata (orderId: string, metadata: Record<string, unknown>) {
    return (await this.client.call(this.settings.baseUrl, 'POST', `/admin/orders/${enc(orderId)}`, {
      caller: this.admin, body: { metadata }, schema: orderUpdatedAnswer
    })).order?.updated_at ?? undefined
  }

  async listCustomers (page: { limit: number, offset: number, email?: string }) {
    return await this.client.call(this.settings.baseUrl, 'GET', '/admin/customers', {
      caller: this.admin,
      query: {
        limit: page.limit,
        offset: page.offset,
        order: 'created_at',
        email: page.email,
        fields: 'id,email,first_name,last_name,phone,has_account,metadata,created_at'
      },
      schema: customersAnswer,
    })
  }

  async getStockLocation (locationId: string) {
    return (await this.client.call(this.settings.baseUrl, 'GET', `/admin/stock-locations/${enc(locationId)}`, {
      caller: this.admin, query: { fields: 'id,*sales_channels' }, schema: stockLocationAnswer,
    })).stock_location
  }

  // Products and stock, as the club's staff change them (the products and batches domains)

  async adminProducts (page: { limit: number, offset: number }) {
    return await this.client.call(this.settings.baseUrl, 'GET', '/admin/products', {
      caller: this.admin,
      query: { fields: ADMIN_PRODUCT_FIELDS, order: '-created_at', limit: page.limit, offset: page.offset, sales_channel_id: [this.settings.salesChannelId] },
      schema: adminProductsAnswer,
    })
  }

  async adminProduct (productId: string) {
    return (await this.client.call(this.settings.baseUrl, 'GET', `/admin/products/${enc(productId)}`, {
      caller: this.admin, query: { fields: ADMIN_PRODUCT_FIELDS }, schema: adminProductAnswer,
    })).product
  }

  async createProduct (body: Record<string, unknown>) {
    return (await this.client.call(this.settings.baseUrl, 'POST', '/admin/products', {
      caller: this.admin, query: { fields: ADMIN_PRODUCT_FIELDS }, body, schema: adminProductAnswer,
    })).product
  }

  /** The product's own fields; its variants change one by one (a variants list here would replace them all in Medusa). */
  async updateProduct (productId: string, body: Record<string, unknown>) {
    return (await this.client.call(this.settings.baseUrl, 'POST', `/admin/products/${enc(productId)}`, {
      caller: this.admin, query: { fields: ADMIN_PRODUCT_FIELDS }, body, schema: adminProductAnswer,
    })).product
  }

  async updateVariant (productId: string, variantId: string, body: Record<string, unknown>) {
    return (await this.client.call(this.settings.baseUrl, 'POST', `/admin/products/${enc(productId)}/variants/${enc(variantId)}`, {
      caller: this.admin, query: { fields: ADMIN_PRODUCT_FIELDS }, body, schema: adminProductAnswer,
    })).product
  }

  /** The shipping profile of the club's shipping options: a new product needs it to be shipped (or picked up) in Medusa. */
  async shippingProfileId (): Promise<string | undefined> {
    const { shipping_options: options } = await this.client.call(this.settings.baseUrl, 'GET', '/admin/shipping-options', {
      caller: this.admin, query: { stock_location_id: this.settings.stockLocationId, fields: 'id,name,shipping_profile_id' }, schema: shippingOptionsAnswer,
    })
    return options.find((o) => o.shipping_profile_id)?.shipping_profile_id ?? undefined
  }

  /** Units of an inventory item stocked at the club's location; undefined when it has no level there yet. */
  async stockedAtClub (inventoryItemId: string): Promise<number | undefined> {
    return (await this.levelAtClub(inventoryItemId))?.stocked
  }

  /** Stocked and reserved units of an inventory item at the club's location; undefined when it has no level there. */
  async levelAtClub (inventoryItemId: string): Promise<{ stocked: number, reserved: number } | undefined> {
    const item = (await this.client.call(this.settings.baseUrl, 'GET', `/admin/inventory-items/${enc(inventoryItemId)}`, {
      caller: this.admin, query: { fields: INVENTORY_FIELDS }, schema: inventoryItemAnswer,
    })).inventory_item
    const level = item.location_levels?.find((l) => l.location_id === this.settings.stockLocationId)
    return level ? { stocked: Number(level.stocked_quantity ?? 0), reserved: Number(level.reserved_quantity ?? 0) } : undefined
  }

  /** Sets the units stocked at the club's location, making the level when `exists` is false. */
  async setStockedAtClub (inventoryItemId: string, quantity: number, exists: boolean): Promise<void> {
    const location = this.settings.stockLocationId
    const [path, body] = exists
      ? [`/admin/inventory-items/${enc(inventoryItemId)}/location-levels/${enc(location)}`, { stocked_quantity: quantity }]
      : [`/admin/inventory-items/${enc(inventoryItemId)}/location-levels`, { location_id: location, stocked_quantity: quantity }]
    await this.client.call(this.settings.baseUrl, 'POST', path, { caller: this.admin, body, schema: anyObject })
  }

  async listInventory (page: { limit: number, offset: number }) {
    return await this.client.call(this.settings.baseUrl, 'GET', '/admin/inventory-items', {
      caller: this.admin,
      query: { limit: page.limit, offset: page.offset, 'location_levels[location_id]': this.settings.stockLocationId, fields: INVENTORY_FIELDS },
      schema: inventoryAnswer,
    })
  }
}

export interface UpstreamAddressInput { first_name?: string, last_name?: string, country_code?: string }

const enc = encodeURIComponent
