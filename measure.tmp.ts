import { Redis } from 'ioredis'
import { buildApp } from './src/app.ts'
import { loadConfig } from './src/config.ts'
import { signAccessToken } from './src/auth/tokens.ts'
const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', SEED: 'demo', REDIS_URL: 'redis://127.0.0.1:6391', REDIS_KEY_PREFIX: `m${Date.now()}:`, JWT_SECRET: 'x'.repeat(32), CRON_API_SECRET: 'y'.repeat(32), CHAT_WEBHOOK_SECRET: 'z'.repeat(32), CHAT_LANES: 'off' })
const app = await buildApp(config, { logger: false })
await app.ready()
const mon = new Redis('redis://127.0.0.1:6391')
const stats = async () => { const raw = await mon.info('commandstats'); let total = 0; for (const m of raw.matchAll(/calls=(\d+)/g)) total += Number(m[1]); return total }
for (const role of ['grower', 'member'] as const) {
  const token = await signAccessToken(config.jwtSecret, { sub: role === 'member' ? 'cus_ana' : 'user_grower_norte', role, tenants: ['club-norte'] })
  const url = role === 'member' ? '/api/notifications?limit=1' : '/api/crops?limit=1'
  await app.inject({ url, headers: { authorization: `Bearer ${token}`, 'tenant-id': 'club-norte' } })
  const before = await stats()
  for (let i = 0; i < 100; i++) await app.inject({ url, headers: { authorization: `Bearer ${token}`, 'tenant-id': 'club-norte' } })
  const after = await stats()
  console.log(role, url, 'commands per request (incl. 1 INFO of the probe):', (after - before - 1) / 100)
}
await app.close(); mon.disconnect()
