import { request as httpRequest } from 'node:http'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.ts'

// The one-call routes' shape, stream framing and client disconnects, on a loopback backend (one order each test).

const ORDER = 'order_01M7ZB9M562VXDN18E668Y98FY'
const body = {
  customer: { id: 'cus_ana', email: 'ana@example.com', firstName: 'Ana', lastName: 'Pereyra' },
  items: [{ variantId: 'variant_1', quantity: 2 }],
  shippingMethod: 'pickup',
  paymentMethod: 'cash',
  notes: 'Retira el viernes'
}

function events (text: string): any[] {
  expect(text.endsWith('\n\n')).toBe(true)
  return text.trim().split('\n\n').map((chunk) => {
    expect(chunk.startsWith('data: ')).toBe(true)
    return JSON.parse(chunk.slice('data: '.length))
  })
}

describe('create-and-process over a loopback backend', () => {
  let fake: FakeUpstream
  let t: TestApp
  let admin: Record<string, string>
  beforeEach(async () => {
    fake = await startFakeUpstream()
    t = await buildTestApp({ store: 'memory', env: { COMMERCE_URL: fake.url } })
    admin = await t.auth('admin', 'club-norte', { sub: 'user_admin_norte', name: 'Admin Norte' })
  })
  afterEach(async () => {
    await t.close()
    await fake.close()
  })

  it('runs the nine steps and answers the order with its timeline and activity log', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/orders/create-and-process', headers: admin, payload: body })
    expect(res.statusCode).toBe(200)
    const { order, timeline } = res.json()
    expect(order).toMatchObject({ id: ORDER, status: 'completed', paymentStatus: 'captured', fulfillmentStatus: 'shipped' })
    expect(timeline.map((e: any) => e.action)).toEqual(['ORDER_CREATED', 'PAYMENT_CAPTURED', 'FULFILLMENT_CREATED', 'ORDER_SHIPPED'])
    expect(order.metadata.activityLogs.map((e: any) => e.description)).toEqual([
      'orders:activity.created', 'orders:activity.note', 'orders:activity.paymentConfirmed', 'orders:activity.fulfilled', 'orders:activity.shipped',
      'orders:activity.completed',
    ])
    expect(order.metadata.activityLogs[0].author).toEqual({ id: 'user_admin_norte', firstName: 'Admin', lastName: 'Norte' })
    const paths = fake.calls.map((c) => `${c.method} ${c.path.split('?')[0]}`)
    const order_ = (p: string) => paths.indexOf(p)
    expect(order_('POST /store/carts')).toBeLessThan(order_('POST /store/carts/cart_1/line-items'))
    // The names go on the cart's shipping address, with the country the new cart carries (the address is replaced whole).
    expect(order_('POST /store/carts')).toBeLessThan(order_('POST /store/carts/cart_1'))
    expect(fake.calls.find((c) => c.method === 'POST' && c.path.split('?')[0] === '/store/carts/cart_1')?.body)
      .toEqual({ shipping_address: { first_name: 'Ana', last_name: 'Pereyra', country_code: 'ar' } })
    expect(order_('POST /store/carts/cart_1/complete')).toBeLessThan(order_(`POST /admin/orders/${ORDER}/complete`))
    expect(fake.calls.find((c) => c.path === `/admin/orders/${ORDER}/fulfillments`)?.body.location_id).toBe('sloc_club_norte')
  })

  it('streams one data event per step with the spec\'s progress, ending with success', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/orders/create-and-process-stream', headers: admin, payload: body })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/)
    const list = events(res.body)
    expect(list.map((e) => [e.step, e.progress])).toEqual([
      ['creating_cart', 10], ['adding_items', 25], ['configuring_shipping', 40], ['initializing_payment', 55], ['completing_cart', 65],
      ['capturing_payment', 75], ['creating_fulfillment', 85], ['shipping_order', 95], ['completed', 100],
    ])
    expect(list.at(-1)).toMatchObject({ success: true, order: { id: ORDER, displayId: '1', status: 'completed' } })
    expect(list.slice(0, -1).every((e) => e.success === undefined && typeof e.message === 'string')).toBe(true)
  })

  it('a bad body is 400 JSON before any event; a failing step is a final event with success false', async () => {
    const bad = await t.app.inject({
      method: 'POST', url: '/api/orders/create-and-process-stream', headers: admin, payload: { ...body, paymentMethod: 'bitcoin' }
    })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().error.details.errors).toHaveProperty('paymentMethod')
    fake.fault(`POST /admin/orders/${ORDER}/fulfillments`, {
      status: 400, body: JSON.stringify({ type: 'invalid_data', message: 'Quantity to fulfill exceeds the reserved quantity' })
    })
    const res = await t.app.inject({ method: 'POST', url: '/api/orders/create-and-process-stream', headers: admin, payload: body })
    const last = events(res.body).at(-1)
    expect(last).toEqual({
      step: 'creating_fulfillment',
      message: 'The commerce backend rejected the request',
      progress: 85,
      success: false,
      error: 'The commerce backend rejected the request'
    })
  })

  it('only admins may call it', async () => {
    for (const role of ['member', 'grower'] as const) {
      const res = await t.app.inject({ method: 'POST', url: '/api/orders/create-and-process', headers: await t.auth(role), payload: body })
      expect(res.statusCode).toBe(403)
      expect(res.json().error.code).toBe('INSUFFICIENT_PERMISSIONS')
    }
    expect(fake.calls.filter((c) => c.path === '/store/carts')).toHaveLength(0)
  })

  it('a client that hangs up mid-stream does not leave a half-made order: the flow finishes server-side', async () => {
    fake.fault('POST /store/carts/cart_1/complete', { delayMs: 300 })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = t.app.server.address() as { port: number }
    const firstEvent = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, method: 'POST', path: '/api/orders/create-and-process-stream', headers: { ...admin, 'content-type': 'application/json' } },
        (res) => {
          res.once('data', (chunk: Buffer) => {
            req.destroy()
            resolve(chunk.toString())
          })
        }
      )
      req.on('error', reject)
      req.end(JSON.stringify(body))
    })
    expect(firstEvent).toContain('creating_cart')
    expect(fake.calls.some((c) => c.path === `/admin/orders/${ORDER}/complete`)).toBe(false)
    const logged = () => ((fake.metadata()?.activity_logs ?? []) as Array<{ description: string }>).map((e) => e.description)
    const deadline = Date.now() + 5000
    while (Date.now() < deadline && !logged().includes('orders:activity.completed')) await new Promise((resolve) => setTimeout(resolve, 25))
    expect(logged()).toContain('orders:activity.completed')
    expect(fake.calls.some((c) => c.path === `/admin/orders/${ORDER}/complete`)).toBe(true)
  })
})
