import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Notification } from '../../src/notifications/model.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { demoLogin, placeOrder as placeOrderOf } from '../orders/place-order.ts'

// End to end: the orders API over the embedded commerce backend notifies the member of each order change.
describe.each(['redis', 'memory'] as const)('order changes notify the member, through the orders API (%s)', (store) => {
  let t: TestApp
  let admin: Record<string, string>
  let ana: Record<string, string>
  let bruno: Record<string, string>

  const login = async (actorType: 'customer' | 'user', email: string) => await demoLogin(t, actorType, email)
  const placeOrder = async (headers: Record<string, string>): Promise<string> => (await placeOrderOf(t, headers)).id
  const orderNotices = async (headers: Record<string, string>, orderId: string): Promise<Notification[]> =>
    ((await t.app.inject({ url: '/api/notifications?domain=orders&limit=100', headers })).json().notifications as Notification[])
      .filter((n) => n.resourceId === orderId)
  const adminStep = async (orderId: string, step: string, payload?: object) => {
    const res = await t.app.inject({ method: 'POST', url: `/api/orders/${orderId}/${step}`, headers: admin, ...(payload ? { payload } : {}) })
    expect(res.statusCode).toBe(200)
    return res.json()
  }

  beforeAll(async () => {
    t = await buildTestApp({ store })
    admin = await login('user', 'admin@club-norte.test')
    ana = await login('customer', 'ana@example.com')
    bruno = await login('customer', 'bruno@example.com')
  })
  afterAll(async () => { await t.close() })

  it('placed, payment confirmed, shipped: one notice each, for the member only, newest first', async () => {
    const orderId = await placeOrder(ana)
    await adminStep(orderId, 'capture')
    const { fulfillmentId } = await adminStep(orderId, 'fulfill', {})
    await adminStep(orderId, 'ship', { fulfillmentId })
    const notices = await orderNotices(ana, orderId)
    expect(notices.map((n) => n.event)).toEqual(['order.shipped', 'order.paymentConfirmed', 'order.placed'])
    for (const n of notices) {
      expect(n).toMatchObject({
        domain: 'orders', source: 'event', recipientRole: 'member', resourceType: 'order', actionUrl: `/orders/${orderId}`, isRead: false
      })
    }
    expect(await orderNotices(bruno, orderId)).toEqual([])
  })

  it('cancelled', async () => {
    const orderId = await placeOrder(ana)
    await adminStep(orderId, 'cancel')
    const notices = await orderNotices(ana, orderId)
    expect(notices.map((n) => n.event)).toEqual(['order.cancelled', 'order.placed'])
    expect(notices[0]?.severity).toBe('warning')
  })
})
