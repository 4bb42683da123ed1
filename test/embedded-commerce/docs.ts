import type { OrderDoc } from '../../src/embedded-commerce/model.ts'

/**
 * An order as the embedded backend stores it, empty but for what a case gives: its id, channel, customer and
 * moment (epoch ms), and any other field in `more`. The store's tests, its properties and bench/growth.ts write
 * their orders with it.
 */
export function orderDoc (id: string, channel: string, customer: string | null, at: number, more: Partial<OrderDoc> = {}): OrderDoc {
  const iso = new Date(at).toISOString()
  return {
    id,
    display_id: 0,
    version: 1,
    status: 'pending',
    cart_id: 'c',
    region_id: 'r',
    sales_channel_id: channel,
    stock_location_id: 'loc',
    customer_id: customer,
    email: null,
    currency_code: 'ars',
    items: [],
    shipping_methods: [],
    shipping_address: null,
    billing_address: null,
    payment_collections: [],
    fulfillments: [],
    metadata: null,
    canceled_at: null,
    created_at: iso,
    updated_at: iso,
    ...more,
  }
}
