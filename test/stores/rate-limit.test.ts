import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import rateLimitPlugin from '../../src/plugins/rate-limit.ts'
import redisPlugin from '../../src/plugins/redis.ts'
import { keys } from '../../src/stores/keys.ts'
import { testRedis } from '../helper.ts'

// The request counters on Redis: the plugin's own RedisStore on the service's shared client, keyed under our namespace.
describe('the rate limit\'s counters on Redis', () => {
  let app: FastifyInstance
  let redis: Awaited<ReturnType<typeof testRedis>>
  beforeAll(async () => {
    redis = await testRedis()
    app = Fastify()
    await app.register(redisPlugin, { url: undefined, keyPrefix: '', client: redis.redis })
    await app.register(rateLimitPlugin, { max: 2, windowMs: 60_000 })
    app.get('/shared', async () => 'ok')
    app.get('/own', { config: { rateLimit: { max: 1, timeWindow: 30_000 } } }, async () => 'ok')
    await app.ready()
  })
  afterAll(async () => {
    await app.close()
    await redis.cleanup()
  })

  const codes = async (url: string, times: number): Promise<number[]> =>
    await Promise.all(Array.from({ length: times }, async () => (await app.inject(url)).statusCode))

  it('refuses past the limit within the window, the counter keyed by the caller under the namespace', async () => {
    expect((await codes('/shared', 3)).sort()).toEqual([200, 200, 429])
    const key = `${keys.rateLimit()}127.0.0.1`
    expect(await redis.redis.get(key)).toBe('3')
    const ttl = await redis.redis.pttl(key)
    expect(ttl).toBeGreaterThan(50_000)
    expect(ttl).toBeLessThanOrEqual(60_000)
    const refused = await app.inject('/shared')
    expect(Number(refused.headers['retry-after'])).toBe(Math.ceil(ttl / 1000))
  })

  it('counts a route with limits of its own apart, under its method and path', async () => {
    expect((await codes('/own', 2)).sort()).toEqual([200, 429])
    const key = `${keys.rateLimit()}GET/own-127.0.0.1`
    expect(await redis.redis.get(key)).toBe('2')
    expect(await redis.redis.pttl(key)).toBeLessThanOrEqual(30_000)
  })
})
