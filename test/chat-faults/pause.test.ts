import { randomInt } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  cleanupLogs, figures, killInstance, load, logTail, seedClubs, settled, startInstance, startProvider, startRedis,
  type Instance, type Provider, type RedisProcess,
} from './harness.ts'

// An instance paused (SIGSTOP) past its lease while it holds phones with replies to send: the other instance
// takes them over (it sees the paused one stop beating) and delivers; once resumed (SIGCONT), the paused one
// sends nothing for the phones it lost, as its sends are fenced by the lease like its commits.

const phones = (n: number): string[] => Array.from({ length: n }, () => `549${randomInt(1e9, 1e10 - 1)}`)
const sleep = async (ms: number) => { await new Promise((resolve) => setTimeout(resolve, ms)) }

describe('an instance paused past its lease (real processes)', { timeout: 120_000 }, () => {
  let redis: RedisProcess
  let provider: Provider
  let a: Instance
  let b: Instance

  beforeAll(async () => {
    redis = await startRedis()
    provider = await startProvider()
    await seedClubs(redis.url)
    ;[a, b] = await Promise.all([startInstance('a', redis.url, provider.url), startInstance('b', redis.url, provider.url)])
  }, 120_000)

  afterAll(async () => {
    for (const i of [a, b]) if (i) i.child.kill('SIGCONT')
    await Promise.all([a, b].filter(Boolean).map(async (i) => await killInstance(i, 'SIGKILL')))
    await provider?.close()
    await redis?.stop()
    cleanupLogs()
  })

  it('resumed, it re-sends nothing the other instance delivered meanwhile', async () => {
    const group = phones(20)
    const accepted = new Map<string, number>()
    // slow sends: the phones' replies queue up in A's hands (messages go to A only)
    provider.delayMs = 250
    await load(() => [a], group, 4, 10, accepted)
    const before = provider.received.length
    a.child.kill('SIGSTOP')
    try {
      // past the lease (2 s) and A's absence from the heartbeat (3 s): B sweeps and takes A's phones over
      provider.delayMs = 0
      await settled(group, 4, accepted, provider, 30_000)
    } finally {
      a.child.kill('SIGCONT')
    }
    const delivered = new Set(provider.received.map((r) => r.key))
    const resumedAt = provider.received.length
    // A's timers and in-flight work run out now
    await sleep(4_000)
    const logs = [a, b].map((i) => `--- ${i.name}\n${logTail(i)}`).join('\n')
    // B delivered something A held (otherwise the case proved nothing)
    expect(resumedAt - before, logs).toBeGreaterThan(0)
    const resent = provider.received.slice(resumedAt).filter((r) => delivered.has(r.key))
    expect(resent, logs).toEqual([])
    const f = await figures(redis.url, group, 4, accepted, provider)
    expect(f, logs).toMatchObject({ lost: 0, outOfOrder: 0 })
  })
})
