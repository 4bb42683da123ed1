import { createServer, type Server } from 'node:http'
import { once } from 'node:events'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../../scripts/lib/free-port.ts'
import { startRedisServer } from '../../scripts/lib/redis-server.ts'
import { buildApp } from '../../src/app.ts'
import { keys } from '../../src/stores/keys.ts'
import { loadConfig } from '../../src/config.ts'
import { buildTestApp, TEST_SECRETS, type TestApp } from '../helper.ts'

describe.each(['redis', 'memory'] as const)('health and readiness (%s)', (store) => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store }) })
  afterAll(async () => { await t.close() })

  it('GET /health says the process is up', async () => {
    const res = await t.app.inject('/health')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'ok' })
    expect(res.headers['x-request-id']).toBeTruthy()
  })

  it('GET /ready reports the store and each club\'s commerce backend', async () => {
    const res = await t.app.inject('/ready')
    expect(res.statusCode).toBe(200)
    const redis = store === 'redis' ? { redis: 'up', maxmemoryPolicy: 'noeviction' } : { redis: 'memory' }
    expect(res.json()).toEqual({ status: 'ready', ...redis, commerce: { 'club-norte': 'up', 'club-sur': 'up' } })
  })
})

describe('readiness with a commerce backend that does not answer', () => {
  let t: TestApp
  let mute: Server
  beforeAll(async () => {
    // accepts the connection and never answers
    mute = createServer(() => {})
    mute.listen(0, '127.0.0.1')
    await once(mute, 'listening')
    const address = mute.address()
    const closedPort = await freePort()
    t = await buildTestApp()
    const norte = await t.app.tenants.get('club-norte')
    if (!norte?.commerce) throw new Error('demo club-norte has no commerce settings')
    await t.app.tenants.put({
      ...norte, id: 'club-mute', commerce: { ...norte.commerce, baseUrl: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` }
    })
    await t.app.tenants.put({ ...norte, id: 'club-closed', commerce: { ...norte.commerce, baseUrl: `http://127.0.0.1:${closedPort}` } })
    await t.app.tenants.put({ ...norte, id: 'club-new', commerce: undefined })
  })
  afterAll(async () => {
    mute.closeAllConnections()
    mute.close()
    await t.close()
  })

  it('stays ready (200) and names the clubs whose backend is down', async () => {
    const res = await t.app.inject('/ready')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      status: 'ready',
      redis: 'up',
      maxmemoryPolicy: 'noeviction',
      commerce: { 'club-norte': 'up', 'club-sur': 'up', 'club-mute': 'down', 'club-closed': 'down', 'club-new': 'unconfigured' },
    })
  })
})

describe('readiness with a club record that cannot be read', () => {
  it('stays ready: one bad record does not take the instance out of the balancer', async () => {
    const t = await buildTestApp()
    try {
      await t.redis?.multi().set(keys.tenants.one('club-bad'), '{"id":"club-bad"}').sadd(keys.tenants.all(), 'club-bad').exec()
      const res = await t.app.inject('/ready')
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ status: 'ready', redis: 'up', maxmemoryPolicy: 'noeviction', commerce: {} })
    } finally {
      await t.close()
    }
  })
})

describe('readiness with Redis down', () => {
  it('answers 503 once redis-server is stopped', async () => {
    const server = await startRedisServer()
    const redis = new Redis(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => 100 })
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...TEST_SECRETS, REDIS_URL: server.url })
    const app = await buildApp(config, { redis, logger: false })
    try {
      await app.ready()
      expect((await app.inject('/ready')).statusCode).toBe(200)
      await server.stop()
      const res = await app.inject('/ready')
      expect(res.statusCode).toBe(503)
      expect(res.json()).toEqual({ status: 'unavailable', redis: 'down' })
    } finally {
      redis.disconnect()
      await app.close().catch(() => {})
    }
  })
})
