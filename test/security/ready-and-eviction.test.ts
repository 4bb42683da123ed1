import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRedisServer, type RedisServer } from '../../scripts/lib/redis-server.ts'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { loggerOptions } from '../../src/logger.ts'
import { buildTestApp, TEST_SECRETS, type TestApp } from '../helper.ts'
import { captureLog } from './support.ts'

// Issue 25: /ready listed every club id to anyone (item 7); an evicting Redis lost sessions, markers, clubs and
// staff silently while /ready said ready (item 8, the eviction check). The public answer says ready or not; the
// detail, Redis's eviction policy included, is for the metrics token; an evicting Redis is refused in production.

const METRICS_TOKEN = 'test-metrics-token-0123456789'

describe('/ready: ready or not to anyone, the detail behind the metrics token', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ env: { METRICS_TOKEN } }) })
  afterAll(async () => { await t.close() })

  it('answers no club id without the token, nor with a wrong one or a user token', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-wrong-token', `Bearer ${await t.token('admin')}`]) {
      const res = await t.app.inject({ url: '/ready', headers: authorization ? { authorization } : {} })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ status: 'ready' })
      expect(res.body).not.toMatch(/club-/)
    }
  })

  it('with the token, says Redis\'s state and eviction policy and each club\'s backend', async () => {
    const res = await t.app.inject({ url: '/ready', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    expect(res.json()).toEqual({ status: 'ready', redis: 'up', maxmemoryPolicy: 'noeviction', commerce: { 'club-norte': 'up', 'club-sur': 'up' } })
  })
})

describe('an evicting Redis', () => {
  let server: RedisServer
  beforeAll(async () => { server = await startRedisServer(['--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru']) })
  afterAll(async () => { await server.stop() })

  it('is refused at start in production, naming the setting', async () => {
    const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', ...TEST_SECRETS, REDIS_URL: server.url, METRICS_TOKEN })
    await expect(buildApp(config, { logger: false })).rejects.toThrow(/maxmemory-policy is allkeys-lru.*noeviction.*refused in production/)
  })

  it('is warned about elsewhere, naming the setting, and /ready reports it', async () => {
    const log = captureLog()
    const config = loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'warn', ...TEST_SECRETS, REDIS_URL: server.url, SEED: 'none' })
    const app = await buildApp(config, { logger: { ...loggerOptions('warn'), stream: log.stream } })
    try {
      await app.ready()
      expect(log.text()).toMatch(/maxmemory-policy is allkeys-lru/)
      expect((await app.inject('/ready')).json()).toMatchObject({ status: 'ready', redis: 'up', maxmemoryPolicy: 'allkeys-lru' })
    } finally {
      await app.close()
    }
  })
})
