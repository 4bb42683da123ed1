import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import { messageBody, newPhone, outbox, postWebhook } from '../chat/support.ts'

// Issue 25, item 7: a signed message for another business number (phone_number_id not ours) was answered as if
// it were ours. It is acknowledged (the provider must not resend it), dropped, and counted in /metrics.

describe('a signed message for another business number is acknowledged, dropped and counted', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp() })
  afterAll(async () => { await t.close() })

  const foreignCount = async (): Promise<number> => {
    const text = (await t.app.inject('/metrics')).body
    return Number(/^club_chat_messages_foreign_number_total (\d+)$/m.exec(text)?.[1] ?? 'NaN')
  }
  const answered = async (phone: string): Promise<number> => {
    await t.app.chatWorker.idle(phone)
    return (await outbox(t, phone)).length
  }

  it('alone: 200, no turn, no reply, counted', async () => {
    const before = await foreignCount()
    const phone = newPhone()
    const res = await postWebhook(t.app, { ...messageBody(phone, { text: 'hola' }), phone_number_id: '999999999999999' })
    expect([res.statusCode, res.json()]).toEqual([200, { success: true }])
    expect(await answered(phone)).toBe(0)
    expect(await foreignCount()).toBe(before + 1)
  })

  it('in a batch beside one of ours: only ours is answered', async () => {
    const before = await foreignCount()
    const [ours, theirs] = [newPhone(), newPhone()]
    const res = await postWebhook(t.app, {
      batch: true, data: [messageBody(ours, { text: 'hola' }), { ...messageBody(theirs, { text: 'hola' }), phone_number_id: '1' }]
    })
    expect(res.statusCode).toBe(200)
    expect(await answered(ours)).toBeGreaterThan(0)
    expect(await answered(theirs)).toBe(0)
    expect(await foreignCount()).toBe(before + 1)
  })
})
