import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { buildApp, type BuiltApp } from '../../src/app.ts'
import { createRedis, createRedisCluster } from '../../src/plugins/redis.ts'
import { type RedisClient } from '../../src/stores/redis-client.ts'
import { toNode } from '../../scripts/lib/redis-cluster.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { HEARTBEAT_MS } from '../../src/sse.ts'
import { notice } from './fixtures.ts'
import { eventually, openSse, type SseClient, type SseEvent } from './sse-client.ts'

const isCount = (n: number) => (e: SseEvent): boolean => e.event === 'unread-count' && (e.data as { count: number }).count === n

describe.each(['redis', 'cluster'] as const)('live updates across instances sharing a Redis (%s)', (store) => {
  let a: TestApp
  let b: BuiltApp
  let bRedis: RedisClient
  let base: string
  const clients: SseClient[] = []
  const connect = async (headers: Record<string, string>): Promise<SseClient> => {
    const c = await openSse(`${base}/api/notifications/stream`, headers)
    clients.push(c)
    return c
  }

  beforeAll(async () => {
    a = await buildTestApp({ store })
    // a second instance: same config (so the same key prefix), its own connection
    const prefix = a.config.redisKeyPrefix
    bRedis = store === 'cluster' ? createRedisCluster(inject('redisClusterNodes').map(toNode), prefix) : createRedis(inject('redisUrl'), prefix)
    await bRedis.connect()
    b = await buildApp(a.config, { redis: bRedis, logger: false })
    await b.ready()
    base = await a.app.listen({ port: 0, host: '127.0.0.1' })
  })
  afterAll(async () => {
    for (const c of clients) c.close()
    await b.close()
    bRedis.disconnect()
    await a.close()
  })

  it('answers 401 in the envelope without a token, before any stream starts', async () => {
    const res = await fetch(`${base}/api/notifications/stream`)
    expect(res.status).toBe(401)
    expect((await res.json()).error.code).toBe('UNAUTHORIZED')
  })

  it('sends the count at once, then the notification and the new count when another instance creates one', async () => {
    const client = await connect(await a.auth('member', 'club-norte', { sub: 'cus_ana' }))
    expect(client.status).toBe(200)
    expect(client.headers.get('content-type')).toMatch(/^text\/event-stream/)
    await client.waitFor(isCount(0))
    const created = await b.notifications.create(notice('cus_ana', { title: 'Pedido enviado' }))
    const pushed = await client.waitFor((e) => e.event === 'notification')
    expect(pushed.data).toMatchObject({ id: created?.id, title: 'Pedido enviado', recipientId: 'cus_ana' })
    await client.waitFor(isCount(1))
    // mark-read on the other instance lowers the count here
    await b.inject({
      method: 'POST', url: '/api/notifications/mark-read', headers: await a.auth('member', 'club-norte', { sub: 'cus_ana' }), payload: { all: true }
    })
    await client.waitFor((e) => isCount(0)(e) && client.events.indexOf(e) > client.events.indexOf(pushed))
  })

  it('pushes nothing of other users or other tenants', async () => {
    const bruno = await connect(await a.auth('member', 'club-norte', { sub: 'cus_bruno' }))
    await bruno.waitFor(isCount(0))
    await b.notifications.create(notice('cus_ana'))
    await b.notifications.create(notice('cus_bruno', { tenantId: 'club-sur' }))
    const own = await b.notifications.create(notice('cus_bruno', { title: 'own' }))
    const got = await bruno.waitFor((e) => e.event === 'notification')
    expect((got.data as { id: string }).id).toBe(own?.id)
    expect(bruno.events.filter((e) => e.event === 'notification')).toHaveLength(1)
  })

  it('delivers a role notice sent on another instance to a connected member', async () => {
    const carla = await connect(await a.auth('member', 'club-norte', { sub: 'cus_carla' }))
    await carla.waitFor(isCount(0))
    const sent = await b.inject({
      method: 'POST', url: '/api/notifications', headers: await a.auth('admin'), payload: { recipientRole: 'member', title: 'Aviso', body: 'Cerrado el lunes.' }
    })
    expect(sent.statusCode).toBe(201)
    const got = await carla.waitFor((e) => e.event === 'notification')
    expect(got.data).toMatchObject({ title: 'Aviso', recipientId: 'cus_carla', source: 'manual' })
  })

  it('publishes on channels under the configured key prefix (ioredis does not prefix channels)', async () => {
    // a cluster forwards PUBLISH to every node, so one member hears it
    const listener = store === 'cluster' ? new Redis(`redis://${inject('redisClusterNodes')[0] ?? ''}`) : new Redis(inject('redisUrl'))
    const heard: string[] = []
    listener.on('pmessage', (_pattern: string, channel: string) => heard.push(channel))
    await listener.psubscribe('*notif:live:*')
    await b.notifications.create(notice('cus_dora'))
    const channel = `${a.config.redisKeyPrefix}notif:live:club-norte:u:cus_dora`
    // the pattern also hears other tests on the shared Redis, and on a cluster the bus may still be carrying
    // this file's earlier publications: only this one's channel is asserted
    await eventually(() => heard.includes(channel))
    listener.disconnect()
    expect(heard).toContain(channel)
  })

  it('a client gone while its first count is read leaves no heartbeat behind', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    try {
      // role notices to copy make the first count take a while: the client leaves during it
      for (let i = 0; i < 300; i++) {
        await a.app.notifications.broadcast({
          tenantId: 'club-norte',
          recipientRole: 'grower',
          domain: 'system',
          event: 'manual.message',
          title: `n${i}`,
          body: 'b',
          severity: 'info',
          source: 'manual'
        })
      }
      const abort = new AbortController()
      const res = await fetch(`${base}/api/notifications/stream`, {
        headers: await a.auth('grower', 'club-norte', { sub: 'user_grower_gone' }), signal: abort.signal
      })
      let seen = ''
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        seen += Buffer.from(chunk).toString()
        if (seen.includes('retry:')) break
      }
      abort.abort()
      expect(seen).not.toContain('unread-count')
      const headers = await a.auth('grower', 'club-norte', { sub: 'user_grower_gone' })
      // the stream's own delivery is done once all copies are there; its count read follows at once
      let count = 0
      while (count < 300) count = (await a.app.inject({ url: '/api/notifications/unread-count', headers })).json().count
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(vi.getTimerCount()).toBe(0)
    } finally {
      vi.clearAllTimers()
      vi.useRealTimers()
    }
  })

  it('unsubscribes when the client goes away', async () => {
    await eventually(() => a.app.liveHub.listenerCount() > 0)
    for (const c of clients.splice(0)) c.close()
    await eventually(() => a.app.liveHub.listenerCount() === 0)
  })
})

