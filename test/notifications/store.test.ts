import { randomUUID } from 'node:crypto'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DAY_MS, newNotificationId, type Broadcast, type Notification } from '../../src/notifications/model.ts'
import { createNotificationStore, type NotificationStore } from '../../src/notifications/store/index.ts'
import { keys } from '../../src/stores/keys.ts'
import { storeRedis, testRedis } from '../helper.ts'

const T0 = Date.parse('2030-05-01T12:00:00.000Z')

let seq = 0
function record (tenantId: string, recipientId: string, overrides: Partial<Notification> = {}): Notification {
  const createdMs = T0 + seq++
  const createdAt = new Date(createdMs).toISOString()
  return {
    id: newNotificationId(createdMs),
    externalId: randomUUID(),
    tenantId,
    recipientId,
    recipientRole: 'member',
    domain: 'orders',
    event: 'order.placed',
    title: 't',
    body: 'b',
    severity: 'info',
    isRead: false,
    readAt: null,
    metadata: { n: 1, tags: [] },
    source: 'event',
    expiresAt: new Date(createdMs + 30 * DAY_MS).toISOString(),
    createdAt,
    updatedAt: createdAt,
    ...overrides,
  }
}

function broadcast (tenantId: string, id: string, expiresAt: number): Broadcast {
  return {
    id,
    tenantId,
    recipientRole: 'member',
    domain: 'system',
    event: 'manual.message',
    title: 't',
    body: 'b',
    severity: 'info',
    source: 'manual',
    createdAt: new Date(T0).toISOString(),
    expiresAt: new Date(expiresAt).toISOString(),
  }
}

const ALL = { offset: 0, limit: 1000 }

