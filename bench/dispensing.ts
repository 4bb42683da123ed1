import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { startRedisServer } from '../scripts/lib/redis-server.ts'
import { buildApp } from '../src/app.ts'
import { signAccessToken } from '../src/auth/tokens.ts'
import { loadConfig } from '../src/config.ts'
import { demoIds } from '../src/embedded-commerce/demo.ts'
import { fmt, scaled } from './lib.ts'

// The cost of the club's rules: a limit check on an order (the reservation the order paths make before the cart
// completes) and a handover (re-check, record, order completed upstream), in Redis round trips and CPU per call,
// on a redis-server of its own. Round trips are counted on the service's client (the embedded commerce backend
// shares it: the handover's figure includes the backend's own Redis work).

const SUR = 'club-sur'

export async function run (): Promise<void> {
  const server = await startRedisServer()
  const redis = new Redis(server.url, { keyPrefix: `bench:${randomUUID()}:` })
  let roundTrips = 0
  const send = redis.sendCommand.bind(redis)
  redis.sendCommand = ((...args: Parameters<typeof send>) => { roundTrips++; return send(...args) }) as typeof send
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    SEED: 'demo',
    JWT_SECRET: 'bench-jwt-secret-0123456789abcdef',
    CRON_API_SECRET: 'bench-cron-secret-0123456789abcdef',
    CHAT_WEBHOOK_SECRET: 'bench-webhook-secret-0123456789abcdef',
    RATE_LIMIT_MAX: '100000000',
    REDIS_URL: server.url,
  })
  const app = await buildApp(config, { logger: false, redis })
  try {
    await app.ready()
    const admin = {
      authorization: `Bearer ${await signAccessToken(config.jwtSecret, { sub: 'user_admin_sur', role: 'admin', tenants: [SUR], name: 'Admin Sur' }, 3600)}`,
      'tenant-id': SUR
    }
    // de-kcang with caps too high to refuse: every call does the whole check and write
    await app.inject({ method: 'PATCH', url: '/api/club/rules', headers: admin, payload: { preset: 'de-kcang', dailyGrams: 100_000, monthlyGrams: 100_000 } })
    const tenant = await app.tenants.get(SUR)
    if (!tenant) throw new Error('no club-sur')
    const lines = [{ quantity: 1, grams: 5, thcPercent: 19 }]

    const checks = scaled(2000, 50)
    for (let i = 0; i < 50; i++) await app.dispensing.reserve(tenant, 'cus_bench', `warm_${i}`, lines)
    let rt0 = roundTrips
    let cpu0 = process.cpuUsage()
    let t0 = performance.now()
    for (let i = 0; i < checks; i++) await app.dispensing.reserve(tenant, 'cus_bench', `cart_${i}`, lines)
    let cpu = process.cpuUsage(cpu0)
    process.stdout.write(
      `  limit check on an order (reserve): ${fmt((roundTrips - rt0) / checks)} Redis round trips, ${fmt((cpu.user + cpu.system) / checks)} µs CPU, ` +
      `${fmt((performance.now() - t0) * 1000 / checks)} µs wall per call (${checks} calls, one member)\n`
    )

    // handovers of orders placed through the one-call route (admin), each handed over once
    const variant = (await app.inject({ url: '/store/products?limit=50', headers: admin })).json().products
      .find((p: { id: string }) => p.id === demoIds.product('sur', 'flores-critical')).variants[0].id as string
    const handovers = scaled(100, 10)
    const orderIds: string[] = []
    const member = {
      authorization: `Bearer ${await signAccessToken(config.jwtSecret, { sub: 'cus_ana', role: 'member', tenants: [SUR], email: 'ana@example.com' }, 3600)}`,
      'tenant-id': SUR
    }
    for (let i = 0; i < handovers; i++) {
      const cart = (await app.inject({ method: 'POST', url: '/store/carts', headers: member, payload: {} })).json().cart
      await app.inject({ method: 'POST', url: `/store/carts/${cart.id as string}/line-items`, headers: member, payload: { variantId: variant, quantity: 1 } })
      const options = (await app.inject({ url: `/store/shipping-options?cartId=${cart.id as string}`, headers: member })).json().shippingOptions
      await app.inject({
        method: 'POST',
        url: `/store/carts/${cart.id as string}/shipping-methods`,
        headers: member,
        payload: { optionId: options.find((o: { name: string }) => o.name === 'pickup').id }
      })
      await app.inject({ method: 'POST', url: `/store/carts/${cart.id as string}/payment-sessions`, headers: member, payload: { providerId: 'cash' } })
      const done = await app.inject({ method: 'POST', url: `/store/carts/${cart.id as string}/complete`, headers: member })
      if (done.statusCode !== 200) throw new Error(`order: ${done.body}`)
      orderIds.push(done.json().order.id)
    }
    rt0 = roundTrips
    cpu0 = process.cpuUsage()
    t0 = performance.now()
    for (const id of orderIds) {
      const res = await app.inject({ method: 'POST', url: `/api/orders/${id}/handover`, headers: admin, payload: { identityChecked: true } })
      if (res.statusCode !== 200) throw new Error(`handover: ${res.body}`)
    }
    cpu = process.cpuUsage(cpu0)
    process.stdout.write(`  handover (HTTP, embedded backend in process): ${fmt((roundTrips - rt0) / handovers)} Redis round trips (service and backend), ` +
      `${fmt((cpu.user + cpu.system) / handovers / 1000)} ms CPU, ${fmt((performance.now() - t0) / handovers)} ms wall per call (${handovers} calls)\n`)
  } finally {
    await app.close()
    redis.disconnect()
    await server.stop()
  }
}
