import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import { linkCode, messageBody, newPhone, postWebhook, say, startFakeProvider, type FakeProvider } from './support.ts'

// The provider's error classes at send time, through the real pipeline and a loopback provider: the pair rate
// limit holds that phone alone, a closed window dead-letters a conversational reply with its reason, a permanent
// refusal dead-letters at once.

describe('provider error classes', () => {
  let provider: FakeProvider
  let t: TestApp
  beforeAll(async () => {
    provider = await startFakeProvider()
    t = await buildTestApp({ store: 'redis', env: { CHAT_API_BASE_URL: provider.url } })
  })
  afterAll(async () => {
    await t.close()
    await provider.close()
  })
  const refusal = (code: number) => ({ status: 400, body: JSON.stringify({ error: { code, message: `error ${code}` } }) })

  it('131056 holds that phone about 6 s; another phone is answered meanwhile', async () => {
    const held = newPhone()
    const other = newPhone()
    provider.plan.push(refusal(131056))
    const refusedAt = Date.now()
    expect((await postWebhook(t.app, messageBody(held, { text: 'hola' }))).statusCode).toBe(200)
    for (let i = 0; i < 100 && provider.attempts === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    await say(t, other, { text: 'hola' })
    expect(provider.to(other).length).toBeGreaterThan(0)
    expect(provider.to(held)).toEqual([])
    expect(Date.now() - refusedAt).toBeLessThan(4_000)
    await t.app.chatWorker.idle(held, 15_000)
    expect(provider.to(held).length).toBeGreaterThan(0)
    expect(Date.now() - refusedAt).toBeGreaterThanOrEqual(5_500)
  }, 20_000)

  it('131047 on a conversational reply, and 131026, are dead letters at once with the reason; no retry', async () => {
    const admin = await t.auth('admin', 'club-norte')
    for (const [code, reason] of [[131047, /24-hour window is closed \(131047\)/], [131026, /error 131026/]] as const) {
      const phone = newPhone()
      const token = await t.token('member', ['club-norte'], { sub: 'cus_bruno', name: 'Bruno', email: 'bruno@example.com' })
      await say(t, phone, {
        text: `LINK-${await linkCode(t, { customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', tenantId: 'club-norte', token })}`
      })
      const attempts = provider.attempts
      provider.plan.push(refusal(code))
      await say(t, phone, { text: 'menu' })
      const letters = (await t.app.inject({ url: '/api/chat/dead-letters?limit=200', headers: admin })).json().deadLetters as Array<{
        phone: string, reason: string, tries: number
      }>
      const mine = letters.filter((l) => l.phone === phone)
      expect(mine).toHaveLength(1)
      expect(mine[0]?.reason).toMatch(reason)
      expect(mine[0]?.tries).toBe(1)
      // the refused reply was tried once; the menu's other replies, if any, went on
      expect(provider.attempts - attempts).toBeGreaterThanOrEqual(1)
    }
  })
})