describe.each(['redis', 'cluster', 'memory'] as const)('notification store contract (%s)', (kind) => {
  let store: NotificationStore
  let cleanup = async (): Promise<void> => {}
  let tenant: string
  const scope = (recipientId: string) => ({ tenantId: tenant, recipientId })

  beforeAll(async () => {
    const r = await storeRedis(kind)
    store = createNotificationStore(r?.redis ?? null)
    if (r) cleanup = r.cleanup
  })
  afterAll(async () => { await cleanup() })
  // a fresh tenant per test keeps the cases apart on one Redis
  const fresh = (): string => (tenant = `t-${randomUUID()}`)

  it('round-trips every field, metadata included', async () => {
    fresh()
    const n = record(tenant, 'u1', {
      actionUrl: '/orders/1', resourceId: 'order_1', resourceType: 'order', metadata: { a: { b: [1, 'x'] }, empty: {}, list: [] }
    })
    expect(await store.create(n, T0)).toEqual({ created: true, unreadCount: 1 })
    const { notifications, total } = await store.list(scope('u1'), ALL, T0)
    expect(total).toBe(1)
    expect(notifications[0]).toEqual(n)
  })

  it('refuses a second record with the same externalId for the recipient, not for another one', async () => {
    fresh()
    const first = record(tenant, 'u1', { externalId: 'same' })
    expect((await store.create(first, T0)).created).toBe(true)
    expect(await store.create(record(tenant, 'u1', { externalId: 'same' }), T0)).toEqual({ created: false, unreadCount: 1 })
    expect((await store.create(record(tenant, 'u2', { externalId: 'same' }), T0)).created).toBe(true)
    expect((await store.list(scope('u1'), ALL, T0)).notifications.map((n) => n.id)).toEqual([first.id])
  })

  it('drops expired records from lists and counts on read, and the cleanup counts each once', async () => {
    fresh()
    const soon = record(tenant, 'u1', { expiresAt: new Date(T0 + 1000).toISOString() })
    const later = record(tenant, 'u1')
    const otherSoon = record(tenant, 'u2', { expiresAt: new Date(T0 + 2000).toISOString() })
    for (const n of [soon, later, otherSoon]) await store.create(n, T0)
    const after = T0 + 5000
    expect(await store.unreadCount(scope('u1'), after)).toBe(1)
    expect((await store.list(scope('u1'), ALL, after)).notifications.map((n) => n.id)).toEqual([later.id])
    expect(await store.markRead(scope('u1'), soon.externalId, after)).toBeUndefined()
    // u1's expired one was dropped by the read; u2's is left for the cleanup
    expect(await store.purgeExpired(tenant, after)).toBe(1)
    expect(await store.purgeExpired(tenant, after)).toBe(0)
    expect(await store.unreadCount(scope('u2'), after)).toBe(0)
    // the externalId is free again once its record is gone
    expect((await store.create(record(tenant, 'u1', { externalId: soon.externalId }), after)).created).toBe(true)
  })

  it('cleanup of one tenant leaves other tenants alone', async () => {
    const a = fresh()
    await store.create(record(a, 'u1', { expiresAt: new Date(T0 + 1000).toISOString() }), T0)
    const b = fresh()
    await store.create(record(b, 'u1', { expiresAt: new Date(T0 + 1000).toISOString() }), T0)
    expect(await store.purgeExpired(a, T0 + 2000)).toBe(1)
    expect(await store.purgeExpired(b, T0 + 2000)).toBe(1)
  })

  it('cleanup visits every recipient with expired records, also past one batch', async () => {
    fresh()
    for (let i = 0; i < 520; i++) await store.create(record(tenant, `u${i}`, { expiresAt: new Date(T0 + 1000).toISOString() }), T0)
    await store.create(record(tenant, 'keeper'), T0)
    expect(await store.purgeExpired(tenant, T0 + 2000)).toBe(520)
    expect(await store.unreadCount(scope('keeper'), T0 + 2000)).toBe(1)
  })

  it('forgets one recipient (erasure on request): their notices, feed positions and expiry entry; others and the tenant\'s cleanup untouched', async () => {
    fresh()
    const gone = [record(tenant, 'u1'), record(tenant, 'u1', { expiresAt: new Date(T0 + 1000).toISOString() })]
    for (const n of gone) await store.create(n, T0)
    const kept = record(tenant, 'u2', { expiresAt: new Date(T0 + 1000).toISOString() })
    await store.create(kept, T0)
    await store.setBroadcastCursor(scope('u1'), 'member', 3, T0 + DAY_MS)
    await store.setBroadcastCursor(scope('u2'), 'member', 2, T0 + DAY_MS)
    expect(await store.forget(scope('u1'))).toBe(2)
    expect(await store.list(scope('u1'), ALL, T0)).toEqual({ notifications: [], total: 0 })
    expect(await store.unreadCount(scope('u1'), T0)).toBe(0)
    expect(await store.broadcastCursor(scope('u1'), 'member')).toBe(0)
    // the same externalId is free again: nothing of u1 is left to refuse it
    expect((await store.create(record(tenant, 'u1', { externalId: gone[0]!.externalId }), T0)).created).toBe(true)
    expect((await store.list(scope('u2'), ALL, T0)).notifications.map((n) => n.id)).toEqual([kept.id])
    expect(await store.broadcastCursor(scope('u2'), 'member')).toBe(2)
    // only u2's expired notice is left for the cleanup: u1's expiry entry went with them
    expect(await store.purgeExpired(tenant, T0 + 2000)).toBe(1)
    expect(await store.forget(scope('nobody'))).toBe(0)
  })

  it('marks read once, keeps readAt, and mark-all answers only what changed', async () => {
    fresh()
    const [a, b, c] = [record(tenant, 'u1'), record(tenant, 'u1'), record(tenant, 'u1')]
    for (const n of [a, b, c]) await store.create(n!, T0)
    const first = await store.markRead(scope('u1'), a!.externalId, T0 + 10)
    expect(first?.notification).toMatchObject({ isRead: true, readAt: new Date(T0 + 10).toISOString(), updatedAt: new Date(T0 + 10).toISOString() })
    expect(first?.unreadCount).toBe(2)
    expect((await store.markRead(scope('u1'), a!.externalId, T0 + 20))?.notification.readAt).toBe(new Date(T0 + 10).toISOString())
    expect(await store.markRead(scope('u2'), b!.externalId, T0 + 20)).toBeUndefined()
    expect(await store.markAllRead(scope('u1'), T0 + 30)).toBe(2)
    expect(await store.markAllRead(scope('u1'), T0 + 40)).toBe(0)
    const read = await store.list(scope('u1'), { ...ALL, isRead: true }, T0 + 50)
    expect(read.total).toBe(3)
    expect(read.notifications.find((n) => n.id === c!.id)?.readAt).toBe(new Date(T0 + 30).toISOString())
  })

  it('feeds broadcasts in order after a cursor that only moves forward, without expired ones', async () => {
    fresh()
    const b = (id: string, expiresAt: number): Broadcast => broadcast(tenant, id, expiresAt)
    const s1 = await store.addBroadcast(b('bc1', T0 + DAY_MS), T0)
    const s2 = await store.addBroadcast(b('bc2', T0 + 1000), T0)
    const s3 = await store.addBroadcast(b('bc3', T0 + DAY_MS), T0)
    expect(s1 < s2 && s2 < s3).toBe(true)
    expect((await store.broadcastsAfter(tenant, 'member', s1, T0)).map((e) => e.broadcast.id)).toEqual(['bc2', 'bc3'])
    expect((await store.broadcastsAfter(tenant, 'member', 0, T0 + 2000)).map((e) => e.broadcast.id)).toEqual(['bc1', 'bc3'])
    expect(await store.broadcastsAfter(tenant, 'grower', 0, T0)).toEqual([])
    expect(await store.broadcastCursor(scope('u1'), 'member')).toBe(0)
    await store.setBroadcastCursor(scope('u1'), 'member', s3, T0 + DAY_MS)
    await store.setBroadcastCursor(scope('u1'), 'member', s1, T0 + DAY_MS)
    expect(await store.broadcastCursor(scope('u1'), 'member')).toBe(s3)
    expect(await store.broadcastCursor(scope('u2'), 'member')).toBe(0)
  })

  // `until` is a moment on the store's clock (Redis' own, or the process' for memory), so real time here.
  it('forgets a feed position once the moment it is kept until has passed, and never keeps it for less', async () => {
    fresh()
    await store.setBroadcastCursor(scope('u1'), 'member', 4, Date.now() - 1)
    expect(await store.broadcastCursor(scope('u1'), 'member')).toBe(0)
    await store.setBroadcastCursor(scope('u2'), 'member', 5, Date.now() + DAY_MS)
    await store.setBroadcastCursor(scope('u2'), 'member', 6, Date.now() - 1)
    expect(await store.broadcastCursor(scope('u2'), 'member')).toBe(6)
  })

  // Property: whatever creates and mark-reads happen, the count, the unread filter and the list agree.
  it('unread count always equals the unread records the list returns', async () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('create' as const),
        who: fc.constantFrom('u1', 'u2'),
        domain: fc.constantFrom('orders', 'tasks' as const),
        source: fc.constantFrom('event', 'reminder' as const),
        ext: fc.option(fc.constantFrom('e1', 'e2', 'e3'), { nil: undefined })
      }),
      fc.record({ kind: fc.constant('read' as const), who: fc.constantFrom('u1', 'u2'), pick: fc.nat() }),
      fc.record({ kind: fc.constant('readAll' as const), who: fc.constantFrom('u1', 'u2') })
    )
    await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
      fresh()
      const externalIds: Record<string, string[]> = { u1: [], u2: [] }
      for (const o of ops) {
        if (o.kind === 'create') {
          const n = record(tenant, o.who, { domain: o.domain, source: o.source, ...(o.ext ? { externalId: o.ext } : {}) })
          if ((await store.create(n, T0)).created) externalIds[o.who]!.push(n.externalId)
        } else if (o.kind === 'read') {
          const ids = externalIds[o.who]!
          if (ids.length > 0) await store.markRead(scope(o.who), ids[o.pick % ids.length]!, T0)
        } else {
          await store.markAllRead(scope(o.who), T0)
        }
      }
      for (const who of ['u1', 'u2']) {
        const count = await store.unreadCount(scope(who), T0)
        const all = await store.list(scope(who), ALL, T0)
        const unread = await store.list(scope(who), { ...ALL, isRead: false }, T0)
        const read = await store.list(scope(who), { ...ALL, isRead: true }, T0)
        expect(all.total).toBe(externalIds[who]!.length)
        expect(count).toBe(all.notifications.filter((n) => !n.isRead).length)
        expect(unread.total).toBe(count)
        expect(unread.notifications.every((n) => !n.isRead)).toBe(true)
        expect(read.total + count).toBe(all.total)
      }
    }), { numRuns: kind === 'redis' ? 60 : 200 })
  })
})

