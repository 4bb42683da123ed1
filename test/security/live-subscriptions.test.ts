import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { RedisLiveHub, type LiveMessage } from '../../src/notifications/live.ts'
import { createRedis } from '../../src/plugins/redis.ts'
import { keys } from '../../src/stores/keys.ts'
import type { Redis } from 'ioredis'
import { buildTestApp, type TestApp } from '../helper.ts'
import { eventually, openSse, type SseClient } from '../notifications/sse-client.ts'

// Issue 25, item 6: two live streams opening at once as the first users of the live-updates connection could
// subscribe under ioredis' ready check ("ERR Can't execute 'info'"), failing one while its listener stayed
// registered, so that channel delivered nothing until a restart. Real Redis, clients made as the service makes them.

const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }
const note: LiveMessage = { type: 'broadcast' }

describe('live subscriptions never leave a listener without its Redis subscription', () => {
  let redis: Redis
  const prefix = `test:live:${Date.now()}:`
  beforeAll(async () => {
    redis = createRedis(inject('redisUrl'), prefix)
    await redis.connect()
  })
  afterAll(() => { redis.disconnect() })

  it('two first subscriptions at once, the second a few milliseconds later, both deliver (40 fresh connections)', async () => {
    const failures: string[] = []
    for (let i = 0; i < 40; i++) {
      const hub = new RedisLiveHub(redis, prefix, () => {})
      const got = { a: 0, b: 0 }
      const opened = await Promise.allSettled([
        hub.subscribe('a', () => { got.a++ }),
        (async () => { await sleep(i % 4); return await hub.subscribe('b', () => { got.b++ }) })(),
      ])
      for (const o of opened) if (o.status === 'rejected') failures.push(String(o.reason))
      await hub.publish('a', note)
      await hub.publish('b', note)
      await sleep(30)
      if (got.a !== 1 || got.b !== 1) failures.push(`round ${i}: a got ${got.a}, b got ${got.b}`)
      await hub.close()
    }
    expect(failures).toEqual([])
  })

  it('any interleaving of opens, closes and re-opens leaves exactly the open listeners subscribed', async () => {
    const op = fc.record({
      channel: fc.constantFrom('x', 'y', 'z'), delay: fc.integer({ min: 0, max: 3 }), closeAfter: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined })
    })
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
      const hub = new RedisLiveHub(redis, prefix, () => {})
      const counts = ops.map(() => 0)
      const open = ops.map(() => false)
      await Promise.all(ops.map(async (o, i) => {
        await sleep(o.delay)
        const off = await hub.subscribe(o.channel, () => { counts[i] = (counts[i] ?? 0) + 1 })
        open[i] = true
        if (o.closeAfter === undefined) return
        await sleep(o.closeAfter)
        await off()
        open[i] = false
      }))
      expect(hub.listenerCount()).toBe(open.filter(Boolean).length)
      for (const channel of ['x', 'y', 'z']) await hub.publish(channel, note)
      await eventually(() => ops.every((_, i) => counts[i] === (open[i] ? 1 : 0)), 1000).catch(() => {})
      expect(counts).toEqual(open.map((o) => o ? 1 : 0))
      await hub.close()
    }), { numRuns: 25 })
  })

  it('a subscription that cannot be made is retried, then refused, leaving no listener behind', async () => {
    const dead = createRedis('redis://127.0.0.1:9', prefix)
    const errors: Error[] = []
    const hub = new RedisLiveHub(dead, prefix, (err) => { errors.push(err) })
    await expect(hub.subscribe('a', () => {})).rejects.toThrow()
    expect(hub.listenerCount()).toBe(0)
    expect(errors.length).toBeGreaterThanOrEqual(1)
    await hub.close()
    dead.disconnect()
  })
})

describe('two activity streams opened at once as the first users of the live connection both deliver', () => {
  let t: TestApp
  let base: string
  beforeAll(async () => {
    t = await buildTestApp()
    base = await t.app.listen({ port: 0, host: '127.0.0.1' })
  })
  afterAll(async () => { await t.close() })

  it('over 15 fresh live connections, every stream gets the club\'s activity', async () => {
    const headers = await t.auth('admin', 'club-norte')
    for (let round = 0; round < 15; round++) {
      // a fresh live-updates connection: the next streams are its first users
      await t.app.liveHub.close()
      const streams: SseClient[] = await Promise.all([0, 1].map(async (n) => {
        await sleep(n * (round % 3))
        return await openSse(`${base}/api/chat/conversations/stream`, headers)
      }))
      // each stream listens on its staff member's access channel and on the club's activity
      await eventually(() => t.app.liveHub.listenerCount() >= 4, 2000).catch(() => {})
      const event = { kind: 'message', phone: '5491100000001', round }
      await t.app.liveHub.publish(keys.chat.clubActivity('club-norte'), { type: 'chat', event })
      for (const s of streams) {
        const got = await s.waitFor((e) => e.event === 'message' || e.event === 'end', 2000).catch(() => undefined)
        expect(got, `round ${round}: ${JSON.stringify(s.events)}`).toMatchObject({ event: 'message', data: { round } })
        s.close()
      }
    }
  })
})
