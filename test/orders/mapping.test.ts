import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  customerTenants, mapCart, mapOrder, mapProduct, mapShippingOption, UPSTREAM_FULFILLMENT_STATUSES, UPSTREAM_ORDER_STATUSES,
  UPSTREAM_PAYMENT_STATUSES, mapInventoryLevel,
} from '../../src/orders/mapping.ts'
import { withActivities, activity } from '../../src/orders/activity.ts'
import { ACTIVITY_DESCRIPTIONS, FULFILLMENT_STATUSES, ORDER_STATUSES, orderSchema, PAYMENT_STATUSES } from '../../src/orders/schemas.ts'
import { cartAnswer, orderAnswer, productsAnswer, shippingOptionsAnswer, upstreamInventoryItem, upstreamOrder } from '../../src/commerce/upstream.ts'
import { sample } from './samples.ts'

function snakeKeys (value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => snakeKeys(v, `${path}[${i}]`))
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => [...(k.includes('_') ? [`${path}.${k}`] : []), ...snakeKeys(v, `${path}.${k}`)])
  }
  return []
}

describe('mapping of real Medusa answers', () => {
  it('maps an order as placed (authorized, not fulfilled)', () => {
    const order = mapOrder(orderAnswer.parse(sample('admin_order')).order)
    expect(order).toMatchObject({
      id: 'order_01M7ZB9M562VXDN18E668Y98FY',
      displayId: '1',
      number: 1,
      status: 'pending',
      paymentStatus: 'awaiting',
      fulfillmentStatus: 'not_fulfilled',
      // Medusa's subtotal (51500) includes shipping; the interface's is the items' alone.
      subtotal: 50000,
      subTotal: 50000,
      shippingTotal: 1500,
      taxTotal: 0,
      total: 51500,
    })
    expect(order.items[0]).toMatchObject({
      id: 'ordli_01M7ZB9M58AGF1SFT605RBJ05C', variantId: 'variant_01M7ZB94N2Y4CXA5DKQP5J33QB', quantity: 2, unitPrice: 25000, total: 50000
    })
    expect(order.payments[0]).toMatchObject({
      id: 'pay_01M7ZB9M9PXDA2CMB3W0VXN0NZ', amount: 51500, currency: 'ARS', status: 'awaiting', providerId: 'pp_system_default'
    })
    expect(order.shippingAddress).toMatchObject({ firstName: 'Ana', address1: 'Calle Falsa 123', postalCode: 'C1000', countryCode: 'ar' })
    expect(orderSchema.safeParse(order).success).toBe(true)
    expect(snakeKeys(order)).toEqual([])
  })

  it('gives a customer without names (a guest made from the email) those of the order\'s shipping address; one with names keeps its own', () => {
    const placed = sample('admin_order').order
    const withCustomer = (customer: object) =>
      mapOrder(orderAnswer.parse({ order: { ...placed, customer: { id: 'cus_guest', email: 'ana@example.com', ...customer } } }).order).customer
    expect(placed.shipping_address).toMatchObject({ first_name: 'Ana', last_name: 'Perez' })
    const fromAddress = { id: 'cus_guest', email: 'ana@example.com', firstName: 'Ana', lastName: 'Perez' }
    expect(withCustomer({ first_name: null, last_name: null })).toEqual(fromAddress)
    expect(withCustomer({ first_name: '', last_name: '' })).toEqual(fromAddress)
    expect(withCustomer({})).toEqual(fromAddress)
    expect(withCustomer({ first_name: 'Ana María', last_name: 'Pereyra' })).toMatchObject({ firstName: 'Ana María', lastName: 'Pereyra' })
    // Names come from one place: a customer with a first name only is not given the address's last name.
    expect(withCustomer({ first_name: 'Ana', last_name: null })).toMatchObject({ firstName: 'Ana', lastName: '' })
    expect(mapOrder(orderAnswer.parse({ order: { ...placed, customer: null, shipping_address: null } }).order).customer).toMatchObject({
      firstName: '', lastName: ''
    })
  })

  it('maps delivered to shipped and a captured payment to captured', () => {
    const order = mapOrder(orderAnswer.parse(sample('order_final')).order)
    expect(order.paymentStatus).toBe('captured')
    expect(order.fulfillmentStatus).toBe('shipped')
    expect(order.fulfillments[0]).toMatchObject({ id: 'ful_01M7ZB9VP50P3ZKBH4RHHF5CEN', shippedAt: '2026-11-21T15:23:57.826Z' })
  })

  it('maps fulfillment items to the order items', () => {
    const order = mapOrder(orderAnswer.parse(sample('order_after_ful')).order)
    expect(order.fulfillmentStatus).toBe('fulfilled')
    expect(order.fulfillments[0]?.items).toEqual([{ id: 'fulit_01M7ZB9VP53SSHY22MSVNTJKWE', itemId: 'ordli_01M7ZB9M58AGF1SFT605RBJ05C', quantity: 2 }])
  })

  it('maps the store completion answer, carts, products, shipping options and stock', () => {
    const completed = sample('complete')
    expect(mapOrder(upstreamOrder.parse(completed.order)).currency).toBe('ARS')
    const cart = mapCart(cartAnswer.parse(sample('cart_get')).cart)
    expect(cart).toMatchObject({ total: 51500, shippingTotal: 1500, currency: 'ARS', completedAt: null })
    expect(cart.paymentCollection?.paymentSessions[0]?.providerId).toBe('pp_system_default')
    const product = mapProduct(productsAnswer.parse(sample('store_products')).products[0]!)
    expect(product.variants[0]).toMatchObject({ prices: [{ amount: 25000, currencyCode: 'ARS' }], inventoryQuantity: 100 })
    expect(mapShippingOption(shippingOptionsAnswer.parse(sample('store_so')).shipping_options[0]!)).toEqual({
      id: 'so_01M7ZB8ZQDK830Y81EZCQS8119', name: 'Envio estandar', amount: 1500
    })
    const level = mapInventoryLevel(upstreamInventoryItem.parse(sample('inv_level').inventory_item), 'sloc_01M7ZB8SS8ZKV38GZYZBQAA5JH')
    expect(level).toMatchObject({ sku: 'MATE-1', stockedQuantity: 100, availableQuantity: 100 })
    for (const value of [cart, product]) expect(snakeKeys(value)).toEqual([])
  })

  it('reads club memberships from customer metadata, tenants or clubs', () => {
    const base = { id: 'cus_1' }
    expect(customerTenants({ ...base, metadata: { clubs: ['club-norte'], tenants: ['club-sur', 7] } }).sort()).toEqual(['club-norte', 'club-sur'])
    expect(customerTenants({ ...base, metadata: null })).toEqual([])
  })
})

