import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'

describe.each(['redis', 'memory'] as const)('admin sends a manual notification (%s)', (store) => {
  let t: TestApp
  let admin: Record<string, string>
  const send = async (payload: Record<string, unknown>, headers = admin) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/notifications', headers, payload })
    return { status: res.statusCode, body: res.json() }
  }
  const inbox = async (role: 'member' | 'grower' | 'admin', sub: string, tenant = 'club-norte') =>
    (await t.app.inject({ url: '/api/notifications', headers: await t.auth(role, tenant, { sub }) })).json()

  beforeAll(async () => {
    t = await buildTestApp({ store })
    admin = await t.auth('admin', 'club-norte', { sub: 'user_admin_norte' })
  })
  afterAll(async () => { await t.close() })

  it('to one member: 201, source manual, defaults filled, in their inbox only', async () => {
    const res = await send({ recipientId: 'cus_bruno', title: 'Cuota', body: 'Tu cuota vence el viernes.', actionUrl: '/membership', source: 'event' })
    expect(res.status).toBe(201)
    expect(res.body.notification).toMatchObject({
      recipientId: 'cus_bruno',
      recipientRole: 'member',
      tenantId: 'club-norte',
      source: 'manual',
      domain: 'system',
      event: 'manual.message',
      severity: 'info',
      isRead: false,
      readAt: null,
      actionUrl: '/membership',
      metadata: {},
    })
    const expires = Date.parse(res.body.notification.expiresAt) - Date.parse(res.body.notification.createdAt)
    expect(expires).toBe(30 * 86_400_000)
    expect((await inbox('member', 'cus_bruno')).notifications.map((n: { id: string }) => n.id)).toEqual([res.body.notification.id])
    expect((await inbox('member', 'cus_ana')).count).toBe(0)
  })

  it('to a role: everyone of that role in the tenant gets their own copy, once, with its own read state', async () => {
    const res = await send({
      recipientRole: 'member', domain: 'memberships', event: 'membership.expiring', title: 'Renovación', body: 'Renová tu membresía.', severity: 'warning'
    })
    expect(res.status).toBe(201)
    expect(res.body.broadcast).toMatchObject({ recipientRole: 'member', tenantId: 'club-norte', source: 'manual', event: 'membership.expiring' })
    const ana = await inbox('member', 'cus_ana')
    const carla = await inbox('member', 'cus_carla_new')
    for (const box of [ana, carla]) {
      const copy = box.notifications.find((n: { event: string }) => n.event === 'membership.expiring')
      expect(copy).toMatchObject({ recipientRole: 'member', source: 'manual', severity: 'warning', isRead: false, createdAt: res.body.broadcast.createdAt })
    }
    // a second read makes no second copy
    expect((await inbox('member', 'cus_ana')).count).toBe(ana.count)
    // reading Ana's copy leaves Carla's unread
    const anaHeaders = await t.auth('member', 'club-norte', { sub: 'cus_ana' })
    const anaCopy = ana.notifications.find((n: { event: string }) => n.event === 'membership.expiring')
    await t.app.inject({ method: 'POST', url: '/api/notifications/mark-read', headers: anaHeaders, payload: { notificationId: anaCopy.externalId } })
    const carlaCount = (await t.app.inject({
      url: '/api/notifications/unread-count', headers: await t.auth('member', 'club-norte', { sub: 'cus_carla_new' })
    })).json()
    expect(carlaCount.count).toBe(1)
    // other roles and other tenants get nothing
    expect((await inbox('grower', 'user_grower_norte')).count).toBe(0)
    expect((await inbox('member', 'cus_ana', 'club-sur')).count).toBe(0)
  })

  it('a role notice reaches an unread count and mark-all of a member who never opened the list', async () => {
    await send({ recipientRole: 'grower', title: 'Reunión', body: 'Reunión de cultivo el lunes.' })
    const headers = await t.auth('grower', 'club-norte', { sub: 'user_grower_2' })
    expect((await t.app.inject({ url: '/api/notifications/unread-count', headers })).json()).toEqual({ count: 1 })
    const marked = await t.app.inject({ method: 'POST', url: '/api/notifications/mark-read', headers, payload: { all: true } })
    expect(marked.json()).toEqual({ updated: 1 })
  })

  it.each([
    ['no recipient', { title: 'x', body: 'y' }, 'recipientId'],
    ['an unknown role', { recipientRole: 'owner', title: 'x', body: 'y' }, 'recipientRole'],
    ['an empty title', { recipientId: 'cus_ana', title: ' ', body: 'y' }, 'title'],
    ['a missing body', { recipientId: 'cus_ana', title: 'x' }, 'body'],
    ['an unknown domain', { recipientId: 'cus_ana', title: 'x', body: 'y', domain: 'weather' }, 'domain'],
    ['an unknown severity', { recipientId: 'cus_ana', title: 'x', body: 'y', severity: 'fatal' }, 'severity'],
    ['a bad actionUrl', { recipientId: 'cus_ana', title: 'x', body: 'y', actionUrl: 'not a url' }, 'actionUrl'],
    // a link the member's app opens: script URLs and another host behind a path-looking value are refused
    ['a javascript: actionUrl', { recipientId: 'cus_ana', title: 'x', body: 'y', actionUrl: 'javascript:alert(1)' }, 'actionUrl'],
    ['a protocol-relative actionUrl', { recipientId: 'cus_ana', title: 'x', body: 'y', actionUrl: '//evil.example/login' }, 'actionUrl'],
    ['a backslash actionUrl', { recipientId: 'cus_ana', title: 'x', body: 'y', actionUrl: '/\\evil.example' }, 'actionUrl'],
    ['a bad expiresAt', { recipientId: 'cus_ana', title: 'x', body: 'y', expiresAt: 'tomorrow' }, 'expiresAt'],
    ['a past expiresAt', { recipientId: 'cus_ana', title: 'x', body: 'y', expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt'],
    ['a metadata that is not an object', { recipientId: 'cus_ana', title: 'x', body: 'y', metadata: 'nope' }, 'metadata'],
  ])('rejects %s with 400 keyed by field', async (_name, payload, field) => {
    const res = await send(payload)
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe('VALIDATION_ERROR')
    expect(res.body.error.details.errors).toHaveProperty(field)
  })

  it('is for admins only', async () => {
    for (const role of ['member', 'grower'] as const) {
      const res = await send({ recipientId: 'cus_ana', title: 'x', body: 'y' }, await t.auth(role))
      expect(res.status).toBe(403)
      expect(res.body.error.code).toBe('INSUFFICIENT_PERMISSIONS')
    }
  })
})