describe('live updates on the in-memory store', () => {
  let t: TestApp
  let base: string
  beforeAll(async () => {
    t = await buildTestApp({ store: 'memory' })
    base = await t.app.listen({ port: 0, host: '127.0.0.1' })
  })

  it('sends a heartbeat comment every interval', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    try {
      const client = await openSse(`${base}/api/notifications/stream`, await t.auth('member', 'club-norte', { sub: 'cus_beat' }))
      await client.waitFor(isCount(0))
      expect(client.text()).not.toContain(': heartbeat')
      vi.advanceTimersByTime(HEARTBEAT_MS * 2)
      await eventually(() => client.text().split(': heartbeat').length - 1 === 2)
      client.close()
    } finally {
      vi.useRealTimers()
    }
  })

  it('pushes within the process, and closing the app ends open streams instead of hanging', async () => {
    const client = await openSse(`${base}/api/notifications/stream`, await t.auth('grower', 'club-norte', { sub: 'user_grower_norte' }))
    await client.waitFor(isCount(0))
    await t.app.notifications.create(notice('user_grower_norte', { recipientRole: 'grower', domain: 'tasks' }))
    await client.waitFor(isCount(1))
    const started = Date.now()
    await t.close()
    expect(Date.now() - started).toBeLessThan(2000)
    expect(t.app.liveHub.listenerCount()).toBe(0)
    client.close()
  })
})
