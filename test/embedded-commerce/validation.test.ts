import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PK_NORTE, startWithLogins, type Backend } from './harness.ts'
import { sample } from './shape.ts'

// The routes' zod schemas answer in Medusa's words, and only after the caller was let in: who may call is
// settled first (401), then what was sent (400), then what it refers to (404).
describe('commerce route schemas', () => {
  let b: Backend
  let ana: Record<string, string>
  let admin: Record<string, string>
  beforeAll(async () => { ({ b, ana, admin } = await startWithLogins('memory')) })
  afterAll(async () => { await b.close() })

  it('refuses a caller without the right token before looking at the body', async () => {
    const invite = { email: 'not-an-email' }
    expect((await b.call('POST', '/admin/invites', { body: invite })).body).toEqual(sample('unauth_admin'))
    expect((await b.call('POST', '/admin/orders/order_nope/fulfillments', { body: { items: [] } })).body).toEqual(sample('unauth_admin'))
    expect((await b.call('POST', '/store/customers/me', { headers: PK_NORTE, body: { first_name: 1 } })).body).toEqual(sample('unauth_admin'))
    expect((await b.call('POST', '/store/customers', { headers: PK_NORTE, body: {} })).body).toEqual(sample('unauth_admin'))

    const refused = await b.call('POST', '/admin/invites', { headers: admin, body: invite })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ type: 'invalid_data', message: expect.stringMatching(/^Invalid request: Invalid value for field 'email'/) })
    const me = await b.call('POST', '/store/customers/me', { headers: { ...PK_NORTE, ...ana }, body: { first_name: 1 } })
    expect(me.body).toEqual({ type: 'invalid_data', message: "Invalid request: Expected type: 'string' for field 'first_name', got: '1'" })
  })

  it('checks params, query and body alike', async () => {
    const query = await b.call('GET', '/admin/orders?offset=-1', { headers: admin })
    expect(query.status).toBe(400)
    expect(query.body).toMatchObject({ type: 'invalid_data', message: expect.stringContaining("field 'offset'") })
    const body = await b.call('POST', '/admin/orders/order_nope/fulfillments', { headers: admin, body: { items: [{ id: 'x' }] } })
    expect(body.body).toEqual({ type: 'invalid_data', message: "Invalid request: Field 'items.0.quantity' is required" })
    const valid = await b.call('POST', '/admin/orders/order_nope/fulfillments', { headers: admin, body: { items: [{ id: 'x', quantity: 1 }] } })
    expect(valid.body).toEqual(sample('order_404'))
  })

  it('reads a POST without a body as {}, as Express does', async () => {
    const res = await fetch(`${b.url}/store/carts`, { method: 'POST', headers: PK_NORTE })
    expect(res.status).toBe(200)
    expect((await res.json()).cart.region_id).toBe('reg_club_norte')
  })
})
