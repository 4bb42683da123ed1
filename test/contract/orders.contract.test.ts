import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { DEMO_PASSWORD } from '../../src/tenants/demo.ts'
import type { TestApp } from '../helper.ts'
import { contractBackend } from './backend.ts'
import {
  ACTIVITIES, CART, ERROR, expectShape, id, INVENTORY_LEVEL, MEMBER, ORDER, ORDER_SUMMARY, PRODUCTS, SHIPPING_OPTIONS, STEP_EVENT,
} from './shapes.ts'

// The order side of this service, the same scenarios and the same assertions whichever commerce backend is
// behind it: the embedded one (npm test) or a real Medusa v2 (npm run test:medusa). Ids are discovered through
// the service's own API; only the demo people (decisions.md section 3) are named.

const backend = contractBackend()

type Headers = Record<string, string>
type Json = any
type Order = z.infer<typeof ORDER>
type Variant = z.infer<typeof PRODUCTS>['products'][number]['variants'][number]

const ONE_CALL_STEPS = [
  ['creating_cart', 10], ['adding_items', 25], ['configuring_shipping', 40], ['initializing_payment', 55], ['completing_cart', 65],
  ['capturing_payment', 75], ['creating_fulfillment', 85], ['shipping_order', 95],
]

function claims (token: string): Json {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'))
}

function events (body: string): Json[] {
  expect(body.endsWith('\n\n')).toBe(true)
  return body.trim().split('\n\n').map((chunk) => {
    expect(chunk.startsWith('data: ')).toBe(true)
    return JSON.parse(chunk.slice('data: '.length))
  })
}