// Upstream orders as Medusa could send them: any status of its sets (or one it may add later), any amounts.
const upstreamStatus = (known: string[]) => fc.oneof(fc.constantFrom(...known), fc.string({ maxLength: 12 }))
const money = fc.integer({ min: 0, max: 10_000_000 })
const id = (prefix: string) => fc.stringMatching(/^[A-Z0-9]{4,12}$/).map((s) => `${prefix}_${s}`)
const iso = fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString())
const author = fc.record({ id: id('user'), first_name: fc.string(), last_name: fc.string() })
const storedActivity = fc.record({
  type: fc.constantFrom('system', 'user'),
  status: fc.constantFrom('info', 'success', 'warning', 'error'),
  description: fc.constantFrom(...ACTIVITY_DESCRIPTIONS),
  at: iso,
  author,
})
const upstreamOrderArb = fc.record({
  id: id('order'),
  display_id: fc.integer({ min: 1, max: 1_000_000 }),
  status: upstreamStatus(UPSTREAM_ORDER_STATUSES),
  payment_status: upstreamStatus(UPSTREAM_PAYMENT_STATUSES),
  fulfillment_status: upstreamStatus(UPSTREAM_FULFILLMENT_STATUSES),
  email: fc.option(fc.emailAddress(), { nil: null }),
  currency_code: fc.constantFrom('ars', 'usd', 'ARS'),
  customer_id: fc.option(id('cus'), { nil: null }),
  items: fc.array(
    fc.record({
      id: id('ordli'),
      title: fc.string(),
      variant_id: id('variant'),
      product_id: id('prod'),
      quantity: fc.integer({ min: 1, max: 50 }),
      unit_price: money,
      total: money
    }),
    { maxLength: 5 }
  ),
  payment_collections: fc.array(fc.record({
    id: id('pay_col'),
    payments: fc.array(fc.record({
      id: id('pay'),
      amount: money,
      currency_code: fc.constant('ars'),
      provider_id: fc.constantFrom('pp_system_default', 'pp_cash'),
      captured_at: fc.option(iso, { nil: null }),
      canceled_at: fc.option(iso, { nil: null }),
      created_at: iso,
      refunds: fc.array(fc.record({ amount: money }), { maxLength: 2 }),
    }), { maxLength: 2 }),
  }), { maxLength: 2 }),
  fulfillments: fc.array(
    fc.record({
      id: id('ful'),
      location_id: id('sloc'),
      created_at: iso,
      shipped_at: fc.option(iso, { nil: null }),
      items: fc.array(fc.record({ id: id('fulit'), line_item_id: id('ordli'), quantity: fc.integer({ min: 1, max: 9 }) }), { maxLength: 3 })
    }),
    { maxLength: 2 }
  ),
  subtotal: money,
  shipping_total: money,
  tax_total: money,
  discount_total: money,
  total: money,
  metadata: fc.option(fc.record({ activity_logs: fc.array(storedActivity, { maxLength: 4 }), isInvoiced: fc.boolean(), some_key: fc.string() }), { nil: null }),
  created_at: iso,
  updated_at: iso,
})

