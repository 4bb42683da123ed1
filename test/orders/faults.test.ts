import { writeFileSync, mkdtempSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.ts'

// Upstream faults, from a loopback stand-in: each maps to the spec's status and code, never a 500 or a hang.

const ORDER = 'order_01M7ZB9M562VXDN18E668Y98FY'
const ORDER_ROUTE = `GET /admin/orders/${ORDER}`

async function closedPort (): Promise<number> {
  const srv = createServer()
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
  const { port } = srv.address() as { port: number }
  await new Promise<void>((resolve) => srv.close(() => resolve()))
  return port
}

describe('upstream faults', () => {
  let fake: FakeUpstream
  let t: TestApp
  let admin: Record<string, string>

  beforeAll(async () => {
    fake = await startFakeUpstream()
    t = await buildTestApp({ env: { COMMERCE_URL: fake.url, COMMERCE_TIMEOUT_MS: '300' } })
    admin = await t.auth('admin', 'club-norte', { sub: 'user_admin_norte', name: 'Admin Norte' })
  })
  afterAll(async () => {
    await t.close()
    await fake.close()
  })
  afterEach(() => {
    for (const r of [
      ORDER_ROUTE, 'POST /store/carts/cart_1/line-items', `POST /admin/payments/${'pay_01M7ZB9M9PXDA2CMB3W0VXN0NZ'}/capture`, 'POST /store/carts'
    ]) fake.fault(r, undefined)
  })

  const getOrder = () => t.app.inject({ url: `/api/orders/${ORDER}`, headers: admin })

  it('reads and maps an order when the upstream is well', async () => {
    const res = await getOrder()
    expect(res.statusCode).toBe(200)
    expect(res.json().order).toMatchObject({ id: ORDER, displayId: '1', paymentStatus: 'awaiting' })
  })

  it.each([500, 503])('upstream %i is 502 BACKEND_ERROR', async (status) => {
    fake.fault(ORDER_ROUTE, { status })
    const res = await getOrder()
    expect(res.statusCode).toBe(502)
    expect(res.json().error.code).toBe('BACKEND_ERROR')
  })

  it('upstream 429 stays 429 SERVICE_UNAVAILABLE with its Retry-After', async () => {
    fake.fault(ORDER_ROUTE, { status: 429, headers: { 'retry-after': '7' } })
    const res = await getOrder()
    expect(res.statusCode).toBe(429)
    expect(res.json().error.code).toBe('SERVICE_UNAVAILABLE')
    expect(res.headers['retry-after']).toBe('7')
  })

  it('malformed JSON from upstream is 502', async () => {
    fake.fault(ORDER_ROUTE, { status: 200, body: '{"order": {"id": ' })
    const res = await getOrder()
    expect(res.statusCode).toBe(502)
    expect(res.json().error.code).toBe('BACKEND_ERROR')
  })

  it('JSON of the wrong shape from upstream is 502', async () => {
    fake.fault(ORDER_ROUTE, { status: 200, body: '{"order": {"id": 5}}' })
    expect((await getOrder()).statusCode).toBe(502)
  })

  it('an upstream that does not answer in time is 504 SERVICE_UNAVAILABLE, not a hang', async () => {
    fake.fault(ORDER_ROUTE, 'hang')
    const started = Date.now()
    const res = await getOrder()
    expect(res.statusCode).toBe(504)
    expect(res.json().error.code).toBe('SERVICE_UNAVAILABLE')
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it('upstream 404 is 404 NOT_FOUND in our words, never the upstream\'s', async () => {
    fake.fault(ORDER_ROUTE, { status: 404, body: JSON.stringify({ type: 'not_found', message: `Order id not found: ${ORDER}` }) })
    const res = await getOrder()
    expect(res.statusCode).toBe(404)
    expect(res.json().error).toEqual({ code: 'NOT_FOUND', message: 'Not found in the commerce backend' })
  })

  it('out of stock is 409 CONFLICT, other rejections 422 VALIDATION_ERROR', async () => {
    const member = await t.auth('member', 'club-norte', { sub: 'cus_ana', email: 'ana@example.com' })
    const add = () =>
      t.app.inject({ method: 'POST', url: '/store/carts/cart_1/line-items', headers: member, payload: { variantId: 'variant_1', quantity: 500 } })
    fake.fault('POST /store/carts/cart_1/line-items', {
      status: 400, body: JSON.stringify({ code: 'insufficient_inventory', type: 'not_allowed', message: 'Some variant does not have the required inventory' })
    })
    let res = await add()
    expect(res.statusCode).toBe(409)
    expect(res.json().error).toEqual({ code: 'CONFLICT', message: 'Not enough stock for one of the items' })
    fake.fault('POST /store/carts/cart_1/line-items', {
      status: 400, body: JSON.stringify({ type: 'invalid_data', message: 'Variants variant_1 do not exist' })
    })
    res = await add()
    expect(res.statusCode).toBe(422)
    expect(res.json().error.code).toBe('VALIDATION_ERROR')
  })

  it('an expired admin token is renewed once, and neither it nor the password is shown', async () => {
    const logins = () => fake.calls.filter((c) => c.path === '/auth/user/emailpass').length
    const before = logins()
    fake.fault(ORDER_ROUTE, { status: 401, body: '{"message":"Unauthorized"}' })
    const res = await getOrder()
    expect(res.statusCode).toBe(502)
    expect(logins()).toBe(before + 1)
    expect(res.body).not.toMatch(/demo-password|Bearer|x\.ey/)
    fake.fault(ORDER_ROUTE, undefined)
    expect((await getOrder()).statusCode).toBe(200)
  })

  it('create-and-process failing part way answers the mapped error and leaves the failure in the order\'s log; a retry replays it', async () => {
    fake.fault('POST /admin/payments/pay_01M7ZB9M9PXDA2CMB3W0VXN0NZ/capture', { status: 500 })
    const payload = {
      customer: { email: 'ana@example.com' }, items: [{ variantId: 'variant_1', quantity: 1 }], shippingMethod: 'pickup', paymentMethod: 'cash'
    }
    const call = () => t.app.inject({ method: 'POST', url: '/api/orders/create-and-process', headers: { ...admin, 'idempotency-key': 'fail-once' }, payload })
    const res = await call()
    expect(res.statusCode).toBe(502)
    expect(res.json().error).toMatchObject({ code: 'BACKEND_ERROR', details: { step: 'capturing_payment', orderId: ORDER } })
    const log = (fake.metadata()?.activity_logs ?? []) as Array<{ description: string, status: string, note?: string }>
    expect(log.map((e) => [e.description, e.status])).toEqual([['orders:activity.created', 'success'], ['orders:activity.note', 'error']])
    expect(log[1]?.note).toMatch(/capturing_payment failed/)
    const carts = fake.calls.filter((c) => c.method === 'POST' && c.path === '/store/carts').length
    const again = await call()
    expect(again.statusCode).toBe(502)
    expect(again.json()).toEqual(res.json())
    expect(fake.calls.filter((c) => c.method === 'POST' && c.path === '/store/carts').length).toBe(carts)
  })

  it('a failure before the order exists frees the Idempotency-Key for a retry', async () => {
    fake.fault('POST /store/carts', { status: 503 })
    const payload = {
      customer: { email: 'ana@example.com' }, items: [{ variantId: 'variant_1', quantity: 1 }], shippingMethod: 'pickup', paymentMethod: 'cash'
    }
    const call = () => t.app.inject({ method: 'POST', url: '/api/orders/create-and-process', headers: { ...admin, 'idempotency-key': 'early-fail' }, payload })
    expect((await call()).json().error.details).toMatchObject({ step: 'creating_cart' })
    const carts = fake.calls.filter((c) => c.method === 'POST' && c.path === '/store/carts').length
    await call()
    expect(fake.calls.filter((c) => c.method === 'POST' && c.path === '/store/carts').length).toBe(carts + 1)
  })
})

describe('unreachable upstream', () => {
  it('connection refused is 502 BACKEND_ERROR', async () => {
    const t = await buildTestApp({ store: 'memory', env: { COMMERCE_URL: `http://127.0.0.1:${await closedPort()}` } })
    try {
      const res = await t.app.inject({ url: `/api/orders/${ORDER}`, headers: await t.auth('admin') })
      expect(res.statusCode).toBe(502)
      expect(res.json().error.code).toBe('BACKEND_ERROR')
    } finally {
      await t.close()
    }
  })
})

describe('COMMERCE_TENANTS_FILE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'club-tenants-'))
  const settings = (baseUrl: string) => ({
    baseUrl,
    publishableKey: 'pk_x',
    regionId: 'reg_x',
    salesChannelId: 'sc_club_norte',
    stockLocationId: 'sloc_x',
    adminEmail: 'ops@x.test',
    adminPassword: 'demo-password'
  })

  it('points a club at the backend the file names, with the file\'s admin login', async () => {
    const fake = await startFakeUpstream()
    const file = join(dir, 'good.json')
    writeFileSync(file, JSON.stringify({ 'club-norte': settings(fake.url) }))
    const t = await buildTestApp({ store: 'memory', env: { COMMERCE_TENANTS_FILE: file, COMMERCE_URL: 'http://127.0.0.1:9' } })
    try {
      const res = await t.app.inject({ url: `/api/orders/${ORDER}`, headers: await t.auth('admin') })
      expect(res.statusCode).toBe(200)
      expect(fake.calls.find((c) => c.path === '/auth/user/emailpass')?.body).toEqual({ email: 'ops@x.test', password: 'demo-password' })
    } finally {
      await t.close()
      await fake.close()
    }
  })

  it('refuses to start on a bad file, naming the tenant and field but not the values', async () => {
    const file = join(dir, 'bad.json')
    writeFileSync(file, JSON.stringify({ 'club-norte': { ...settings('not a url'), adminPassword: 'file-secret' } }))
    const err = await buildTestApp({ store: 'memory', env: { COMMERCE_TENANTS_FILE: file } }).then(() => undefined, (e: Error) => e)
    expect(err?.message).toMatch(/tenant "club-norte", field "baseUrl"/)
    expect(err?.message).not.toContain('file-secret')
  })
})
