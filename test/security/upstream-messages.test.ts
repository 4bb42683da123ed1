import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import { startFakeUpstream, type FakeUpstream } from '../orders/fake-upstream.ts'
import { captureLog } from './support.ts'

// Review item 5: whatever a commerce backend says when it refuses, our caller reads our own catalogue message.
// The upstream's words (here an SQL error quoting a password) stay in the log, at debug.

const LEAK = 'SQL error near "users" WHERE password=hunter2-upstream host=db.internal'
const ORDER = 'order_01M7ZB9M562VXDN18E668Y98FY'
const CART_ADD = 'POST /store/carts/cart_1/line-items'
const CART_COMPLETE = 'POST /store/carts/cart_1/complete'
const routes = [`GET /admin/orders/${ORDER}`, CART_ADD, CART_COMPLETE, 'POST /auth/customer/emailpass', 'POST /store/carts']

describe('upstream refusals are answered in our words', () => {
  const log = captureLog()
  let fake: FakeUpstream
  let t: TestApp
  beforeAll(async () => {
    fake = await startFakeUpstream()
    t = await buildTestApp({ env: { COMMERCE_URL: fake.url }, logTo: log.stream })
  })
  afterAll(async () => {
    await t.close()
    await fake.close()
  })
  afterEach(() => { for (const r of routes) fake.fault(r, undefined) })

  const calls = async () => {
    const admin = await t.auth('admin', 'club-norte', { sub: 'user_admin_norte', name: 'Admin Norte' })
    const member = await t.auth('member', 'club-norte', { sub: 'cus_ana', email: 'ana@example.com' })
    return [
      await t.app.inject({ url: `/api/orders/${ORDER}`, headers: admin }),
      await t.app.inject({ method: 'POST', url: '/store/carts/cart_1/line-items', headers: member, payload: { variantId: 'variant_1', quantity: 1 } }),
      await t.app.inject({ method: 'POST', url: '/store/carts/cart_1/complete', headers: member }),
      await t.app.inject({ method: 'POST', url: '/auth/customer/emailpass', payload: { email: 'ana@example.com', password: 'demo-password' } }),
    ]
  }

  it.each([400, 403, 404, 409, 410, 422, 429, 500])('an upstream %i with a chatty message', async (status) => {
    const body = JSON.stringify({ type: 'invalid_data', code: status === 409 ? 'insufficient_inventory' : 'db_error', message: LEAK })
    for (const r of routes) fake.fault(r, { status, body })
    for (const res of await calls()) {
      expect(res.statusCode, res.body).not.toBe(500)
      expect(res.body).not.toContain('hunter2')
      expect(res.body).not.toMatch(/SQL|db\.internal/)
    }
  })

  it('a cart the backend could not complete, with its own error text', async () => {
    fake.fault(CART_COMPLETE, {
      status: 200, body: JSON.stringify({ type: 'cart', cart: null, error: { message: LEAK, type: 'payment_authorization_error' } })
    })
    const [, , complete] = await calls()
    expect(complete?.statusCode).toBe(409)
    expect(complete?.json().error).toEqual({ code: 'CONFLICT', message: 'The cart could not be completed' })
  })

  it('the upstream text is in the log at debug, for the operator', () => {
    const lines = log.text().split('\n').filter((l) => l.includes('hunter2-upstream'))
    expect(lines.length).toBeGreaterThan(0)
    for (const line of lines) expect(JSON.parse(line).level).toBe(20)
  })
})
