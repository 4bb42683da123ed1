import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { keys } from '../../src/stores/keys.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { linkCode, newPhone, say, startFakeProvider, textOf, type FakeProvider } from './support.ts'

// A request for a person nobody takes is handed back at its deadline, by a timer set for it, not by a check
// every second: an idle instance sends Redis nothing but its heartbeat (counted with MONITOR on the test Redis,
// the commands of this app's connections, those its scripts ran left out).

interface Seen { args: string[], source: string }

describe('handoff time-outs at their deadline (redis, MONITOR)', () => {
  let provider: FakeProvider
  let t: TestApp
  let monitor: Redis
  let seen: Seen[] | undefined
  beforeAll(async () => {
    provider = await startFakeProvider()
    t = await buildTestApp({ store: 'redis', env: { CHAT_API_BASE_URL: provider.url, CHAT_HANDOFF_TIMEOUT_MS: '1000' } })
    monitor = await new Redis(inject('redisUrl')).monitor()
    monitor.on('monitor', (_time: string, args: string[], source: string) => { seen?.push({ args, source }) })
  })
  afterAll(async () => {
    monitor.disconnect()
    await t.close()
    await provider.close()
  })

  /** What this app's connections sent Redis over `ms` (its connections: those that named one of its keys). */
  const sentOver = async (ms: number): Promise<Seen[]> => {
    seen = []
    await new Promise((resolve) => setTimeout(resolve, ms))
    const got = seen.filter((s) => s.source !== 'lua')
    seen = undefined
    const prefix = t.config.redisKeyPrefix
    const ours = new Set(got.filter((s) => s.args.some((a) => a.startsWith(prefix))).map((s) => s.source))
    return got.filter((s) => ours.has(s.source))
  }

  it('an idle instance sends nothing but its heartbeat', async () => {
    // the start's sweep and deadline reads are over by then
    await new Promise((resolve) => setTimeout(resolve, 500))
    const sent = await sentOver(3_500)
    const heartbeats = sent.filter((s) => s.args.includes(t.config.redisKeyPrefix + keys.chat.instances()))
    expect(heartbeats.length).toBeGreaterThanOrEqual(3)
    expect(sent.filter((s) => !heartbeats.includes(s)).map((s) => s.args.slice(0, 2).join(' '))).toEqual([])
  })

  it('a request nobody takes is handed back with the apology at its deadline, the member silent meanwhile', async () => {
    const phone = newPhone()
    const token = await t.token('member', ['club-norte'], { sub: 'cus_bruno', name: 'Bruno', email: 'bruno@example.com' })
    await say(t, phone, {
      text: `LINK-${await linkCode(t, { customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', tenantId: 'club-norte', token })}`
    })
    await say(t, phone, { text: 'quiero hablar con una persona' })
    const asked = Date.now()
    expect(textOf(provider.to(phone).at(-1)!)).toMatch(/^Listo, le avisamos/)
    for (let i = 0; i < 100 && !/^Perdón, nadie del club/.test(textOf(provider.to(phone).at(-1)!)); i++) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(textOf(provider.to(phone).at(-1)!)).toMatch(/^Perdón, nadie del club pudo responder a tiempo/)
    // the timeout is 1 s: handed back at it, not at the next of a check's rounds
    expect(Date.now() - asked).toBeLessThan(2_000)
    const list = await t.app.inject({
      url: '/api/chat/conversations?needsPerson=true', headers: await t.auth('admin', 'club-norte', { sub: 'user_admin_norte' })
    })
    expect(list.json().conversations.map((c: { phone: string }) => c.phone)).not.toContain(phone)
  })
})
