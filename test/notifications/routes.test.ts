import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import type { Notification } from '../../src/notifications/model.ts'
import { NOTIFICATION_DOMAINS, NOTIFICATION_SOURCES, type NotifyInput } from '../../src/notifications/types.ts'
import { notice } from './fixtures.ts'

const ANA = 'cus_ana'
const BRUNO = 'cus_bruno'

describe.each(['redis', 'memory'] as const)('notification routes (%s)', (store) => {
  let t: TestApp
  let ana: Record<string, string>
  let created: Notification[]

  const list = async (query: string, headers = ana) => {
    const res = await t.app.inject({ url: `/api/notifications${query}`, headers })
    return { status: res.statusCode, body: res.json() }
  }
  const create = async (input: NotifyInput): Promise<Notification> => {
    const n = await t.app.notifications.create(input)
    if (!n) throw new Error('not created')
    return n
  }

  beforeAll(async () => {
    t = await buildTestApp({ store })
    ana = await t.auth('member', 'club-norte', { sub: ANA })
    // 12 notices for Ana in club-norte over every combination of 3 domains x 2 sources x read/unread
    created = []
    const domains = ['orders', 'appointments', 'system'] as const
    const sources = ['event', 'reminder'] as const
    let i = 0
    for (const domain of domains) {
      for (const source of sources) {
        for (let k = 0; k < 2; k++) created.push(await create(notice(ANA, { domain, source, title: `n${i++}` })))
      }
    }
    // read the odd ones
    for (const n of created.filter((_, idx) => idx % 2 === 1)) {
      const res = await t.app.inject({ method: 'POST', url: '/api/notifications/mark-read', headers: ana, payload: { notificationId: n.externalId } })
      expect(res.statusCode).toBe(200)
    }
    // others' records that must never show up for Ana in club-norte
    await create(notice(BRUNO))
    await create(notice(ANA, { tenantId: 'club-sur' }))
  })
  afterAll(async () => { await t.close() })

  it('lists only the caller\'s records in the request tenant, newest first, with the spec fields', async () => {
    const { status, body } = await list('')
    expect(status).toBe(200)
    expect(body.count).toBe(12)
    expect(body.pagination).toEqual({ page: 1, limit: 20, total: 12 })
    expect(body.notifications.map((n: Notification) => n.title)).toEqual(created.map((n) => n.title).reverse())
    for (const n of body.notifications) {
      expect(n).toMatchObject({ tenantId: 'club-norte', recipientId: ANA, recipientRole: 'member' })
      expect(Object.keys(n).sort()).toEqual([
        'body', 'createdAt', 'domain', 'event', 'expiresAt', 'externalId', 'id', 'isRead', 'metadata', 'readAt', 'recipientId', 'recipientRole', 'severity',
        'source', 'tenantId', 'title', 'updatedAt'
      ])
      expect(n.isRead).toBe(n.readAt !== null)
    }
  })

  const readStates = [undefined, true, false] as const
  const domainsToTry = [undefined, 'orders', 'appointments', 'crops'] as const
  const sourcesToTry = [undefined, 'event', 'reminder', 'manual'] as const
  const combos = domainsToTry.flatMap((domain) => sourcesToTry.flatMap((source) => readStates.map((isRead) => ({ domain, source, isRead }))))

  it.each(combos)('filters domain=$domain source=$source isRead=$isRead', async (f) => {
    const qs = new URLSearchParams()
    if (f.domain) qs.set('domain', f.domain)
    if (f.source) qs.set('source', f.source)
    if (f.isRead !== undefined) qs.set('isRead', String(f.isRead))
    const { status, body } = await list(`?${qs}`)
    expect(status).toBe(200)
    const expected = created.filter((n, idx) =>
      (!f.domain || n.domain === f.domain) && (!f.source || n.source === f.source) && (f.isRead === undefined || (idx % 2 === 1) === f.isRead))
    expect(body.count).toBe(expected.length)
    expect(body.notifications.map((n: Notification) => n.id)).toEqual(expected.map((n) => n.id).reverse())
  })

  it('pages: a middle page, the last partial page, past the end, limit=0', async () => {
    const all = created.map((n) => n.id).reverse()
    const page2 = await list('?page=2&limit=5')
    expect(page2.body.notifications.map((n: Notification) => n.id)).toEqual(all.slice(5, 10))
    expect(page2.body.pagination).toEqual({ page: 2, limit: 5, total: 12 })
    const last = await list('?page=3&limit=5')
    expect(last.body.notifications.map((n: Notification) => n.id)).toEqual(all.slice(10))
    const past = await list('?page=4&limit=5')
    expect(past.body).toEqual({ notifications: [], count: 12, pagination: { page: 4, limit: 5, total: 12 } })
    const zero = await list('?limit=0')
    expect(zero.body).toEqual({ notifications: [], count: 12, pagination: { page: 1, limit: 0, total: 12 } })
    const filteredPage = await list('?isRead=false&domain=orders&page=2&limit=1')
    expect(filteredPage.body.notifications.map((n: Notification) => n.id)).toEqual([created[0]?.id])
    expect(filteredPage.body.count).toBe(2)
  })

  it.each([
    ['limit=101', 'limit'], ['limit=-1', 'limit'], ['limit=abc', 'limit'], ['page=0', 'page'], ['page=1.5', 'page'],
    ['domain=nope', 'domain'], ['source=push', 'source'], ['isRead=yes', 'isRead'],
  ])('rejects %s with 400 keyed by field', async (query, field) => {
    const { status, body } = await list(`?${query}`)
    expect(status).toBe(400)
    expect(body.error.code).toBe('VALIDATION_ERROR')
    expect(body.error.details.errors).toHaveProperty(field)
  })

  it('needs a token, and a tenant the token belongs to', async () => {
    expect((await t.app.inject({ url: '/api/notifications' })).statusCode).toBe(401)
    const wrongTenant = await t.app.inject({ url: '/api/notifications', headers: { ...ana, 'tenant-id': 'club-sur' } })
    expect(wrongTenant.statusCode).toBe(403)
  })

  it('every domain and source enum value is accepted as a filter', async () => {
    for (const domain of NOTIFICATION_DOMAINS) expect((await list(`?domain=${domain}`)).status).toBe(200)
    for (const source of NOTIFICATION_SOURCES) expect((await list(`?source=${source}`)).status).toBe(200)
  })
})

