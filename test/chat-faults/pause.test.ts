import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  phones, sleep,
  cleanupLogs, figures, killInstance, load, logTail, seedClubs, settled, startInstance, startProvider, startRedis,
  type Instance, type Provider, type RedisProcess,
} from './harness.ts'

// An instance paused (SIGSTOP) past its lease while it holds phones with replies to send, three times over: the
// other instance takes them over (it sees the paused one stop beating, even when it was reported once while only
// slow: src/chat/store/scripts/heartbeat-1.lua) and delivers; once resumed (SIGCONT), the paused one sends nothing
// for the phones it lost, as its sends are fenced by the lease like its commits, up to the socket, and reads the
// answers already on its sockets before its overdue send timeouts fire (src/chat/outbound/provider-client.ts).
// The replies whose request A wrote before the pause are sent again by B, with their ids: A could not record them
// (at least once, recognisable by the provider).

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

  it('paused and resumed three times, it re-sends nothing the other instance delivered meanwhile', async () => {
    const rows: string[] = []
    for (let cycle = 0; cycle < 3; cycle++) {
      const group = phones(20)
      const accepted = new Map<string, number>()
      // slow sends: the phones' replies queue up in A's hands (messages go to A only)
      provider.delayMs = 250
      await load(() => [a], group, 4, 10, accepted)
      const before = provider.received.length
      a.child.kill('SIGSTOP')
      try {
        // past the lease (2 s) and A's absence from the heartbeat (3 s): B sweeps and takes A's phones over. Stopped
        // for less, A still holds them: a send of its own that timed out meanwhile is rightly sent again, same id
        provider.delayMs = 0
        await Promise.all([settled(group, 4, accepted, provider, 30_000), sleep(6_000)])
      } finally {
        a.child.kill('SIGCONT')
      }
      const delivered = new Set(provider.received.map((r) => r.key))
      const resumedAt = provider.received.length
      // A's timers and in-flight work run out now
      await sleep(4_000)
      const logs = [a, b].map((i) => `--- ${i.name}\n${logTail(i)}`).join('\n')
      const resent = provider.received.slice(resumedAt).filter((r) => delivered.has(r.key))
      const f = await figures(redis.url, group, 4, accepted, provider)
      rows.push(
        `cycle ${cycle + 1}: B delivered ${resumedAt - before} while A was stopped; after SIGCONT ${provider.received.length - resumedAt} ` +
          `more, ${resent.length} of them re-sent; ${JSON.stringify(f)}`
      )
      // B delivered something A held (otherwise the case proved nothing)
      expect(resumedAt - before, logs).toBeGreaterThan(0)
      expect(resent, logs).toEqual([])
      expect(f, logs).toMatchObject({ lost: 0, outOfOrder: 0 })
    }
    process.stdout.write(`\nan instance paused past its lease\n${rows.join('\n')}\n`)
  })
})