// What the role feed leaves behind in Redis: nothing that outlives the broadcasts it is about.
describe('notification store, role feed keys (redis)', () => {
  let r: Awaited<ReturnType<typeof testRedis>>
  let store: NotificationStore
  beforeAll(async () => {
    r = await testRedis()
    store = createNotificationStore(r.redis)
  })
  afterAll(async () => { await r.cleanup() })

  it('drops expired broadcasts from the feed on the next broadcast and in the cleanup', async () => {
    const tenant = `t-${randomUUID()}`
    const feed = keys.notifications.broadcastFeed(tenant, 'member')
    await store.addBroadcast(broadcast(tenant, 'bc1', T0 + 1000), T0)
    await store.addBroadcast(broadcast(tenant, 'bc2', T0 + DAY_MS), T0)
    await store.addBroadcast(broadcast(tenant, 'bc3', T0 + DAY_MS), T0 + 2000)
    expect(await r.redis.zrange(feed, 0, -1)).toEqual(['bc2', 'bc3'])
    await store.purgeExpired(tenant, T0 + 2 * DAY_MS)
    expect(await r.redis.keys(`${r.prefix}{notif:${tenant}}:bc-*`)).toEqual([`${r.prefix}${keys.notifications.broadcastSeq(tenant)}`])
  })

  it('keeps a recipient\'s feed position until the last broadcast it covers expires, never shorter', async () => {
    const scope = { tenantId: `t-${randomUUID()}`, recipientId: 'u1' }
    const cursor = keys.notifications.recipient(scope.tenantId, scope.recipientId).broadcastCursor('member')
    await store.setBroadcastCursor(scope, 'member', 5, T0 + DAY_MS)
    expect(await r.redis.pexpiretime(cursor)).toBe(T0 + DAY_MS)
    await store.setBroadcastCursor(scope, 'member', 3, T0 + 1000)
    expect(await r.redis.pexpiretime(cursor)).toBe(T0 + DAY_MS)
    await store.setBroadcastCursor(scope, 'member', 7, T0 + 2 * DAY_MS)
    expect(await r.redis.pexpiretime(cursor)).toBe(T0 + 2 * DAY_MS)
    expect(await store.broadcastCursor(scope, 'member')).toBe(7)
  })
})
