import { login, MedusaClient } from './http.ts'
import type { Fixtures, Settings } from './seed.ts'
import type { Log } from './steps.ts'

// Fields of GET /admin/orders/{id} that carry the computed statuses and what the next admin step needs.
const ORDER_FIELDS = 'id,display_id,status,payment_status,fulfillment_status,total,*items,*payment_collections.payments,*fulfillments'

interface Id { id: string }

interface AdminOrder {
  id: string
  display_id: number
  status: string
  payment_status: string
  fulfillment_status: string
  total: number
  items: Array<{ id: string, quantity: number }>
  payment_collections: Array<{ payments: Id[] }>
  fulfillments: Id[]
}

/**
 * The whole member flow as ana in club-norte through the store API, then capture, fulfillment and shipment
 * through the admin API, printing the order's statuses after each step. Throws on the first unexpected answer.
 */
export async function smoke (settings: Settings, fixtures: Fixtures, print: Log): Promise<void> {
  const tenant = settings['club-norte']
  const club = fixtures.clubs['club-norte']
  const anonymous = new MedusaClient(tenant.baseUrl)
  const store = anonymous.with({
    publishableKey: tenant.publishableKey,
    token: await login(anonymous, 'customer', 'ana@example.com', fixtures.customerPassword),
  })
  const admin = anonymous.with({ token: await login(anonymous, 'user', tenant.adminEmail, tenant.adminPassword) })

  const { products, count } = await store.get<{ products: Array<{ variants: Array<Id & { inventory_quantity: number }> }>, count: number }>(
    `/store/products?region_id=${tenant.regionId}&fields=*variants.calculated_price,%2Bvariants.inventory_quantity`
  )
  const variant = products[0]?.variants[0]
  if (!variant) throw new Error('the store lists no product')
  print(`store products: ${count}, first variant ${variant.id} in stock ${variant.inventory_quantity}`)

  const { cart } = await store.post<{ cart: Id }>('/store/carts', { region_id: tenant.regionId, email: 'ana@example.com' })
  await store.post(`/store/carts/${cart.id}/line-items`, { variant_id: variant.id, quantity: 2 })
  await store.post(`/store/carts/${cart.id}`, {
    shipping_address: { first_name: 'Ana', last_name: 'García', address_1: 'Av. Cabildo 1300', city: 'Buenos Aires', postal_code: 'C1426', country_code: 'ar' },
  })
  const { shipping_options: options } = await store.get<{ shipping_options: Array<Id & { name: string, amount: number }> }>(`/store/shipping-options?cart_id=${cart.id}`)
  print(`shipping options: ${options.map((o) => `${o.name}=${o.amount}`).join(', ')}`)
  const delivery = options.find((o) => o.id === club.shippingOptions.delivery)
  if (!delivery) throw new Error('the delivery option is not offered for the cart')
  await store.post(`/store/carts/${cart.id}/shipping-methods`, { option_id: delivery.id })
  const { payment_collection: collection } = await store.post<{ payment_collection: Id }>('/store/payment-collections', { cart_id: cart.id })
  await store.post(`/store/payment-collections/${collection.id}/payment-sessions`, { provider_id: 'pp_system_default' })
  const completed = await store.post<{ type: string, order: Id }>(`/store/carts/${cart.id}/complete`)
  if (completed.type !== 'order') throw new Error(`cart completion answered type ${completed.type}`)

  const read = async (after: string): Promise<AdminOrder> => {
    const { order } = await admin.get<{ order: AdminOrder }>(`/admin/orders/${completed.order.id}?fields=${ORDER_FIELDS}`)
    print(`${after}: order #${order.display_id} status=${order.status} payment_status=${order.payment_status} fulfillment_status=${order.fulfillment_status} total=${order.total}`)
    return order
  }
  const placed = await read('completed')
  const payment = placed.payment_collections[0]?.payments[0]
  if (!payment) throw new Error('the order has no payment')
  await admin.post(`/admin/payments/${payment.id}/capture`)
  await read('captured')
  const items = placed.items.map((item) => ({ id: item.id, quantity: item.quantity }))
  await admin.post(`/admin/orders/${placed.id}/fulfillments`, { items, location_id: club.stockLocationId })
  const fulfilled = await read('fulfilled')
  const fulfillment = fulfilled.fulfillments[0]
  if (!fulfillment) throw new Error('the order has no fulfillment')
  await admin.post(`/admin/orders/${placed.id}/fulfillments/${fulfillment.id}/shipments`, { items })
  const shipped = await read('shipped')
  if (shipped.payment_status !== 'captured' || shipped.fulfillment_status !== 'shipped') {
    throw new Error(`unexpected final statuses ${shipped.payment_status}/${shipped.fulfillment_status}`)
  }
}