describe(`orders contract against the ${backend.name} commerce backend`, { timeout: backend.timeoutMs }, () => {
  let t: TestApp
  const as = {} as Record<'ana' | 'anaSur' | 'bruno' | 'admin' | 'grower' | 'adminSur', Headers>
  /** ana's first order, taken through every admin step by the tests below. */
  let placed: Order
  /** The club's stock location, as the fulfillment of an order names it. */
  let clubLocation: string

  async function call (method: 'GET' | 'POST', url: string, headers: Headers, payload?: object) {
    return await t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) })
  }
  /** The JSON of a 200 answer (the body is shown when the status is another). */
  async function ok (method: 'GET' | 'POST', url: string, headers: Headers, payload?: object): Promise<Json> {
    const res = await call(method, url, headers, payload)
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(200)
    return res.json()
  }
  /** The error envelope of an answer with `status` and `code`. */
  async function fails (status: number, code: string, method: 'GET' | 'POST', url: string, headers: Headers, payload?: object): Promise<Json> {
    const res = await call(method, url, headers, payload)
    expect([res.statusCode, res.json().error?.code], `${method} ${url}: ${res.body}`).toEqual([status, code])
    return expectShape(ERROR, res.json())
  }
  async function login (actor: 'customer' | 'user', email: string, tenant: string): Promise<Headers> {
    const { token } = await ok('POST', `/auth/${actor}/emailpass`, {}, { email, password: DEMO_PASSWORD })
    return { authorization: `Bearer ${token}`, 'tenant-id': tenant }
  }
  async function variants (headers: Headers): Promise<Variant[]> {
    return expectShape(PRODUCTS, await ok('GET', '/store/products?limit=100', headers)).products.flatMap((p) => p.variants)
  }
  async function stockOf (headers: Headers, variantId: string): Promise<number> {
    const found = (await variants(headers)).find((v) => v.id === variantId)
    expect(found, `variant ${variantId} listed`).toBeDefined()
    return found?.inventoryQuantity ?? -1
  }
  /** The whole member flow: every answer, so that each test asserts what it needs. */
  async function shop (headers: Headers, variantId: string, quantity: number, shipping: 'pickup' | 'delivery', payment: 'cash' | 'transfer') {
    const created = expectShape(CART, (await ok('POST', '/store/carts', headers, {})).cart)
    const added = expectShape(CART, (await ok('POST', `/store/carts/${created.id}/line-items`, headers, { variantId, quantity })).cart)
    const options = expectShape(SHIPPING_OPTIONS, await ok('GET', `/store/shipping-options?cartId=${created.id}`, headers)).shippingOptions
    const option = options.find((o) => o.name === shipping)
    const shipped = expectShape(CART, (await ok('POST', `/store/carts/${created.id}/shipping-methods`, headers, { optionId: option?.id })).cart)
    const paid = expectShape(CART, (await ok('POST', `/store/carts/${created.id}/payment-sessions`, headers, { providerId: payment })).cart)
    const completed = expectShape(z.strictObject({ type: z.literal('order'), order: ORDER }), await ok('POST', `/store/carts/${created.id}/complete`, headers))
    return { created, added, options, shipped, paid, order: completed.order }
  }
  const oneCall = (variantIds: string[], quantity = 1) => ({
    customer: { email: 'ana@example.com', firstName: 'Ana', lastName: 'Pereyra' },
    items: variantIds.map((variantId) => ({ variantId, quantity })),
    shippingMethod: 'delivery',
    paymentMethod: 'cash',
    notes: 'Retira el viernes',
  })

  beforeAll(async () => {
    t = await backend.build()
    as.ana = await login('customer', 'ana@example.com', 'club-norte')
    as.anaSur = { ...as.ana, 'tenant-id': 'club-sur' }
    as.bruno = await login('customer', 'bruno@example.com', 'club-norte')
    as.admin = await login('user', 'admin@club-norte.test', 'club-norte')
    as.grower = await login('user', 'grower@club-norte.test', 'club-norte')
    as.adminSur = await login('user', 'admin@club-sur.test', 'club-sur')
  }, backend.timeoutMs)
  afterAll(async () => { await t?.close() })

  it('logs members and staff in through the backend, with a token of this service that works on its routes', async () => {
    const expected = {
      ana: { role: 'member', tenants: ['club-norte', 'club-sur'], email: 'ana@example.com' },
      bruno: { role: 'member', tenants: ['club-norte'], email: 'bruno@example.com' },
      admin: { role: 'admin', tenants: ['club-norte'], email: 'admin@club-norte.test', sub: 'user_admin_norte' },
      grower: { role: 'grower', tenants: ['club-norte'], email: 'grower@club-norte.test', sub: 'user_grower_norte' },
      adminSur: { role: 'admin', tenants: ['club-sur'], email: 'admin@club-sur.test', sub: 'user_admin_sur' },
    }
    for (const [who, want] of Object.entries(expected)) {
      const headers = as[who as keyof typeof expected]
      const c = claims(headers.authorization?.slice('Bearer '.length) ?? '')
      expect({ ...c, tenants: [...c.tenants].sort() }).toMatchObject(want)
      expect(Object.keys(c).sort()).toEqual(['email', 'exp', 'iat', 'name', 'role', 'sub', 'tenants'])
      expectShape(id, c.sub)
      expect(c.exp - c.iat).toBeGreaterThan(3600)
      expect((await call('GET', '/api/orders?limit=1', headers)).statusCode).toBe(200)
    }
    expect(claims(as.ana.authorization?.slice('Bearer '.length) ?? '').name).toBe('Ana Pereyra')

    const wrong = await fails(401, 'UNAUTHORIZED', 'POST', '/auth/customer/emailpass', {}, { email: 'ana@example.com', password: 'not-the-password' })
    expect(wrong.error.message).toBe('Invalid email or password')
    await fails(401, 'UNAUTHORIZED', 'POST', '/auth/user/emailpass', {}, { email: 'ana@example.com', password: DEMO_PASSWORD })
    await fails(403, 'FORBIDDEN', 'POST', '/auth/customer/emailpass', { 'tenant-id': 'club-sur' }, { email: 'bruno@example.com', password: DEMO_PASSWORD })
    await fails(403, 'FORBIDDEN', 'GET', '/api/orders', { ...as.bruno, 'tenant-id': 'club-sur' })
  })

  it('member flow through POST /store/carts/{cart_id}/complete: pending, awaiting, not fulfilled', async () => {
    const variant = (await variants(as.ana)).find((v) => v.inventoryQuantity >= 2)
    if (!variant) throw new Error('no variant with 2 in stock')
    const flow = await shop(as.ana, variant.id, 2, 'pickup', 'cash')
    expect(flow.created).toMatchObject({ email: 'ana@example.com', items: [], shippingMethods: [], paymentCollection: null })
    expect(flow.added.items).toMatchObject([{ variantId: variant.id, quantity: 2, unitPrice: variant.prices[0]?.amount }])
    expect(flow.options.map((o) => o.name).sort()).toEqual(['delivery', 'pickup'])
    expect(flow.options.find((o) => o.name === 'pickup')?.amount).toBe(0)
    expect(flow.shipped.shippingMethods).toMatchObject([{ name: 'pickup', amount: 0 }])
    expect(flow.paid.paymentCollection?.paymentSessions).toHaveLength(1)
    placed = flow.order
    expect(placed).toMatchObject({
      status: 'pending', paymentStatus: 'awaiting', fulfillmentStatus: 'not_fulfilled', customerId: flow.created.customerId, fulfillments: []
    })
    expect(placed.customer).toMatchObject({ email: 'ana@example.com', firstName: 'Ana', lastName: 'Pereyra' })
    // No step of the member flow sets an address: only the region's country. Her names are her account's.
    expect(placed.shippingAddress).toMatchObject({ firstName: '', lastName: '', countryCode: 'ar' })
    expect(placed.items).toMatchObject([{ variantId: variant.id, quantity: 2, total: 2 * (variant.prices[0]?.amount ?? 0) }])
    expect(placed.total).toBe(2 * (variant.prices[0]?.amount ?? 0))
    expect(placed.payments.map((p) => p.status)).toEqual(['awaiting'])
    expect(placed.metadata).toMatchObject({ isInvoiced: false, invoicedAt: null })
    expect(placed.metadata.activityLogs.map((a) => a.description)).toEqual(['orders:activity.created'])
    // The order holds its units: the store shows two fewer.
    expect(await stockOf(as.ana, variant.id)).toBe(variant.inventoryQuantity - 2)

    for (const headers of [as.ana, as.admin]) {
      const read = expectShape(ORDER, (await ok('GET', `/api/orders/${placed.id}`, headers)).order)
      expect(read).toEqual(placed)
    }
    const mine = await ok('GET', '/api/orders?limit=100', as.ana)
    mine.orders.forEach((o: unknown) => expectShape(ORDER_SUMMARY, o))
    expect(mine.orders.find((o: Json) => o.id === placed.id)).toEqual({
      id: placed.id,
      displayId: placed.displayId,
      number: placed.number,
      status: 'pending',
      paymentStatus: 'awaiting',
      fulfillmentStatus: 'not_fulfilled',
      total: placed.total,
      currency: 'ARS',
      customer: { id: placed.customerId, email: 'ana@example.com' },
      createdAt: placed.createdAt,
    })
  })

  it('admin steps: capture, fulfill, ship, invoice, each once; activities; cancel after shipping is 409', async () => {
    const url = (step: string) => `/api/orders/${placed.id}/${step}`
    const captured = expectShape(ORDER, (await ok('POST', url('capture'), as.admin)).order)
    expect(captured).toMatchObject({ status: 'pending', paymentStatus: 'captured', fulfillmentStatus: 'not_fulfilled' })
    expect(captured.payments.map((p) => p.status)).toEqual(['captured'])
    expect((await ok('POST', url('capture'), as.admin)).order).toEqual(captured)

    const fulfilled = expectShape(z.strictObject({ order: ORDER, fulfillmentId: id }), await ok('POST', url('fulfill'), as.admin, {}))
    expect(fulfilled.order).toMatchObject({ status: 'pending', paymentStatus: 'captured', fulfillmentStatus: 'fulfilled' })
    expect(
      fulfilled.order.fulfillments
    ).toMatchObject([{ id: fulfilled.fulfillmentId, shippedAt: null, items: [{ itemId: placed.items[0]?.id, quantity: 2 }] }])
    clubLocation = fulfilled.order.fulfillments[0]?.locationId ?? ''
    await fails(409, 'CONFLICT', 'POST', url('fulfill'), as.admin, {})

    const shipped = expectShape(ORDER, (await ok('POST', url('ship'), as.admin, { fulfillmentId: fulfilled.fulfillmentId })).order)
    expect(shipped).toMatchObject({ status: 'pending', paymentStatus: 'captured', fulfillmentStatus: 'shipped' })
    expect(shipped.fulfillments[0]?.shippedAt).toEqual(expect.any(String))
    await fails(409, 'CONFLICT', 'POST', url('ship'), as.admin, { fulfillmentId: fulfilled.fulfillmentId })
    await fails(404, 'NOT_FOUND', 'POST', url('ship'), as.admin, { fulfillmentId: 'ful_unknown' })

    const invoiced = expectShape(ORDER, (await ok('POST', url('invoice'), as.admin)).order)
    expect(invoiced.metadata).toMatchObject({ isInvoiced: true, invoicedAt: expect.any(String) })
    expect((await ok('POST', url('invoice'), as.admin)).order.metadata.invoicedAt).toBe(invoiced.metadata.invoicedAt)

    const refused = await fails(409, 'CONFLICT', 'POST', url('cancel'), as.admin)
    expect(refused.error.message).toMatch(/shipped/)
    for (const headers of [as.ana, as.admin]) {
      const { activities } = expectShape(ACTIVITIES, await ok('GET', url('activities'), headers))
      expect(activities.map((a) => [a.description, a.status])).toEqual([
        ['orders:activity.created', 'success'], ['orders:activity.paymentConfirmed', 'success'], ['orders:activity.fulfilled', 'success'],
        ['orders:activity.shipped', 'success'], ['orders:activity.invoiced', 'success'],
      ])
      expect(activities[1]?.author).toEqual({ id: 'user_admin_norte', firstName: 'Admin', lastName: 'Norte' })
    }
    expect((await ok('GET', `/api/orders/${placed.id}`, as.ana)).order).toMatchObject({
      status: 'pending', paymentStatus: 'captured', fulfillmentStatus: 'shipped'
    })
  })

  it('cancel: an order not yet shipped is canceled and its units come back (packed ones unpacked first); shipped in part, or canceled twice, ' +
    'is 409', async () => {
    const variant = (await variants(as.ana)).find((v) => v.inventoryQuantity >= 2)
    if (!variant) throw new Error('no variant with 2 in stock')
    const { order } = await shop(as.ana, variant.id, 1, 'delivery', 'transfer')
    expect(order.shippingTotal).toBeGreaterThan(0)
    const canceled = expectShape(ORDER, (await ok('POST', `/api/orders/${order.id}/cancel`, as.admin)).order)
    expect(canceled).toMatchObject({ status: 'canceled', paymentStatus: 'not_paid', fulfillmentStatus: 'not_fulfilled' })
    expect(canceled.payments.map((p) => p.status)).toEqual(['not_paid'])
    expect(canceled.metadata.activityLogs.map((a) => a.description)).toEqual(['orders:activity.created', 'orders:activity.cancelled'])
    expect(await stockOf(as.ana, variant.id)).toBe(variant.inventoryQuantity)
    await fails(409, 'CONFLICT', 'POST', `/api/orders/${order.id}/cancel`, as.admin)
    await fails(409, 'CONFLICT', 'POST', `/api/orders/${order.id}/fulfill`, as.admin, {})

    const paid = (await shop(as.ana, variant.id, 1, 'pickup', 'cash')).order
    await ok('POST', `/api/orders/${paid.id}/capture`, as.admin)
    const refunded = expectShape(ORDER, (await ok('POST', `/api/orders/${paid.id}/cancel`, as.admin)).order)
    expect(refunded).toMatchObject({ status: 'canceled', paymentStatus: 'refunded', fulfillmentStatus: 'not_fulfilled' })
    expect(refunded.payments.map((p) => p.status)).toEqual(['refunded'])

    // Packed, not shipped: the fulfillment is canceled upstream first, its units go back with the order's.
    const packed = (await shop(as.ana, variant.id, 1, 'pickup', 'cash')).order
    const { fulfillmentId } = await ok('POST', `/api/orders/${packed.id}/fulfill`, as.admin, {})
    expect(await stockOf(as.ana, variant.id)).toBe(variant.inventoryQuantity - 1)
    const unpacked = expectShape(ORDER, (await ok('POST', `/api/orders/${packed.id}/cancel`, as.admin)).order)
    expect(unpacked).toMatchObject({ status: 'canceled', paymentStatus: 'not_paid', fulfillmentStatus: 'canceled' })
    expect(unpacked.fulfillments).toMatchObject([{ id: fulfillmentId, shippedAt: null, canceledAt: expect.any(String) }])
    expect(unpacked.metadata.activityLogs.map((a) =>
      a.description)).toEqual(['orders:activity.created', 'orders:activity.fulfilled', 'orders:activity.cancelled'])
    expect(await stockOf(as.ana, variant.id)).toBe(variant.inventoryQuantity)
    await fails(409, 'CONFLICT', 'POST', `/api/orders/${packed.id}/ship`, as.admin, { fulfillmentId })

    // One unit shipped, one packed: 409, and the packed one stays packed.
    const split = (await shop(as.ana, variant.id, 2, 'pickup', 'cash')).order
    const item = split.items[0]?.id ?? ''
    const sent = (await ok('POST', `/api/orders/${split.id}/fulfill`, as.admin, { items: [{ id: item, quantity: 1 }] })).fulfillmentId
    await ok('POST', `/api/orders/${split.id}/ship`, as.admin, { fulfillmentId: sent })
    await ok('POST', `/api/orders/${split.id}/fulfill`, as.admin, {})
    const refused = await fails(409, 'CONFLICT', 'POST', `/api/orders/${split.id}/cancel`, as.admin)
    expect(refused.error.message).toMatch(/shipped/)
    const kept = expectShape(ORDER, (await ok('GET', `/api/orders/${split.id}`, as.admin)).order)
    expect(kept).toMatchObject({ status: 'pending', fulfillmentStatus: 'partially_fulfilled' })
    expect(kept.fulfillments.map((f) => f.canceledAt)).toEqual([null, null])
  })

  it('create-and-process: completed, captured, shipped, with its timeline; the Idempotency-Key answers the first order again', async () => {
    const [first, second] = await variants(as.admin)
    if (!first || !second) throw new Error('fewer than two variants')
    const body = oneCall([first.id, second.id])
    const headers = { ...as.admin, 'idempotency-key': `contract-${Date.now()}` }
    const res = expectShape(z.strictObject({
      order: ORDER,
      timeline: z.array(z.strictObject({ action: z.string(), timestamp: z.iso.datetime({ offset: true }) })),
    }), await ok('POST', '/api/orders/create-and-process', headers, body))
    expect(res.order).toMatchObject({ status: 'completed', paymentStatus: 'captured', fulfillmentStatus: 'shipped', customer: { email: 'ana@example.com' } })
    // The names sent: on the order's shipping address, and so on its (guest) customer, in the answer and on a read.
    for (const order of [res.order, expectShape(ORDER, (await ok('GET', `/api/orders/${res.order.id}`, as.admin)).order)]) {
      expect(order.customer).toMatchObject({ email: 'ana@example.com', firstName: 'Ana', lastName: 'Pereyra' })
      expect(order.shippingAddress).toMatchObject({ firstName: 'Ana', lastName: 'Pereyra', countryCode: 'ar', address1: '' })
    }
    expect(res.order.items.map((i) => [i.variantId, i.quantity]).sort()).toEqual([[first.id, 1], [second.id, 1]].sort())
    // The spec's subtotal is without shipping (Medusa's own counts it); no taxes or discounts here.
    expect(res.order.subtotal).toBe(res.order.items.reduce((sum, i) => sum + i.total, 0))
    expect(res.order.total).toBe(res.order.subtotal + res.order.shippingTotal)
    expect(res.timeline.map((e) => e.action)).toEqual(['ORDER_CREATED', 'PAYMENT_CAPTURED', 'FULFILLMENT_CREATED', 'ORDER_SHIPPED'])
    expect(res.order.metadata.activityLogs.map((a) => a.description)).toEqual([
      'orders:activity.created', 'orders:activity.note', 'orders:activity.paymentConfirmed', 'orders:activity.fulfilled', 'orders:activity.shipped',
      'orders:activity.completed',
    ])
    expect(res.order.metadata.activityLogs[1]?.note).toBe('Retira el viernes')
    expect(res.order.fulfillments.map((f) => f.locationId)).toEqual([clubLocation])

    expect(await ok('POST', '/api/orders/create-and-process', headers, body)).toEqual(res)
    await fails(409, 'CONFLICT', 'POST', '/api/orders/create-and-process', headers, { ...body, paymentMethod: 'transfer' })
    // Staff order for a member by email: the member sees it among their own.
    expect((await ok('GET', `/api/orders/${res.order.id}`, as.ana)).order.id).toBe(res.order.id)
    expect((await ok('GET', '/api/orders?limit=100', as.ana)).orders.map((o: Json) => o.id)).toContain(res.order.id)
  })

  it('create-and-process-stream: one event per step with the spec\'s progress, ending with the order', async () => {
    const [variant] = await variants(as.admin)
    const res = await call('POST', '/api/orders/create-and-process-stream', as.admin, oneCall([variant?.id ?? '']))
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/)
    const list = events(res.body)
    list.slice(0, -1).forEach((e) => expectShape(STEP_EVENT, e))
    expect(list.slice(0, -1).map((e) => [e.step, e.progress])).toEqual(ONE_CALL_STEPS)
    const last = expectShape(z.strictObject({
      step: z.literal('completed'),
      message: z.string().min(1),
      progress: z.literal(100),
      success: z.literal(true),
      order: z.strictObject({ id, displayId: z.string().regex(/^\d+$/), status: z.literal('completed') }),
    }), list.at(-1))
    const order = expectShape(ORDER, (await ok('GET', `/api/orders/${last.order.id}`, as.admin)).order)
    expect(order).toMatchObject({ displayId: last.order.displayId, status: 'completed', paymentStatus: 'captured', fulfillmentStatus: 'shipped' })
    expect([order.customer.firstName, order.customer.lastName, order.shippingAddress.firstName, order.shippingAddress.lastName]).toEqual([
      'Ana', 'Pereyra', 'Ana', 'Pereyra'
    ])
  })

  it('create-and-process naming the member\'s account (customer.id, her token\'s subject): she is told under her own login; another\'s id is 422', async () => {
    const [variant] = await variants(as.admin)
    const subOf = (headers: Headers): string => claims(headers.authorization?.slice('Bearer '.length) ?? '').sub
    const body = oneCall([variant?.id ?? ''])
    const { order } = await ok('POST', '/api/orders/create-and-process', as.admin, { ...body, customer: { ...body.customer, id: subOf(as.ana) } })
    const { notifications } = await ok('GET', '/api/notifications?domain=orders&limit=100', as.ana)
    expect(notifications.filter((n: Json) => n.resourceId === order.id).map((n: Json) => [n.event, n.recipientId]).sort())
      .toEqual([['order.completed', subOf(as.ana)], ['order.placed', subOf(as.ana)], ['order.shipped', subOf(as.ana)]])

    const before = (await ok('GET', '/api/orders?limit=0', as.admin)).count
    const wrong = await fails(422, 'VALIDATION_ERROR', 'POST', '/api/orders/create-and-process', as.admin, {
      ...body, customer: { ...body.customer, id: subOf(as.bruno) }
    })
    expect(wrong.error.details).toEqual({ errors: { 'customer.id': [expect.stringContaining('ana@example.com')] }, step: 'creating_cart' })
    expect((await ok('GET', '/api/orders?limit=0', as.admin)).count).toBe(before)
  })

  it('out of stock: 409 CONFLICT at the cart and in the one-call routes, and no order is made', async () => {
    const [variant] = await variants(as.ana)
    if (!variant) throw new Error('no variant')
    const tooMany = variant.inventoryQuantity + 1
    const cart = (await ok('POST', '/store/carts', as.ana, {})).cart
    await fails(409, 'CONFLICT', 'POST', `/store/carts/${cart.id}/line-items`, as.ana, { variantId: variant.id, quantity: tooMany })
    expect((await ok('GET', `/store/carts/${cart.id}`, as.ana)).cart.items).toEqual([])

    const before = (await ok('GET', '/api/orders?limit=0', as.admin)).count
    const failed = await fails(409, 'CONFLICT', 'POST', '/api/orders/create-and-process', as.admin, oneCall([variant.id], tooMany))
    expect(failed.error.details).toEqual({ step: 'adding_items' })
    const streamed = events((await call('POST', '/api/orders/create-and-process-stream', as.admin, oneCall([variant.id], tooMany))).body)
    expect(streamed.map((e) => e.step)).toEqual(['creating_cart', 'adding_items', 'adding_items'])
    expect(streamed.at(-1)).toEqual({ step: 'adding_items', message: expect.any(String), progress: 25, success: false, error: expect.any(String) })
    expect((await ok('GET', '/api/orders?limit=0', as.admin)).count).toBe(before)
    expect(await stockOf(as.ana, variant.id)).toBe(variant.inventoryQuantity)
  })

  it('an unknown variant, or another club\'s, is 422 VALIDATION_ERROR', async () => {
    const cart = (await ok('POST', '/store/carts', as.ana, {})).cart
    await fails(422, 'VALIDATION_ERROR', 'POST', `/store/carts/${cart.id}/line-items`, as.ana, { variantId: 'variant_unknown', quantity: 1 })
    const failed = await fails(422, 'VALIDATION_ERROR', 'POST', '/api/orders/create-and-process', as.admin, oneCall(['variant_unknown']))
    expect(failed.error.details).toEqual({ step: 'adding_items' })

    const [norteVariant] = await variants(as.ana)
    const surCart = (await ok('POST', '/store/carts', as.anaSur, {})).cart
    await fails(422, 'VALIDATION_ERROR', 'POST', `/store/carts/${surCart.id}/line-items`, as.anaSur, { variantId: norteVariant?.id ?? '', quantity: 1 })
    expect((await variants(as.anaSur)).map((v) => v.id)).not.toContain(norteVariant?.id)

    // A stock location that is unknown, or another club's, is refused before anything is made (not a paid order left unfulfilled).
    const surLocation = expectShape(id, (await ok('GET', '/api/inventory?limit=1', as.adminSur)).items[0]?.locationId)
    for (const locationId of ['sloc_unknown', surLocation]) {
      const before = (await ok('GET', '/api/orders?limit=0', as.admin)).count
      const wrong = await fails(422, 'VALIDATION_ERROR', 'POST', '/api/orders/create-and-process', as.admin, {
        ...oneCall([norteVariant?.id ?? '']), locationId
      })
      expect(wrong.error.details).toEqual({ errors: { locationId: [expect.any(String)] }, step: 'creating_cart' })
      expect((await ok('GET', '/api/orders?limit=0', as.admin)).count).toBe(before)
    }
  })

  it('another club\'s order and cart, and another member\'s, are 404, for a grower too; roles are enforced', async () => {
    for (const path of ['', '/activities']) {
      await fails(404, 'NOT_FOUND', 'GET', `/api/orders/${placed.id}${path}`, as.adminSur)
      await fails(404, 'NOT_FOUND', 'GET', `/api/orders/${placed.id}${path}`, as.anaSur)
      await fails(404, 'NOT_FOUND', 'GET', `/api/orders/${placed.id}${path}`, as.bruno)
    }
    await fails(404, 'NOT_FOUND', 'POST', `/api/orders/${placed.id}/invoice`, as.adminSur)
    expect((await ok('GET', '/api/orders?limit=100', as.adminSur)).orders.map((o: Json) => o.id)).not.toContain(placed.id)
    expect((await ok('GET', '/api/orders?limit=100', as.bruno)).orders.map((o: Json) => o.id)).not.toContain(placed.id)

    const cart = (await ok('POST', '/store/carts', as.ana, {})).cart
    await fails(404, 'NOT_FOUND', 'GET', `/store/carts/${cart.id}`, as.anaSur)
    await fails(404, 'NOT_FOUND', 'GET', `/store/carts/${cart.id}`, as.bruno)

    // Growers are not named for orders (decisions.md section 2): like a member, they see only their own.
    for (const path of ['', '/activities']) await fails(404, 'NOT_FOUND', 'GET', `/api/orders/${placed.id}${path}`, as.grower)
    expect(await ok('GET', '/api/orders?limit=100', as.grower)).toEqual({ orders: [], count: 0, offset: 0, limit: 100 })
    expect((await ok('GET', `/api/orders?limit=100&customer_id=${placed.customerId}`, as.grower)).orders).toEqual([])
    expect((await ok('GET', '/api/orders?limit=100&status=pending', as.grower)).orders).toEqual([])
    await fails(404, 'NOT_FOUND', 'GET', `/store/carts/${cart.id}`, as.grower)
    await fails(403, 'INSUFFICIENT_PERMISSIONS', 'POST', `/api/orders/${placed.id}/cancel`, as.grower)

    await fails(403, 'INSUFFICIENT_PERMISSIONS', 'POST', `/api/orders/${placed.id}/capture`, as.ana)
    await fails(403, 'INSUFFICIENT_PERMISSIONS', 'GET', '/api/members', as.grower)
    await fails(403, 'FORBIDDEN', 'GET', '/api/orders', { ...as.adminSur, 'tenant-id': 'club-norte' })
  })

  it('lists page with limit and offset: orders (newest first, status filters), members, inventory at the club\'s location', async () => {
    // bruno's order, not yet fulfilled, holds a reservation.
    const [held] = await variants(as.bruno)
    const pending = (await shop(as.bruno, held?.id ?? '', 1, 'pickup', 'cash')).order
    const all = await ok('GET', '/api/orders?limit=100', as.admin)
    all.orders.forEach((o: unknown) => expectShape(ORDER_SUMMARY, o))
    expect(all.count).toBeGreaterThanOrEqual(5)
    const created = all.orders.map((o: Json) => o.createdAt)
    expect(created).toEqual([...created].sort().reverse())
    expect(await ok('GET', '/api/orders?limit=0', as.admin)).toEqual({ orders: [], count: all.count, offset: 0, limit: 0 })
    expect(await ok('GET', '/api/orders?limit=1&offset=1', as.admin)).toEqual({ orders: [all.orders[1]], count: all.count, offset: 1, limit: 1 })
    expect((await ok('GET', `/api/orders?offset=${all.count}`, as.admin)).orders).toEqual([])
    await fails(400, 'VALIDATION_ERROR', 'GET', '/api/orders?limit=101', as.admin)
    for (const [filter, value] of [['fulfillment_status', 'shipped'], ['status', 'canceled'], ['payment_status', 'awaiting']]) {
      const page = await ok('GET', `/api/orders?limit=100&${filter}=${value}`, as.admin)
      const key = { fulfillment_status: 'fulfillmentStatus', status: 'status', payment_status: 'paymentStatus' }[filter as string] as string
      expect(page.orders.length, `${filter}=${value}`).toBeGreaterThan(0)
      expect(page.count).toBe(all.orders.filter((o: Json) => o[key] === value).length)
      expect(page.orders.every((o: Json) => o[key] === value)).toBe(true)
    }

    const members = await ok('GET', '/api/members?limit=100', as.admin)
    members.members.forEach((m: unknown) => expectShape(MEMBER, m))
    expect(members.members.map((m: Json) =>
      [m.email, m.firstName, m.lastName]).sort()).toEqual([['ana@example.com', 'Ana', 'Pereyra'], ['bruno@example.com', 'Bruno', 'Díaz']])
    expect(await ok('GET', '/api/members?limit=0', as.admin)).toEqual({ members: [], count: 2, offset: 0, limit: 0 })
    expect((await ok('GET', '/api/members?limit=1&offset=1', as.admin)).members).toEqual([members.members[1]])
    // Club Sur's demo adds the members its rules show (near the monthly cap, under 21, lapsed)
    expect((await ok('GET', '/api/members', as.adminSur)).members.map((m: Json) =>
      m.email)).toEqual(['ana@example.com', 'lucia@example.com', 'mateo@example.com', 'olga@example.com'])

    const inventory = await ok('GET', '/api/inventory?limit=100', as.grower)
    const levels = inventory.items.map((i: unknown) => expectShape(INVENTORY_LEVEL, i))
    const listed = await variants(as.ana)
    expect(levels.map((l: Json) => l.sku).sort()).toEqual(listed.map((v) => v.sku).sort())
    expect(new Set(levels.map((l: Json) => l.locationId))).toEqual(new Set([clubLocation]))
    for (const l of levels) {
      expect(l.availableQuantity).toBe(l.stockedQuantity - l.reservedQuantity)
      expect(l.availableQuantity).toBe(listed.find((v) => v.sku === l.sku)?.inventoryQuantity)
    }
    expect(levels.find((l: Json) => l.sku === held?.sku)?.reservedQuantity).toBeGreaterThanOrEqual(pending.items[0]?.quantity ?? 1)
    expect(await ok('GET', '/api/inventory?limit=0', as.admin)).toEqual({ items: [], count: inventory.count, offset: 0, limit: 0 })
    expect(await ok('GET', '/api/inventory?limit=2&offset=1', as.admin)).toEqual({
      items: inventory.items.slice(1, 3), count: inventory.count, offset: 1, limit: 2
    })
    expect((await ok('GET', `/api/inventory?offset=${inventory.count}`, as.admin)).items).toEqual([])
  })
})
