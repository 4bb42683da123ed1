import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AppError } from '../../src/errors.ts'
import type { Notification } from '../../src/notifications/model.ts'
import { notifyMember, type OrderEvent } from '../../src/orders/notify.ts'
import { demoTenants } from '../../src/tenants/demo.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { notice } from './fixtures.ts'

// The orders domain's notify step (src/orders/notify.ts) against the real notifier, event by event; the path
// through the orders API itself is in order-events-e2e.test.ts.
describe.each(['redis', 'memory'] as const)('order events become member notifications (%s)', (store) => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store }) })
  afterAll(async () => { await t.close() })

  it.each(['order.placed', 'order.paymentConfirmed', 'order.shipped', 'order.cancelled'] as OrderEvent[])('%s', async (event) => {
    const tenant = demoTenants[0]!
    const order = { id: `order_${event.replace('.', '_')}`, displayId: '17', customerId: 'cus_ana' }
    await notifyMember(t.app.notifier, t.app.log, tenant, order, event)
    const listed = (await t.app.inject({
      url: '/api/notifications?domain=orders&source=event', headers: await t.auth('member', 'club-norte', { sub: 'cus_ana' })
    })).json()
    const n = (listed.notifications as Notification[]).find((x) => x.resourceId === order.id)
    expect(n).toMatchObject({
      event,
      domain: 'orders',
      source: 'event',
      recipientId: 'cus_ana',
      recipientRole: 'member',
      resourceType: 'order',
      actionUrl: `/orders/${order.id}`,
      isRead: false,
    })
    expect(n?.body).toContain('#17')
  })

  it('refuses a malformed notice with a validation error naming the field', async () => {
    const bad = notice('cus_ana', { domain: 'weather' as never, title: '' })
    const err = await t.app.notifier.notify(bad).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(AppError)
    expect((err as AppError).code).toBe('VALIDATION_ERROR')
    expect(Object.keys((err as AppError).details?.errors as object).sort()).toEqual(['domain', 'title'])
  })

  it('a caller-chosen externalId makes a retried notify a no-op', async () => {
    const headers = await t.auth('member', 'club-norte', { sub: 'cus_retry' })
    await t.app.notifier.notify(notice('cus_retry', { externalId: 'order_1:shipped' }))
    await t.app.notifier.notify(notice('cus_retry', { externalId: 'order_1:shipped' }))
    expect((await t.app.inject({ url: '/api/notifications/unread-count', headers })).json()).toEqual({ count: 1 })
  })
})