describe.each(['redis', 'memory'] as const)('unread count and mark-read (%s)', (store) => {
  let t: TestApp
  let ana: Record<string, string>
  let anaSur: Record<string, string>
  let bruno: Record<string, string>
  const count = async (headers: Record<string, string>) => (await t.app.inject({ url: '/api/notifications/unread-count', headers })).json().count as number
  const markRead = async (headers: Record<string, string>, payload: unknown) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/notifications/mark-read', headers, payload: payload as Record<string, unknown> })
    return { status: res.statusCode, body: res.json() }
  }

  beforeAll(async () => {
    t = await buildTestApp({ store })
    ana = await t.auth('member', 'club-norte', { sub: ANA })
    anaSur = await t.auth('member', 'club-sur', { sub: ANA })
    bruno = await t.auth('member', 'club-norte', { sub: BRUNO })
  })
  afterAll(async () => { await t.close() })

  it('counts only the caller\'s unread records in the tenant', async () => {
    for (let i = 0; i < 3; i++) await t.app.notifications.create(notice(ANA))
    await t.app.notifications.create(notice(ANA, { tenantId: 'club-sur' }))
    await t.app.notifications.create(notice(BRUNO))
    expect(await count(ana)).toBe(3)
    expect(await count(anaSur)).toBe(1)
    expect(await count(bruno)).toBe(1)
  })

  it('marks one by externalId: isRead true, readAt set, count down; again is a no-op', async () => {
    const n = await t.app.notifications.create(notice(ANA, { externalId: 'order-42-placed' }))
    const before = await count(ana)
    const first = await markRead(ana, { notificationId: 'order-42-placed' })
    expect(first.status).toBe(200)
    expect(first.body.notification).toMatchObject({ id: n?.id, externalId: 'order-42-placed', isRead: true })
    expect(Date.parse(first.body.notification.readAt)).toBeGreaterThan(0)
    expect(first.body.notification.updatedAt).toBe(first.body.notification.readAt)
    expect(await count(ana)).toBe(before - 1)
    const again = await markRead(ana, { notificationId: 'order-42-placed' })
    expect(again.body.notification.readAt).toBe(first.body.notification.readAt)
    expect(await count(ana)).toBe(before - 1)
  })

  it('someone else\'s id, another tenant\'s id or an unknown id is 404 and changes nothing', async () => {
    const brunos = await t.app.notifications.create(notice(BRUNO))
    const anasSur = await t.app.notifications.create(notice(ANA, { tenantId: 'club-sur' }))
    const brunoBefore = await count(bruno)
    const surBefore = await count(anaSur)
    for (const id of [brunos?.externalId, anasSur?.externalId, 'no-such-id']) {
      const res = await markRead(ana, { notificationId: id })
      expect(res.status).toBe(404)
      expect(res.body.error.code).toBe('NOT_FOUND')
    }
    expect(await count(bruno)).toBe(brunoBefore)
    expect(await count(anaSur)).toBe(surBefore)
  })

  it('marks all of the caller\'s as read and answers how many', async () => {
    const unread = await count(ana)
    expect(unread).toBeGreaterThan(0)
    const brunoBefore = await count(bruno)
    const surBefore = await count(anaSur)
    const res = await markRead(ana, { all: true })
    expect(res).toEqual({ status: 200, body: { updated: unread } })
    expect(await count(ana)).toBe(0)
    expect(await count(bruno)).toBe(brunoBefore)
    expect(await count(anaSur)).toBe(surBefore)
    expect((await markRead(ana, { all: true })).body).toEqual({ updated: 0 })
    const listed = (await t.app.inject({ url: '/api/notifications?isRead=false', headers: ana })).json()
    expect(listed.count).toBe(0)
  })

  it.each([
    ['neither', {}],
    ['both', { notificationId: 'x', all: true }],
    ['all: false', { all: false }],
    ['an empty id', { notificationId: '' }],
    ['a number id', { notificationId: 5 }],
  ])('rejects %s with 400 VALIDATION_ERROR', async (_name, payload) => {
    const res = await markRead(ana, payload)
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe('VALIDATION_ERROR')
    expect(res.body.error.details.errors).toBeTypeOf('object')
  })

  it('rejects a missing or malformed body with 400, not 500', async () => {
    const empty = await t.app.inject({ method: 'POST', url: '/api/notifications/mark-read', headers: ana })
    expect(empty.statusCode).toBe(400)
    const bad = await t.app.inject({
      method: 'POST', url: '/api/notifications/mark-read', headers: { ...ana, 'content-type': 'application/json' }, payload: '{"all":'
    })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().error.code).toBe('INVALID_REQUEST')
  })

  it('another role sees only its own inbox too', async () => {
    const grower = await t.auth('grower', 'club-norte', { sub: 'user_grower_norte' })
    await t.app.notifications.create(notice('user_grower_norte', { recipientRole: 'grower', domain: 'tasks' }))
    const res = await t.app.inject({ url: '/api/notifications', headers: grower })
    expect(res.json().count).toBe(1)
    expect(res.json().notifications[0]).toMatchObject({ recipientId: 'user_grower_norte', recipientRole: 'grower' })
  })
})
