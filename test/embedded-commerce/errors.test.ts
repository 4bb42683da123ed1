import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PK_NORTE, startWithLogins, type Backend } from './harness.ts'
import { sample } from './shape.ts'
import { readyCart, variantOf } from './flow.ts'

// Every failure in the body and status a real Medusa 2.21 answers (samples/*.json), never a 500.
describe.each(['redis', 'memory'] as const)('commerce errors (%s)', (store) => {
  let b: Backend
  let ana: Record<string, string>
  let admin: Record<string, string>
  beforeAll(async () => { ({ b, ana, admin } = await startWithLogins(store)) })
  afterAll(async () => { await b.close() })

  const emptyCart = async (): Promise<string> =>
    (await b.call('POST', '/store/carts', { headers: PK_NORTE, body: { region_id: 'reg_club_norte' } })).body.cart.id

  it.each([
    ['store_nopk', 400, () => b.call('GET', '/store/products')],
    ['store_badpk', 400, () => b.call('GET', '/store/products', { headers: { 'x-publishable-api-key': 'pk_nope' } })],
    ['cart_404', 404, () => b.call('GET', '/store/carts/cart_nope', { headers: PK_NORTE })],
    ['order_404', 404, () => b.call('GET', '/admin/orders/order_nope', { headers: admin })],
    ['auth_bad', 401, () => b.call('POST', '/auth/customer/emailpass', { body: { email: 'ana@example.com', password: 'wrong' } })],
    ['auth_bad', 401, () => b.call('POST', '/auth/user/emailpass', { body: { email: 'nobody@example.com', password: 'demo-password' } })],
    ['unauth_admin', 401, () => b.call('GET', '/admin/orders')],
    ['unauth_admin', 401, () => b.call('GET', '/admin/orders', { headers: { authorization: 'Bearer not.a.jwt' } })],
    [
      'li_bad', 400,
      async () => b.call('POST', `/store/carts/${await emptyCart()}/line-items`, { headers: PK_NORTE, body: { variant_id: 'variant_nope', quantity: 1 } })
    ],
    [
      'ship_bad', 400,
      async () => b.call('POST', `/store/carts/${await emptyCart()}/shipping-methods`, { headers: PK_NORTE, body: { option_id: 'so_club_sur_pickup' } })
    ],
    ['complete_nopay', 400, async () => b.call('POST', `/store/carts/${await emptyCart()}/complete`, { headers: PK_NORTE })],
  ])('%s', async (name, status, run) => {
    const res = await run()
    expect(res.status).toBe(status)
    expect(res.body).toEqual(sample(name))
  })

  it('li_toomany: more than is available', async () => {
    const variant = await variantOf(b, 'norte-aceite-cbd')
    const res = await b.call('POST', `/store/carts/${await emptyCart()}/line-items`, { headers: PK_NORTE, body: { variant_id: variant.id, quantity: 51 } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(sample('li_toomany'))
  })

  it('validation failures are 400 invalid_data in Medusa\'s words', async () => {
    const res = await b.call('POST', '/store/carts', { headers: PK_NORTE, body: { region_id: 123 } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ type: 'invalid_data', message: "Invalid request: Expected type: 'string' for field 'region_id', got: '123'" })
    const malformed = await fetch(`${b.url}/store/carts`, {
      method: 'POST', headers: { ...PK_NORTE, 'content-type': 'application/json' }, body: '{"region_id":'
    })
    expect(malformed.status).toBe(400)
    expect((await malformed.json()).type).toBe('invalid_data')
    const limit = await b.call('GET', '/store/products?limit=-1', { headers: PK_NORTE })
    expect(limit.status).toBe(400)
    expect(limit.body.type).toBe('invalid_data')
  })

  it('an unknown route is Express\'s HTML 404', async () => {
    const res = await b.call('GET', '/store/nowhere')
    expect(res.status).toBe(404)
    expect(res.text).toContain('<pre>Cannot GET /store/nowhere</pre>')
  })

  it('a customer route without a customer token is 401 Unauthorized', async () => {
    expect((await b.call('GET', '/store/customers/me', { headers: PK_NORTE })).body).toEqual(sample('unauth_admin'))
    const staff = await b.call('GET', '/store/orders', { headers: { ...PK_NORTE, ...admin } })
    expect(staff.status).toBe(401)
  })

  it('a payment provider the region does not offer is refused', async () => {
    const cart = await emptyCart()
    const pc = await b.call('POST', '/store/payment-collections', { headers: PK_NORTE, body: { cart_id: cart } })
    const res = await b.call('POST', `/store/payment-collections/${pc.body.payment_collection.id}/payment-sessions`, {
      headers: PK_NORTE, body: { provider_id: 'pp_stripe' }
    })
    expect(res.status).toBe(400)
    expect(res.body.type).toBe('invalid_data')
  })

  it('c2_complete: the loser of the last unit gets not_allowed with the item and location', async () => {
    const variant = await variantOf(b, 'norte-semillas-gorilla')
    await b.call('POST', `/admin/inventory-items/${variant.inventoryItemId}/location-levels/sloc_club_norte`, { headers: admin, body: { stocked_quantity: 1 } })
    const first = await readyCart(b, ana, variant.id, 1)
    const second = await readyCart(b, ana, variant.id, 1)
    expect((await b.call('POST', `/store/carts/${first}/complete`, { headers: PK_NORTE })).status).toBe(200)
    const lost = await b.call('POST', `/store/carts/${second}/complete`, { headers: PK_NORTE })
    expect(lost.status).toBe(400)
    expect(lost.body).toEqual({
      code: 'insufficient_inventory', type: 'not_allowed', message: `Not enough stock available for item ${variant.inventoryItemId} at location sloc_club_norte`
    })
    expect(Object.keys(sample('c2_complete') as object).every((k) => k in lost.body)).toBe(true)
    const lowered = await b.call('POST', `/admin/inventory-items/${variant.inventoryItemId}/location-levels/sloc_club_norte`, {
      headers: admin, body: { stocked_quantity: 0 }
    })
    expect(lowered.status).toBe(400)
  })
})
