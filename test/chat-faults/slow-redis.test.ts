import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRedisProxy, type RedisProxy } from '../../bench/redis-proxy.ts'
import {
  phones, sleep,
  cleanupLogs, failures, figures, killInstance, load, logTail, seedClubs, settled, startInstance, startProvider, startRedis,
  type Instance, type Provider, type RedisProcess,
} from './harness.ts'

// A slow Redis: two instances reach their redis-server through a TCP proxy that delays every burst of bytes on its
// way to Redis by 500 ms to 1 s, for a while, as members write. Leases run out while their holders still work;
// a slow Redis delays turns and sends, it never buries a message that never failed, and once it is fast again
// every message is answered, once.

const SLOW_MS = 60_000

describe('a slow Redis (real processes, 500 ms to 1 s of added latency each way, held one hold after another)', { timeout: 180_000 }, () => {
  let redis: RedisProcess
  let proxy: RedisProxy
  let provider: Provider
  let instances: Instance[] = []

  beforeAll(async () => {
    redis = await startRedis()
    provider = await startProvider()
    await seedClubs(redis.url)
    proxy = await startRedisProxy({ host: '127.0.0.1', port: redis.port })
    instances = await Promise.all(['slow-a', 'slow-b'].map(async (name) => await startInstance(name, proxy.url, provider.url)))
  }, 120_000)

  afterAll(async () => {
    await Promise.all(instances.map(async (i) => await killInstance(i, 'SIGKILL')))
    await proxy?.close()
    await provider?.close()
    await redis?.stop()
    cleanupLogs()
  })

  it('nothing is dead-lettered, and every message is answered once when it is fast again', async () => {
    const group = phones(50)
    const accepted = new Map<string, number>()
    proxy.latency = { minMs: 500, maxMs: 1_000 }
    const slowUntil = Date.now() + SLOW_MS
    // 50 phones, 2 messages each, a second apart, all while Redis is slow
    await load(() => instances, group, 2, 1_000, accepted)
    await sleep(Math.max(0, slowUntil - Date.now()))
    const duringSlow = provider.received.filter((r) => group.includes(r.phone)).length
    proxy.latency = undefined
    await settled(group, 2, accepted, provider, 90_000)
    const f = await figures(redis.url, group, 2, accepted, provider)
    const dead = await failures(redis.url)
    const lostLeases = instances.map((i) => (logTail(i).match(/lost-lease|lease-lost/g) ?? []).length)
    process.stdout.write(`\nslow Redis for ${SLOW_MS / 1000} s: ${JSON.stringify(f)}; dead letters ${dead.deadLetters}; ` +
      `replies while slow ${duringSlow}; lease-lost lines in the logs' tails ${lostLeases.join(', ')}\n`)
    const logs = instances.map((i) => `--- ${i.name}\n${logTail(i)}`).join('\n')
    expect(dead.deadLetters, logs).toBe(0)
    expect(f.accepted, logs).toBe(f.sent)
    expect(f, logs).toMatchObject({ lost: 0, duplicated: 0, outOfOrder: 0, resent: 0 })
    expect(f.applied).toBe(f.accepted)
    expect(f.delivered).toBe(f.accepted)
  })
})
