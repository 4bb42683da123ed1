import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import { placeOrder } from './place-order.ts'

// The whole order side against the embedded commerce backend over real HTTP (COMMERCE_URL unset).
describe.each(['redis', 'memory'] as const)('orders against the embedded backend (%s)', (store) => {
  let t: TestApp
  let admin: Record<string, string>
  let ana: Record<string, string>
  let orderId: string

  const login = async (actor: 'customer' | 'user', email: string, tenant: string) => {
    const res = await t.app.inject({ method: 'POST', url: `/auth/${actor}/emailpass`, payload: { email, password: 'demo-password' } })
    expect(res.statusCode).toBe(200)
    return { authorization: `Bearer ${res.json().token}`, 'tenant-id': tenant }
  }
  const oneCall = { customer: { email: 'ana@example.com', firstName: 'Ana', lastName: 'Pereyra' }, shippingMethod: 'delivery', paymentMethod: 'cash' }

  beforeAll(async () => {
    t = await buildTestApp({ store })
    admin = await login('user', 'admin@club-norte.test', 'club-norte')
    ana = await login('customer', 'ana@example.com', 'club-norte')
  })
  afterAll(async () => { await t.close() })

  it('member flow: products, cart, items, shipping, payment, complete, then the order for member and admin', async () => {
    const products = await t.app.inject({ url: '/store/products', headers: ana })
    expect(products.statusCode).toBe(200)
    const variant = products.json().products[0].variants[0]
    expect(variant.prices[0].currencyCode).toBe('ARS')
    const cart = (await t.app.inject({ method: 'POST', url: '/store/carts', headers: ana, payload: {} })).json().cart
    const added = await t.app.inject({
      method: 'POST', url: `/store/carts/${cart.id}/line-items`, headers: ana, payload: { variantId: variant.id, quantity: 2 }
    })
    expect(added.json().cart.items[0]).toMatchObject({ variantId: variant.id, quantity: 2 })
    const options = (await t.app.inject({ url: `/store/shipping-options?cartId=${cart.id}`, headers: ana })).json().shippingOptions
    expect(options.map((o: { name: string }) => o.name).sort()).toEqual(['delivery', 'pickup'])
    const pickup = options.find((o: { name: string }) => o.name === 'pickup')
    expect(
      (await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/shipping-methods`, headers: ana, payload: { optionId: pickup.id } })).statusCode
    ).toBe(200)
    const paid = await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/payment-sessions`, headers: ana, payload: { providerId: 'cash' } })
    expect(paid.json().cart.paymentCollection.paymentSessions[0].providerId).toBe('pp_cash')
    const done = await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/complete`, headers: ana })
    expect(done.statusCode).toBe(200)
    expect(done.json()).toMatchObject({ type: 'order', order: { status: 'pending', paymentStatus: 'awaiting' } })
    orderId = done.json().order.id
    for (const headers of [ana, admin]) {
      const read = await t.app.inject({ url: `/api/orders/${orderId}`, headers })
      expect(read.statusCode).toBe(200)
      expect(read.json().order).toMatchObject({ id: orderId, fulfillmentStatus: 'not_fulfilled', currency: 'ARS' })
    }
    const mine = (await t.app.inject({ url: '/api/orders', headers: ana })).json()
    expect(mine.orders.map((o: { id: string }) => o.id)).toContain(orderId)
  })

  it('a cart completed several times at once gives one order with one created event and one order.placed notice', async () => {
    const variant = (await t.app.inject({ url: '/store/products', headers: ana })).json().products[3].variants[0]
    const cart = (await t.app.inject({ method: 'POST', url: '/store/carts', headers: ana, payload: {} })).json().cart
    await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/line-items`, headers: ana, payload: { variantId: variant.id, quantity: 1 } })
    const options = (await t.app.inject({ url: `/store/shipping-options?cartId=${cart.id}`, headers: ana })).json().shippingOptions
    await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/shipping-methods`, headers: ana, payload: { optionId: options[0].id } })
    await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/payment-sessions`, headers: ana, payload: { providerId: 'cash' } })
    const answers = await Promise.all(Array.from({ length: 4 }, () => t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/complete`, headers: ana })))
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200])
    const id = answers[0]!.json().order.id
    expect(new Set(answers.map((a) => a.json().order.id))).toEqual(new Set([id]))
    const again = await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/complete`, headers: ana })
    expect(again.json().order.id).toBe(id)
    const activities = (await t.app.inject({ url: `/api/orders/${id}/activities`, headers: ana })).json().activities
    expect(activities.map((a: { description: string }) => a.description)).toEqual(['orders:activity.created'])
    const inbox = (await t.app.inject({ url: '/api/notifications?domain=orders&limit=100', headers: ana })).json().notifications
    expect(inbox.filter((n: { resourceId?: string }) => n.resourceId === id).map((n: { event: string }) => n.event)).toEqual(['order.placed'])
  })

  it('the routes whose body is optional take none: a new cart, a fulfillment of every item', async () => {
    for (const headers of [ana, { ...ana, 'content-type': 'application/json' }]) {
      const cart = await t.app.inject({ method: 'POST', url: '/store/carts', headers })
      expect(cart.statusCode, cart.body).toBe(200)
    }
    const variant = (await t.app.inject({ url: '/store/products', headers: ana })).json().products[4].variants[0]
    const cart = (await t.app.inject({ method: 'POST', url: '/store/carts', headers: ana, payload: {} })).json().cart
    await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/line-items`, headers: ana, payload: { variantId: variant.id, quantity: 1 } })
    const options = (await t.app.inject({ url: `/store/shipping-options?cartId=${cart.id}`, headers: ana })).json().shippingOptions
    await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/shipping-methods`, headers: ana, payload: { optionId: options[0].id } })
    await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/payment-sessions`, headers: ana, payload: { providerId: 'cash' } })
    const order = (await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/complete`, headers: ana })).json().order
    const fulfilled = await t.app.inject({ method: 'POST', url: `/api/orders/${order.id}/fulfill`, headers: { ...admin, 'content-type': 'application/json' } })
    expect(fulfilled.statusCode, fulfilled.body).toBe(200)
    expect(fulfilled.json().order.fulfillmentStatus).toBe('fulfilled')
  })

  it('admin steps: capture, fulfill, ship, invoice, with activities; cancel after shipping is 409', async () => {
    const post = (path: string, payload?: object) =>
      t.app.inject({ method: 'POST', url: `/api/orders/${orderId}/${path}`, headers: admin, ...(payload ? { payload } : {}) })
    expect((await post('capture')).json().order.paymentStatus).toBe('captured')
    const fulfilled = (await post('fulfill', {})).json()
    expect(fulfilled.order.fulfillmentStatus).toBe('fulfilled')
    expect(fulfilled.order.fulfillments.map((f: { id: string }) => f.id)).toContain(fulfilled.fulfillmentId)
    expect((await post('ship', { fulfillmentId: fulfilled.fulfillmentId })).json().order.fulfillmentStatus).toBe('shipped')
    const invoiced = (await post('invoice')).json().order
    expect(invoiced.metadata.isInvoiced).toBe(true)
    expect(Date.parse(invoiced.metadata.invoicedAt)).toBeGreaterThan(0)
    const cancel = await post('cancel')
    expect(cancel.statusCode).toBe(409)
    expect(cancel.json().error.code).toBe('CONFLICT')
    const activities = (await t.app.inject({ url: `/api/orders/${orderId}/activities`, headers: ana })).json().activities
    expect(activities.map((a: { description: string }) => a.description)).toEqual([
      'orders:activity.created', 'orders:activity.paymentConfirmed', 'orders:activity.fulfilled', 'orders:activity.shipped', 'orders:activity.invoiced',
    ])
  })

  it('cancels an order not yet shipped', async () => {
    const products = (await t.app.inject({ url: '/store/products', headers: admin })).json().products
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/orders/create-and-process',
      headers: admin,
      payload: { ...oneCall, items: [{ variantId: products[1].variants[0].id, quantity: 1 }] }
    })
    expect(res.statusCode).toBe(200)
    const cart = (await t.app.inject({ method: 'POST', url: '/store/carts', headers: ana, payload: {} })).json().cart
    await t.app.inject({
      method: 'POST', url: `/store/carts/${cart.id}/line-items`, headers: ana, payload: { variantId: products[0].variants[0].id, quantity: 1 }
    })
    const options = (await t.app.inject({ url: `/store/shipping-options?cartId=${cart.id}`, headers: ana })).json().shippingOptions
    await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/shipping-methods`, headers: ana, payload: { optionId: options[0].id } })
    await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/payment-sessions`, headers: ana, payload: { providerId: 'transfer' } })
    const placed = (await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/complete`, headers: ana })).json().order
    const cancel = await t.app.inject({ method: 'POST', url: `/api/orders/${placed.id}/cancel`, headers: admin })
    expect(cancel.statusCode).toBe(200)
    expect(cancel.json().order.status).toBe('canceled')
  })

  it('cancels with a reason, kept as the note of the cancellation; a blank reason is 400 and cancels nothing', async () => {
    const placed = await placeOrder(t, ana)
    const url = `/api/orders/${placed.id}/cancel`
    const blank = await t.app.inject({ method: 'POST', url, headers: admin, payload: { reason: '   ' } })
    expect(blank.statusCode).toBe(400)
    expect(blank.json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: { reason: [expect.stringContaining('a reason')] } } })
    expect((await t.app.inject({ url: `/api/orders/${placed.id}`, headers: admin })).json().order.status).toBe('pending')
    const cancel = await t.app.inject({ method: 'POST', url, headers: admin, payload: { reason: ' El socio no puede pasar esta semana ' } })
    expect(cancel.statusCode).toBe(200)
    expect(cancel.json().order.status).toBe('canceled')
    const activities = (await t.app.inject({ url: `/api/orders/${placed.id}/activities`, headers: admin })).json().activities
    expect(activities.find((a: { description: string }) => a.description === 'orders:activity.cancelled')).toMatchObject({
      note: 'El socio no puede pasar esta semana', author: { id: expect.any(String) },
    })
  })

  it('one call: completed, captured, shipped; the same Idempotency-Key answers the same order', async () => {
    const products = (await t.app.inject({ url: '/store/products', headers: admin })).json().products
    const payload = { ...oneCall, items: products.slice(0, 2).map((p: { variants: Array<{ id: string }> }) => ({ variantId: p.variants[0]!.id, quantity: 1 })) }
    const call = () => t.app.inject({ method: 'POST', url: '/api/orders/create-and-process', headers: { ...admin, 'idempotency-key': `k-${store}` }, payload })
    const [first, second] = [await call(), await call()]
    expect(first.statusCode).toBe(200)
    expect(first.json().order).toMatchObject({ status: 'completed', paymentStatus: 'captured', fulfillmentStatus: 'shipped' })
    expect(second.json().order.id).toBe(first.json().order.id)
    const reused = await t.app.inject({
      method: 'POST',
      url: '/api/orders/create-and-process',
      headers: { ...admin, 'idempotency-key': `k-${store}` },
      payload: { ...payload, paymentMethod: 'transfer' }
    })
    expect(reused.statusCode).toBe(409)
    const stream = await t.app.inject({ method: 'POST', url: '/api/orders/create-and-process-stream', headers: admin, payload })
    expect(stream.body.trim().split('\n\n').at(-1)).toMatch(/"success":true/)
  })

  it('one call naming the member\'s account (customer.id): she is told under her own login; an id of another email is 422', async () => {
    const products = (await t.app.inject({ url: '/store/products', headers: admin })).json().products
    const items = [{ variantId: products[2].variants[0].id, quantity: 1 }]
    const res = await t.app.inject({
      method: 'POST', url: '/api/orders/create-and-process', headers: admin, payload: { ...oneCall, customer: { ...oneCall.customer, id: 'cus_ana' }, items }
    })
    expect(res.statusCode, res.body).toBe(200)
    const order = res.json().order
    // As in Medusa, a cart for the email of an account belongs to that account.
    expect(order.customerId).toBe('cus_ana')
    const inbox = (await t.app.inject({ url: '/api/notifications?domain=orders&limit=100', headers: ana })).json().notifications
    expect(
      inbox.filter((n: { resourceId?: string }) =>
        n.resourceId === order.id).map((n: { event: string, recipientId: string }) => [n.event, n.recipientId]).sort()
    )
      .toEqual([['order.completed', 'cus_ana'], ['order.placed', 'cus_ana'], ['order.shipped', 'cus_ana']])

    const bruno = await login('customer', 'bruno@example.com', 'club-norte')
    for (const id of ['cus_bruno', 'cus_nobody']) {
      const wrong = await t.app.inject({
        method: 'POST', url: '/api/orders/create-and-process', headers: admin, payload: { ...oneCall, customer: { ...oneCall.customer, id }, items }
      })
      expect([wrong.statusCode, wrong.json().error.code]).toEqual([422, 'VALIDATION_ERROR'])
      expect(wrong.json().error.details).toEqual({ errors: { 'customer.id': [expect.stringContaining('ana@example.com')] }, step: 'creating_cart' })
    }
    expect((await t.app.inject({ url: '/api/notifications?domain=orders', headers: bruno })).json().count).toBe(0)
  })

  it('roles and isolation: members 403 on admin steps, another member\'s order is 404, another club\'s order is 404', async () => {
    const bruno = await login('customer', 'bruno@example.com', 'club-norte')
    expect((await t.app.inject({ method: 'POST', url: `/api/orders/${orderId}/capture`, headers: ana })).statusCode).toBe(403)
    expect((await t.app.inject({ url: `/api/orders/${orderId}`, headers: bruno })).statusCode).toBe(404)
    expect((await t.app.inject({ url: `/api/orders/${orderId}/activities`, headers: bruno })).statusCode).toBe(404)
    expect((await t.app.inject({ url: '/api/orders', headers: bruno })).json().orders.map((o: { id: string }) => o.id)).not.toContain(orderId)
    const sur = await login('user', 'admin@club-sur.test', 'club-sur')
    expect((await t.app.inject({ url: `/api/orders/${orderId}`, headers: sur })).statusCode).toBe(404)
    expect((await t.app.inject({ url: '/api/orders', headers: { ...sur, 'tenant-id': 'club-norte' } })).statusCode).toBe(403)
    expect((await t.app.inject({ url: '/api/members', headers: await login('user', 'grower@club-norte.test', 'club-norte') })).statusCode).toBe(403)
  })

  it('pagination: limit=0 gives the count only, offset past the end is empty, limit over 100 is 400', async () => {
    const all = (await t.app.inject({ url: '/api/orders?limit=100', headers: admin })).json()
    const zero = (await t.app.inject({ url: '/api/orders?limit=0', headers: admin })).json()
    expect(zero).toEqual({ orders: [], count: all.count, offset: 0, limit: 0 })
    expect((await t.app.inject({ url: `/api/orders?offset=${all.count}`, headers: admin })).json().orders).toEqual([])
    expect((await t.app.inject({ url: '/api/orders?limit=101', headers: admin })).statusCode).toBe(400)
    const shipped = (await t.app.inject({ url: '/api/orders?fulfillment_status=shipped', headers: admin })).json()
    expect(shipped.orders.length).toBeGreaterThan(0)
    expect(shipped.count).toBeLessThan(all.count)
    const members = (await t.app.inject({ url: '/api/members?limit=0', headers: admin })).json()
    expect(members).toEqual({ members: [], count: 2, offset: 0, limit: 0 })
    const inventory = (await t.app.inject({ url: '/api/inventory?limit=2', headers: admin })).json()
    expect(inventory.items).toHaveLength(2)
    expect(inventory.items[0].locationId).toBe('sloc_club_norte')
  })
})
