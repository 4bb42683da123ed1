import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { Redis } from 'ioredis'
import type { FastifyInstance } from 'fastify'
import { buildCommerceBackend } from '../../src/embedded-commerce/backend.ts'
import { RedisCommerceStore } from '../../src/embedded-commerce/store/redis.ts'
import { testRedis, TEST_SECRETS } from '../helper.ts'
import { PK_NORTE } from './harness.ts'

// The embedded backend reads a publishable key's and a variant's lookup once and keeps it (neither ever points
// elsewhere); the key's record is read on every call, so a revoked key is refused at once. Counted with MONITOR on
// a real Redis, through a real socket.

describe('lookups kept by the embedded backend (redis, MONITOR)', () => {
  let app: FastifyInstance
  let url: string
  let r: Awaited<ReturnType<typeof testRedis>>
  let monitor: Redis
  const seen: string[] = []
  beforeAll(async () => {
    r = await testRedis()
    app = await buildCommerceBackend({ redis: r.redis, jwtSecret: TEST_SECRETS.JWT_SECRET, seed: true })
    await app.listen({ host: '127.0.0.1', port: 0 })
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    monitor = new Redis(inject('redisUrl'))
    const m = await monitor.monitor()
    m.on('monitor', (_time: string, args: string[]) => {
      if (args[1]?.startsWith(r.prefix)) seen.push(`${(args[0] ?? '').toLowerCase()} ${args[1].slice(r.prefix.length)}`)
    })
  })
  afterAll(async () => {
    monitor.disconnect()
    await app.close()
    await r.cleanup()
  })

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, {
      method, headers: { ...PK_NORTE, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined
    })
    return { status: res.status, body: await res.json() as any }
  }
  /** The commands `run` made the backend send: up to a marker read after it, which MONITOR passes on after them. */
  const during = async (run: () => Promise<unknown>): Promise<string[]> => {
    const from = seen.length
    await run()
    const marker = `marker:${randomUUID()}`
    await r.redis.get(marker)
    await vi.waitFor(() => { expect(seen).toContain(`get ${marker}`) })
    return seen.slice(from, seen.indexOf(`get ${marker}`))
  }

  it('a key\'s and a variant\'s lookups are read once, the key\'s record every time', async () => {
    const variant = (await call('GET', '/store/products?fields=id,*variants&limit=1')).body.products[0].variants[0].id as string
    const commands = await during(async () => {
      for (let i = 0; i < 3; i++) expect((await call('POST', '/store/carts', { items: [{ variant_id: variant, quantity: 1 }] })).status).toBe(200)
    })
    expect(commands.filter((c) => c === 'get commerce:by:pk:pk_club_norte')).toHaveLength(0)
    expect(commands.filter((c) => c === `get commerce:by:variant:${variant}`)).toHaveLength(1)
    expect(commands.filter((c) => c === 'hmget commerce:api_key:apk_club_norte')).toHaveLength(3)
  })

  it('a key revoked after its lookup was kept is refused at once', async () => {
    const store = new RedisCommerceStore(r.redis)
    const key = (await store.get('api_key', 'apk_club_norte'))!
    expect(await store.replace('api_key', key.rev, { ...key.doc, revoked_at: new Date().toISOString() })).toBe('ok')
    const res = await call('GET', '/store/products?limit=1')
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ type: 'not_allowed' })
  })
})
