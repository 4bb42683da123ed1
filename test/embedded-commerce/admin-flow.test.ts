import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signAccessToken, verifyAccessToken } from '../../src/auth/tokens.ts'
import { PK_NORTE, startWithLogins, type Backend } from './harness.ts'
import { sample, shapeDiff } from './shape.ts'
import { readyCart, stockOf, variantOf } from './flow.ts'
import { TEST_SECRETS } from '../helper.ts'

// Staff's side of an order over real HTTP: capture, fulfill, ship, deliver, complete, cancel, metadata.
const DEEP = ['order.items[].variant']
const ORDER_FIELDS = 'id,display_id,status,version,payment_status,fulfillment_status,total,*items,*payment_collections.payments,*fulfillments'

describe.each(['redis', 'memory'] as const)('admin flow (%s)', (store) => {
  let b: Backend
  let ana: Record<string, string>
  let admin: Record<string, string>
  beforeAll(async () => { ({ b, ana, admin } = await startWithLogins(store)) })
  afterAll(async () => { await b.close() })

  const placeOrder = async (handle: string, quantity: number) => {
    const variant = await variantOf(b, handle)
    const cart = await readyCart(b, ana, variant.id, quantity)
    const done = await b.call('POST', `/store/carts/${cart}/complete`, { headers: PK_NORTE })
    expect(done.status, done.text).toBe(200)
    return { order: done.body.order, variant }
  }
  const read = async (id: string) => (await b.call('GET', `/admin/orders/${id}?fields=${ORDER_FIELDS}`, { headers: admin })).body.order

  it('captures, fulfills, ships and delivers, statuses computed on GET as Medusa\'s', async () => {
    const { order, variant } = await placeOrder('norte-flores-amnesia', 2)
    const before = await stockOf(b, admin, variant.inventoryItemId)

    const full = await b.call('GET', `/admin/orders/${order.id}`, { headers: admin })
    expect(shapeDiff(full.body, sample('admin_order'), DEEP)).toEqual([])
    const list = await b.call('GET', '/admin/orders?fields=id,display_id,status,total,version,*items,payment_status,fulfillment_status&limit=15', {
      headers: admin
    })
    expect(shapeDiff(list.body, sample('admin_orders'))).toEqual([])
    expect(list.body).toMatchObject({ count: 1, offset: 0, limit: 15 })

    const payment = full.body.order.payment_collections[0].payments[0]
    const over = await b.call('POST', `/admin/payments/${payment.id}/capture`, { headers: admin, body: { amount: payment.amount + 1 } })
    expect(over.status).toBe(400)
    expect(over.body).toEqual(sample('capture_over'))
    const captured = await b.call('POST', `/admin/payments/${payment.id}/capture`, { headers: admin })
    expect(shapeDiff(captured.body, sample('capture'))).toEqual([])
    expect(captured.body.payment.captures).toEqual([{ id: expect.stringMatching(/^capt_/), amount: 51500 }])
    const again = await b.call('POST', `/admin/payments/${payment.id}/capture`, { headers: admin })
    expect(again.body).toEqual(captured.body)
    const afterCapture = await read(order.id)
    expect(shapeDiff({ order: afterCapture }, sample('order_after_capture'))).toEqual([])
    expect(afterCapture).toMatchObject({ status: 'pending', payment_status: 'captured', fulfillment_status: 'not_fulfilled' })

    const item = afterCapture.items[0]
    const tooMany = await b.call('POST', `/admin/orders/${order.id}/fulfillments`, {
      headers: admin, body: { items: [{ id: item.id, quantity: 3 }], location_id: 'sloc_club_norte' }
    })
    expect(tooMany.body).toEqual({ type: 'invalid_data', message: `Quantity to fulfill exceeds the reserved quantity for the item: ${item.id}` })
    expect(shapeDiff(tooMany.body, sample('fulfill_bad'))).toEqual([])
    const fulfilled = await b.call('POST', `/admin/orders/${order.id}/fulfillments`, {
      headers: admin, body: { items: [{ id: item.id, quantity: 2 }], location_id: 'sloc_club_norte' }
    })
    expect(shapeDiff(fulfilled.body, sample('fulfill'), DEEP)).toEqual([])
    const afterFulfill = await read(order.id)
    expect(shapeDiff({ order: afterFulfill }, sample('order_after_ful'))).toEqual([])
    expect(afterFulfill).toMatchObject({ payment_status: 'captured', fulfillment_status: 'fulfilled', version: 2 })
    expect(await stockOf(b, admin, variant.inventoryItemId)).toEqual({ stocked: before.stocked - 2, reserved: before.reserved - 2 })

    const fulfillment = afterFulfill.fulfillments[0]
    const labels = [{ tracking_number: 'TRK123', tracking_url: 'https://example.com/t/TRK123', label_url: 'https://example.com/l/TRK123' }]
    const shipped = await b.call('POST', `/admin/orders/${order.id}/fulfillments/${fulfillment.id}/shipments`, {
      headers: admin, body: { items: [{ id: item.id, quantity: 2 }], labels }
    })
    expect(shapeDiff(shipped.body, sample('ship_ful'), DEEP)).toEqual([])
    const afterShip = await read(order.id)
    expect(shapeDiff({ order: afterShip }, sample('order_after_ship'))).toEqual([])
    expect(afterShip).toMatchObject({ fulfillment_status: 'shipped', version: 3 })

    const cancel = await b.call('POST', `/admin/orders/${order.id}/cancel`, { headers: admin })
    expect(cancel.status).toBe(400)
    expect(cancel.body).toMatchObject({ type: 'not_allowed' })

    const delivered = await b.call('POST', `/admin/orders/${order.id}/fulfillments/${fulfillment.id}/mark-as-delivered`, { headers: admin })
    expect(shapeDiff(delivered.body, sample('deliver'), DEEP)).toEqual([])
    const final = await read(order.id)
    expect(shapeDiff({ order: final }, sample('order_final'))).toEqual([])
    expect(final).toMatchObject({ status: 'pending', payment_status: 'captured', fulfillment_status: 'delivered', version: 4 })

    const completed = await b.call('POST', `/admin/orders/${order.id}/complete`, { headers: admin })
    expect(completed.body.order.status).toBe('completed')

    const inventory = await b.call('GET', '/admin/inventory-items?sku=NORTE-AMNESIA-5&location_levels[location_id]=sloc_club_norte', { headers: admin })
    expect(shapeDiff(inventory.body, sample('inv_list'))).toEqual([])
    expect(inventory.body.inventory_items[0]).toMatchObject({ stocked_quantity: before.stocked - 2, reserved_quantity: before.reserved - 2 })
  })

  it('cancels an unfulfilled order as Medusa does: reservation released, payment canceled; refused once packed, canceled or completed', async () => {
    const { order, variant } = await placeOrder('norte-sustrato', 3)
    const before = await stockOf(b, admin, variant.inventoryItemId)
    const canceled = await b.call('POST', `/admin/orders/${order.id}/cancel`, { headers: admin })
    expect(canceled.status).toBe(200)
    expect(canceled.body.order).toMatchObject({ status: 'canceled', payment_status: 'canceled', fulfillment_status: 'not_fulfilled' })
    expect(await stockOf(b, admin, variant.inventoryItemId)).toEqual({ stocked: before.stocked, reserved: before.reserved - 3 })
    const refusal = { type: 'invalid_data', message: `Order with id ${order.id} has been canceled.` }
    expect(await b.call('POST', `/admin/orders/${order.id}/cancel`, { headers: admin })).toMatchObject({ status: 400, body: refusal })
    expect(await b.call('POST', `/admin/orders/${order.id}`, { headers: admin, body: { metadata: { note: 'x' } } })).toMatchObject({
      status: 400, body: refusal
    })
    expect((await b.call('POST', `/admin/orders/${order.id}/complete`, { headers: admin })).status).toBe(400)

    const packed = (await placeOrder('norte-sustrato', 1)).order
    const line = (await read(packed.id)).items[0]
    await b.call('POST', `/admin/orders/${packed.id}/fulfillments`, { headers: admin, body: { items: [{ id: line.id, quantity: 1 }] } })
    expect(await b.call('POST', `/admin/orders/${packed.id}/cancel`, { headers: admin })).toMatchObject({
      status: 400, body: { type: 'not_allowed', message: 'All fulfillments must be canceled before canceling an order' },
    })
  })

  it('cancels an unshipped fulfillment as Medusa does: units back in stock and reserved again; then the order cancels', async () => {
    const { order, variant } = await placeOrder('norte-sustrato', 2)
    const line = (await read(order.id)).items[0]
    const reserved = await stockOf(b, admin, variant.inventoryItemId)
    const fulfill = async () =>
      (await b.call('POST', `/admin/orders/${order.id}/fulfillments`, {
        headers: admin, body: { items: [{ id: line.id, quantity: 1 }] }
      })).body.order.fulfillments.at(-1).id as string
    const [first, second] = [await fulfill(), await fulfill()]
    expect(await stockOf(b, admin, variant.inventoryItemId)).toEqual({ stocked: reserved.stocked - 2, reserved: reserved.reserved - 2 })
    const cancelOf = (fid: string, body: object = {}) => b.call('POST', `/admin/orders/${order.id}/fulfillments/${fid}/cancel`, { headers: admin, body })

    const undone = await cancelOf(first, { no_notification: true })
    expect(undone.status, undone.text).toBe(200)
    expect(shapeDiff(undone.body, sample('ship_ful'), DEEP)).toEqual([])
    expect(undone.body.order.fulfillments.find((f: any) => f.id === first).canceled_at).toEqual(expect.any(String))
    expect(await read(order.id)).toMatchObject({ status: 'pending', fulfillment_status: 'partially_fulfilled' })
    expect(await stockOf(b, admin, variant.inventoryItemId)).toEqual({ stocked: reserved.stocked - 1, reserved: reserved.reserved - 1 })

    expect(await cancelOf(first)).toMatchObject({ status: 400, body: { type: 'not_allowed', message: 'The fulfillment is already canceled' } })
    expect(await cancelOf('ful_nope')).toMatchObject({
      status: 400, body: { type: 'invalid_data', message: 'Fulfillment with id ful_nope not found in the order' }
    })
    expect(await cancelOf(second, { foo: 1 })).toMatchObject({
      status: 400, body: { type: 'invalid_data', message: 'Invalid request: Unrecognized fields: \'foo\'' }
    })
    await b.call('POST', `/admin/orders/${order.id}/fulfillments/${second}/shipments`, { headers: admin, body: {} })
    expect(await cancelOf(second)).toMatchObject({
      status: 400, body: { type: 'not_allowed', message: 'The fulfillment has already been shipped. Shipped fulfillments cannot be canceled' },
    })

    const { order: other, variant: same } = await placeOrder('norte-sustrato', 1)
    const packed = (await b.call('POST', `/admin/orders/${other.id}/fulfillments`, {
      headers: admin, body: { items: [{ id: (await read(other.id)).items[0].id, quantity: 1 }] }
    })).body.order
    const before = await stockOf(b, admin, same.inventoryItemId)
    expect((await b.call('POST', `/admin/orders/${other.id}/fulfillments/${packed.fulfillments[0].id}/cancel`, { headers: admin })).status).toBe(200)
    expect(await read(other.id)).toMatchObject({ fulfillment_status: 'canceled' })
    expect(await stockOf(b, admin, same.inventoryItemId)).toEqual({ stocked: before.stocked + 1, reserved: before.reserved + 1 })
    const canceled = await b.call('POST', `/admin/orders/${other.id}/cancel`, { headers: admin })
    expect(canceled.status, canceled.text).toBe(200)
    expect(canceled.body.order).toMatchObject({ status: 'canceled', fulfillment_status: 'canceled' })
    expect(await stockOf(b, admin, same.inventoryItemId)).toEqual({ stocked: before.stocked + 1, reserved: before.reserved })
    expect(await b.call('POST', `/admin/orders/${other.id}/fulfillments/${packed.fulfillments[0].id}/cancel`, { headers: admin })).toMatchObject({
      status: 400, body: { type: 'invalid_data', message: `Order with id ${other.id} has been canceled.` },
    })
  })

  it('merges order metadata, as the activity log and invoice flags use it', async () => {
    const { order } = await placeOrder('norte-picador', 1)
    await b.call('POST', `/admin/orders/${order.id}`, {
      headers: admin, body: { metadata: { activity_logs: [{ type: 'system', description: 'orders:activity.created' }] } }
    })
    const res = await b.call('POST', `/admin/orders/${order.id}`, { headers: admin, body: { metadata: { isInvoiced: true } } })
    expect(res.body.order.metadata).toEqual({ activity_logs: [{ type: 'system', description: 'orders:activity.created' }], isInvoiced: true })
  })

  it('filters, pages and scopes the order list to the staff user\'s clubs', async () => {
    const all = await b.call('GET', '/admin/orders?limit=2&offset=1&fields=id,status', { headers: admin })
    expect(all.body).toMatchObject({ limit: 2, offset: 1 })
    expect(all.body.orders).toHaveLength(2)
    const total = all.body.count
    const canceled = await b.call('GET', '/admin/orders?status[]=canceled', { headers: admin })
    expect(canceled.body.orders.every((o: any) => o.status === 'canceled')).toBe(true)
    expect(canceled.body.count).toBeGreaterThan(0)
    const authorized = await b.call('GET', '/admin/orders?payment_status=authorized&customer_id=cus_ana', { headers: admin })
    expect(authorized.body.orders.every((o: any) => o.payment_status === 'authorized' && o.customer_id === 'cus_ana')).toBe(true)
    expect(authorized.body.count).toBeLessThan(total)

    const sur = await b.login('user', 'admin@club-sur.test')
    expect((await b.call('GET', '/admin/orders', { headers: sur })).body.count).toBe(0)
    expect((await b.call('GET', `/admin/orders/${all.body.orders[0].id}`, { headers: sur })).status).toBe(404)

    const customers = await b.call('GET', '/admin/customers?q=bruno', { headers: admin })
    expect(customers.body.customers.map((c: any) => c.id)).toEqual(['cus_bruno'])
    expect((await b.call('GET', '/admin/customers?q=bruno', { headers: sur })).body.count).toBe(0)
  })

  it('lists a guest among the customers of the club it ordered from, once it ordered, and not among another club\'s', async () => {
    const sur = await b.login('user', 'admin@club-sur.test')
    const ids = async (headers: Record<string, string>) =>
      (await b.call('GET', '/admin/customers?limit=50&fields=id,email', { headers })).body.customers.map((c: any) => c.email)
    const cart = await readyCart(b, {}, (await variantOf(b, 'norte-flores-amnesia')).id, 1, 'so_club_norte_delivery', 'walk-in@example.com')
    expect(await ids(admin)).not.toContain('walk-in@example.com')
    expect((await b.call('POST', `/store/carts/${cart}/complete`, { headers: PK_NORTE })).status).toBe(200)
    expect(await ids(admin)).toContain('walk-in@example.com')
    expect(await ids(sur)).not.toContain('walk-in@example.com')
  })

  it('answers the setup lists: regions, sales channels, stock locations, shipping options, products', async () => {
    const regions = await b.call('GET', '/admin/regions', { headers: admin })
    expect(regions.body.regions.map((r: any) => r.id)).toEqual(['reg_club_norte', 'reg_club_sur'])
    expect(shapeDiff(regions.body, sample('store_regions'))).toEqual([])
    const channels = await b.call('GET', '/admin/sales-channels', { headers: admin })
    expect(shapeDiff(channels.body, sample('sc_list'))).toEqual([])
    expect(channels.body.sales_channels.map((c: any) => c.id)).toEqual(['sc_club_norte'])
    const locations = await b.call('GET', '/admin/stock-locations', { headers: admin })
    expect(locations.body.stock_locations.map((l: any) => l.id)).toEqual(['sloc_club_norte'])
    const options = await b.call('GET', '/admin/shipping-options', { headers: admin })
    expect(options.body.shipping_options.map((o: any) => o.id).sort()).toEqual(['so_club_norte_delivery', 'so_club_norte_pickup'])
    const me = await b.call('GET', '/admin/users/me', { headers: admin })
    expect(shapeDiff(me.body, sample('me'))).toEqual([])
    expect(me.body.user).toMatchObject({ id: 'user_admin_norte', email: 'admin@club-norte.test' })
  })

  it('creates and updates products and sets stock per location, as a club runs without demo data', async () => {
    const created = await b.call('POST', '/admin/products', {
      headers: admin,
      body: {
        title: 'Vaporizador portátil',
        status: 'published',
        options: [{ title: 'Color', values: ['Negro', 'Verde'] }],
        variants: [
          { title: 'Negro', sku: `VAPE-N-${store}`, options: { Color: 'Negro' }, prices: [{ currency_code: 'ars', amount: 90000 }] },
          { title: 'Verde', sku: `VAPE-V-${store}`, options: { Color: 'Verde' }, prices: [{ currency_code: 'ars', amount: 92000 }] },
        ],
      },
    })
    expect(created.status, created.text).toBe(200)
    expect(shapeDiff(created.body, sample('product'))).toEqual([])
    const product = created.body.product
    expect(product.sales_channels.map((c: any) => c.id)).toEqual(['sc_club_norte'])
    const itemId = product.variants[0].inventory_items[0].inventory_item_id
    const level = await b.call('POST', `/admin/inventory-items/${itemId}/location-levels`, {
      headers: admin, body: { location_id: 'sloc_club_norte', stocked_quantity: 7 }
    })
    expect(shapeDiff(level.body, sample('inv_level'))).toEqual([])
    expect(level.body.inventory_item.location_levels[0]).toMatchObject({ location_id: 'sloc_club_norte', stocked_quantity: 7, available_quantity: 7 })
    const moved = await b.call('POST', `/admin/inventory-items/${itemId}/location-levels/sloc_club_norte`, { headers: admin, body: { stocked_quantity: 9 } })
    expect(moved.body.inventory_item.stocked_quantity).toBe(9)
    const elsewhere = await b.call('POST', `/admin/inventory-items/${itemId}/location-levels/sloc_club_sur`, { headers: admin, body: { stocked_quantity: 9 } })
    expect(elsewhere.status).toBe(404)

    const storefront = await b.call('GET', `/store/products/${product.id}?region_id=reg_club_norte`, { headers: PK_NORTE })
    expect(storefront.body.product.variants[0]).toMatchObject({ inventory_quantity: 9, calculated_price: { calculated_amount: 90000 } })

    const updated = await b.call('POST', `/admin/products/${product.id}`, {
      headers: admin, body: { description: 'Batería de 2 h', metadata: { origen: 'importado' } }
    })
    expect(updated.body.product).toMatchObject({ description: 'Batería de 2 h', metadata: { origen: 'importado' } })
    const bad = await b.call('POST', '/admin/products', { headers: admin, body: { foo: 1 } })
    expect(bad.body).toEqual({ type: 'invalid_data', message: "Invalid request: Field 'title' is required; Unrecognized fields: 'foo'" })
    const dupe = await b.call('POST', '/admin/products', { headers: admin, body: { title: 'Vaporizador portátil' } })
    expect(dupe.body.type).toBe('duplicate_error')
  })

  it('issues Medusa-form tokens the service accepts, and accepts the service\'s own tokens', async () => {
    const token = admin.authorization?.slice('Bearer '.length) as string
    const [, payload] = token.split('.')
    const claims = JSON.parse(Buffer.from(payload as string, 'base64url').toString())
    expect(claims).toMatchObject({
      actor_id: 'user_admin_norte',
      actor_type: 'user',
      auth_identity_id: expect.stringMatching(/^authid_/),
      app_metadata: { role: 'admin', tenants: ['club-norte'], user_id: 'user_admin_norte' }
    })
    expect(claims.exp - claims.iat).toBe(24 * 3600)
    expect(await verifyAccessToken(TEST_SECRETS.JWT_SECRET, token)).toMatchObject({ sub: 'user_admin_norte', role: 'admin', tenants: ['club-norte'] })

    const own = await signAccessToken(TEST_SECRETS.JWT_SECRET, { sub: 'cus_bruno', role: 'member', tenants: ['club-norte'] })
    const me = await b.call('GET', '/store/customers/me', { headers: { ...PK_NORTE, authorization: `Bearer ${own}` } })
    expect(me.body.customer.email).toBe('bruno@example.com')
    const staff = await signAccessToken(TEST_SECRETS.JWT_SECRET, { sub: 'ops', role: 'admin', tenants: ['club-norte'] })
    expect((await b.call('GET', '/admin/orders', { headers: { authorization: `Bearer ${staff}` } })).status).toBe(200)
    const member = await b.call('GET', '/admin/orders', { headers: { authorization: `Bearer ${own}` } })
    expect(member.body).toEqual(sample('unauth_admin'))
  })
})