describe('mapping properties', () => {
  it('every enum in the spec\'s sets, totals and ids kept, no snake_case key left', () => {
    fc.assert(fc.property(upstreamOrderArb, (raw) => {
      const order = mapOrder(upstreamOrder.parse(raw))
      expect(ORDER_STATUSES).toContain(order.status)
      expect(PAYMENT_STATUSES).toContain(order.paymentStatus)
      expect(FULFILLMENT_STATUSES).toContain(order.fulfillmentStatus)
      for (const p of order.payments) expect(PAYMENT_STATUSES).toContain(p.status)
      expect([order.total, order.subtotal, order.shippingTotal, order.taxTotal, order.discountTotal]).toEqual([
        raw.total, raw.subtotal, raw.shipping_total, raw.tax_total, raw.discount_total
      ])
      expect(order.id).toBe(raw.id)
      expect(order.displayId).toBe(String(raw.display_id))
      expect(order.items.map((i) => [i.id, i.variantId, i.unitPrice, i.quantity])).toEqual(raw.items.map((i) => [i.id, i.variant_id, i.unit_price, i.quantity]))
      expect(order.payments.map((p) => p.id)).toEqual(raw.payment_collections.flatMap((pc) => pc.payments.map((p) => p.id)))
      expect(order.currency).toBe(raw.currency_code.toUpperCase())
      expect(order.metadata.activityLogs).toHaveLength(raw.metadata?.activity_logs.length ?? 0)
      expect(snakeKeys(order)).toEqual([])
      expect(orderSchema.safeParse(order).success).toBe(true)
    }), { numRuns: 300 })
  })

  it('the status table sends each known upstream value where decisions.md says', () => {
    const cases: Array<[string, string, string]> = [
      ['payment', 'authorized', 'awaiting'], ['payment', 'partially_authorized', 'awaiting'], ['payment', 'requires_action', 'awaiting'],
      ['payment', 'captured', 'captured'], ['payment', 'partially_captured', 'captured'], ['payment', 'canceled', 'not_paid'],
      ['payment', 'refunded', 'refunded'], ['payment', 'partially_refunded', 'partially_refunded'],
      ['fulfillment', 'partially_shipped', 'partially_fulfilled'], ['fulfillment', 'delivered', 'shipped'], ['fulfillment', 'partially_delivered', 'shipped'],
      ['order', 'draft', 'pending'], ['order', 'archived', 'completed'], ['order', 'canceled', 'canceled'],
    ]
    const base = orderAnswer.parse(sample('admin_order')).order
    for (const [kind, upstream, expected] of cases) {
      const key = kind === 'order' ? 'status' : `${kind}_status`
      const mapped = mapOrder({ ...base, [key]: upstream })
      expect(kind === 'order' ? mapped.status : kind === 'payment' ? mapped.paymentStatus : mapped.fulfillmentStatus).toBe(expected)
    }
  })

  it('appending activities keeps the log and other metadata keys', () => {
    fc.assert(fc.property(fc.array(storedActivity, { maxLength: 5 }), fc.string(), (log, other) => {
      const event = activity('orders:activity.invoiced', 'success', { id: 'u1', firstName: 'Ada', lastName: 'L' })
      const next = withActivities({ activity_logs: log, other }, [event], { isInvoiced: true })
      expect(next.other).toBe(other)
      expect(next.isInvoiced).toBe(true)
      const mapped = mapOrder({ ...orderAnswer.parse(sample('admin_order')).order, metadata: next })
      expect(mapped.metadata.activityLogs).toHaveLength(log.length + 1)
      expect(mapped.metadata.activityLogs.at(-1)).toEqual(event)
    }))
  })
})
