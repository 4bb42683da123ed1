import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { signAccessToken } from '../../src/auth/tokens.ts'
import { demoIds } from '../../src/embedded-commerce/demo.ts'
import {
  cleanupLogs, JWT_SECRET, killInstance, logTail, seedClubs, startInstance, startProvider, startRedis, type Instance, type Provider, type RedisProcess,
} from '../chat-faults/harness.ts'

// Two service processes on one redis-server: 50 orders of one member completed at once, over both, never take
// her past the daily cap by a gram, and each one refused says so with its figures.

const SUR = 'club-sur'

describe('one member, 50 orders at once over two instances (real processes)', { timeout: 240_000 }, () => {
  let redis: RedisProcess
  let provider: Provider
  let instances: Instance[] = []

  const call = async (i: number, method: 'GET' | 'POST' | 'PATCH', path: string, headers: Record<string, string>, body?: unknown) => {
    const instance = instances[i % instances.length] as Instance
    const res = await request(`http://127.0.0.1:${instance.port}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.statusCode, json: await res.body.json() as any }
  }

  beforeAll(async () => {
    redis = await startRedis()
    provider = await startProvider()
    await seedClubs(redis.url)
    instances = await Promise.all(['a', 'b'].map(async (name) => await startInstance(name, redis.url, provider.url, { CHAT_LANES: 'off' })))
  }, 180_000)

  afterAll(async () => {
    await Promise.all(instances.map(async (i) => await killInstance(i, 'SIGKILL')))
    await provider?.close()
    await redis?.stop()
    cleanupLogs()
  })

  it('never crosses the cap; each refusal is 403 LIMIT_EXCEEDED with current, limit, period and remaining', async () => {
    const admin = {
      authorization: `Bearer ${await signAccessToken(
        JWT_SECRET, { sub: 'user_admin_sur', role: 'admin', tenants: [SUR], email: 'admin@club-sur.test', name: 'Admin Sur' }, 3600
      )}`,
      'tenant-id': SUR
    }
    expect((await call(0, 'PATCH', '/api/club/rules', admin, { preset: 'de-kcang' })).status).toBe(200)
    const login = await call(1, 'POST', '/auth/customer/emailpass', {}, { email: 'ana@example.com', password: 'demo-password' })
    const ana = { authorization: `Bearer ${login.json.token as string}`, 'tenant-id': SUR }
    const products = (await call(0, 'GET', '/store/products?limit=50', ana)).json.products
    const flower = products.find((p: { id: string }) => p.id === demoIds.product('sur', 'flores-critical'))
    const variants = flower.variants as Array<{ id: string, grams: number }>

    // 50 carts, each of one unit of 5 g or 10 g, ready to complete
    const carts: Array<{ id: string, grams: number }> = []
    for (let n = 0; n < 50; n++) {
      const v = variants[n % 2] as { id: string, grams: number }
      const c = (await call(n, 'POST', '/store/carts', ana, {})).json.cart
      await call(n, 'POST', `/store/carts/${c.id as string}/line-items`, ana, { variantId: v.id, quantity: 1 })
      const options = (await call(n, 'GET', `/store/shipping-options?cartId=${c.id as string}`, ana)).json.shippingOptions
      await call(n, 'POST', `/store/carts/${c.id as string}/shipping-methods`, ana, { optionId: options.find((o: { name: string }) => o.name === 'pickup').id })
      await call(n, 'POST', `/store/carts/${c.id as string}/payment-sessions`, ana, { providerId: 'cash' })
      carts.push({ id: c.id, grams: v.grams })
    }

    const answers = await Promise.all(carts.map(async (c, n) => ({ ...c, ...await call(n, 'POST', `/store/carts/${c.id}/complete`, ana) })))
    const logs = instances.map((i) => `--- ${i.name}\n${logTail(i)}`).join('\n')
    const placed = answers.filter((a) => a.status === 200)
    const refused = answers.filter((a) => a.status !== 200)
    const grams = placed.reduce((sum, a) => sum + a.grams, 0)
    expect(grams, logs).toBeLessThanOrEqual(25)
    expect(grams, logs).toBeGreaterThanOrEqual(15)
    for (const r of refused) {
      expect(r.status, JSON.stringify(r.json)).toBe(403)
      expect(r.json.error.code).toBe('LIMIT_EXCEEDED')
      const d = r.json.error.details
      expect(d).toEqual({ current: expect.any(Number), limit: 25, period: 'day', remaining: 25 - d.current })
      expect(d.current + r.grams).toBeGreaterThan(25)
    }
    const quota = (await call(0, 'GET', '/api/members/me/quota', ana)).json.quota
    expect(quota.periods[0]).toMatchObject({ period: 'day', reserved: grams, used: 0, limit: 25 })
  })
})
