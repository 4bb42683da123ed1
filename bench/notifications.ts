import { randomUUID } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { deleteKeysWithPrefix, startRedisServer } from '../scripts/lib/redis-server.ts'
import { buildApp } from '../src/app.ts'
import { signAccessToken } from '../src/auth/tokens.ts'
import { loadConfig } from '../src/config.ts'
import { demoTenants } from '../src/tenants/demo.ts'
import type { NotifyInput } from '../src/notifications/types.ts'

// List and unread-count latency for one member with 10,000 notifications, through the HTTP layer (app.inject).
const TOTAL = 10_000
const ITERATIONS = 300
const RECIPIENT = 'cus_bench'

interface Store { url: string | undefined, label: string, stop: () => Promise<void> }

/** REDIS_URL when given; else a redis-server of our own on a free port; else the in-memory store. */
async function openStore (): Promise<Store> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, label: 'redis at REDIS_URL', stop: async () => {} }
  try {
    const server = await startRedisServer()
    return { url: server.url, label: `own redis-server at ${server.url}`, stop: server.stop }
  } catch {
    return { url: undefined, label: 'in-memory store (no redis-server binary)', stop: async () => {} }
  }
}

function percentile (sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN
}

async function measure (name: string, call: () => Promise<number>): Promise<void> {
  for (let i = 0; i < 20; i++) await call()
  const times: number[] = []
  const started = performance.now()
  for (let i = 0; i < ITERATIONS; i++) {
    const t0 = performance.now()
    const status = await call()
    times.push(performance.now() - t0)
    if (status !== 200) throw new Error(`${name}: status ${status}`)
  }
  const elapsed = performance.now() - started
  times.sort((a, b) => a - b)
  const ms = (v: number): string => v.toFixed(2).padStart(7)
  process.stdout.write(
    `  ${name.padEnd(52)} p50 ${ms(percentile(times, 0.5))} ms  p95 ${ms(percentile(times, 0.95))} ms  p99 ${ms(percentile(times, 0.99))} ms  ${Math.round(
      ITERATIONS / (elapsed / 1000)
    )} req/s\n`
  )
}

export async function run (): Promise<void> {
  const store = await openStore()
  const prefix = `bench:${randomUUID()}:`
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    SEED: 'none',
    JWT_SECRET: 'bench-jwt-secret-0123456789abcdef',
    CRON_API_SECRET: 'bench-cron-secret-0123456789abcdef',
    CHAT_WEBHOOK_SECRET: 'bench-webhook-secret-0123456789abcdef',
    RATE_LIMIT_MAX: '100000000',
    ...(store.url ? { REDIS_URL: store.url, REDIS_KEY_PREFIX: prefix } : {}),
  })
  const app = await buildApp(config, { logger: false })
  try {
    await app.ready()
    const tenant = demoTenants[0]
    if (!tenant) throw new Error('no demo tenant')
    await app.tenants.put(tenant)
    const headers = {
      authorization: `Bearer ${await signAccessToken(config.jwtSecret, { sub: RECIPIENT, role: 'member', tenants: [tenant.id] }, 3600)}`,
      'tenant-id': tenant.id,
    }
    process.stdout.write(`notifications benchmark: ${TOTAL} notifications for one member, ${ITERATIONS} requests per case, ${store.label}\n`)

    const domains = ['orders', 'appointments', 'system'] as const
    const sources = ['event', 'reminder', 'manual'] as const
    const fillStarted = performance.now()
    for (let i = 0; i < TOTAL; i += 200) {
      await Promise.all(Array.from({ length: Math.min(200, TOTAL - i) }, async (_, k) => {
        const n = i + k
        const input: NotifyInput = {
          tenantId: tenant.id,
          recipientId: RECIPIENT,
          recipientRole: 'member',
          domain: domains[n % 3] as NotifyInput['domain'],
          event: 'bench.event',
          title: `Notice ${n}`,
          body: 'A notice of ordinary length for the benchmark.',
          severity: 'info',
          source: sources[n % 3 === 0 ? 0 : n % 2] as NotifyInput['source'],
          metadata: { n },
        }
        await app.notifications.create(input)
      }))
    }
    const fillMs = performance.now() - fillStarted
    process.stdout.write(`  fill: ${TOTAL} creates in ${Math.round(fillMs)} ms (${Math.round(TOTAL / (fillMs / 1000))} creates/s, 200 in flight)\n`)
    // half of them read, so the read/unread indexes are both large
    const half = await app.inject({ url: '/api/notifications?limit=100&page=1', headers })
    for (const n of half.json().notifications.slice(0, 50)) {
      await app.inject({ method: 'POST', url: '/api/notifications/mark-read', headers, payload: { notificationId: n.externalId } })
    }

    const get = (url: string) => async () => (await app.inject({ url, headers })).statusCode
    await measure('GET unread-count', get('/api/notifications/unread-count'))
    await measure('GET list, page 1 of 20', get('/api/notifications'))
    await measure('GET list, last page (page 500 of 20)', get('/api/notifications?page=500'))
    await measure('GET list, limit=100', get('/api/notifications?limit=100'))
    await measure('GET list, isRead=false', get('/api/notifications?isRead=false'))
    await measure('GET list, domain=orders', get('/api/notifications?domain=orders'))
    await measure('GET list, domain=orders&isRead=false&source=event', get('/api/notifications?domain=orders&isRead=false&source=event'))
    await measure('GET list, limit=0 (count only)', get('/api/notifications?limit=0'))
    const t0 = performance.now()
    const all = await app.inject({ method: 'POST', url: '/api/notifications/mark-read', headers, payload: { all: true } })
    process.stdout.write(`  POST mark-read all: ${all.json().updated} marked in ${(performance.now() - t0).toFixed(1)} ms\n`)
  } finally {
    await app.close()
    if (store.url && process.env.REDIS_URL) await deleteKeysWithPrefix(store.url, prefix)
    await store.stop()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run()
