import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import { messageBody, newPhone, outbox, postWebhook, textOf } from './support.ts'

// The webhook through the real app: signature first, then de-duplication, then the mailbox; the bot answers after.

describe.each(['redis', 'cluster', 'memory'] as const)('chat webhook (%s)', (store) => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store }) })
  afterAll(async () => { await t.close() })

  const settled = async (phone: string) => {
    await t.app.chatWorker.idle(phone)
    return await outbox(t, phone)
  }
  // Nothing was queued for the phone: a message accepted after the refused ones runs in the same mailbox, in order,
  // so once it is answered anything queued before it would have been answered too; its welcome is all there is.
  const nothingHappened = async (phone: string) => {
    const probe = await postWebhook(t.app, messageBody(phone, { text: 'hola' }), { key: randomUUID() })
    expect(probe.statusCode).toBe(200)
    const replies = await settled(phone)
    expect(replies).toHaveLength(1)
    expect(textOf(replies[0]!.body)).toMatch(/vincul/)
  }

  it('answers a signed text message with the welcome', async () => {
    const phone = newPhone()
    const res = await postWebhook(t.app, messageBody(phone, { text: 'hola' }), { key: randomUUID() })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ success: true })
    const replies = await settled(phone)
    expect(replies).toHaveLength(1)
    expect(textOf(replies[0]!.body)).toMatch(/vincul/)
  })

  it('refuses a bad or missing signature with 401 in the envelope, and changes nothing', async () => {
    const phone = newPhone()
    const bad = await postWebhook(t.app, messageBody(phone, { text: 'hola' }), { signature: 'ab'.repeat(32) })
    expect(bad.statusCode).toBe(401)
    expect(bad.json().error.code).toBe('UNAUTHORIZED')
    const wrongKey = await postWebhook(t.app, messageBody(phone, { text: 'hola' }), { secret: 'another-secret-0123456789abcdef' })
    expect(wrongKey.statusCode).toBe(401)
    const missing = await t.app.inject({
      method: 'POST', url: '/api/chat/webhook', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(messageBody(phone, { text: 'hola' }))
    })
    expect(missing.statusCode).toBe(401)
    expect(missing.body).not.toContain('test-webhook-secret')
    await nothingHappened(phone)
  })

  it('checks the signature before parsing: malformed JSON with a bad signature is 401, not 400', async () => {
    const res = await postWebhook(t.app, '{"message":', { signature: '00'.repeat(32) })
    expect(res.statusCode).toBe(401)
  })

  it('a malformed body with a valid signature is 400 in the envelope, and changes nothing', async () => {
    const phone = newPhone()
    const notJson = await postWebhook(t.app, '{"message":')
    expect(notJson.statusCode).toBe(400)
    expect(notJson.json().error.code).toBe('INVALID_REQUEST')
    const noPhone = await postWebhook(t.app, { message: { id: 'm1', type: 'text', text: { body: 'hola' } } })
    expect(noPhone.statusCode).toBe(400)
    expect(noPhone.json().error).toMatchObject({ code: 'VALIDATION_ERROR' })
    expect(noPhone.json().error.details.errors).toHaveProperty(['message.from'])
    const noText = await postWebhook(t.app, { message: { id: 'm2', from: phone, type: 'text' } })
    expect(noText.statusCode).toBe(400)
    expect(noText.json().error.details.errors).toHaveProperty(['message.text'])
    await nothingHappened(phone)
  })

  it('acknowledges and ignores other events', async () => {
    const phone = newPhone()
    const res = await postWebhook(t.app, messageBody(phone, { text: 'hola' }), { event: 'chat.message.status' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ success: true })
    await nothingHappened(phone)
  })

  it('falls back to conversation.phone_number and ignores extra provider fields', async () => {
    const phone = newPhone()
    const body = messageBody(phone, { text: 'hola' }) as { message: Record<string, unknown> }
    delete body.message.from
    Object.assign(body, { flow: { id: 'x' }, received_at: '2025-01-01T00:00:00Z' })
    body.message.provider = { raw: true }
    expect((await postWebhook(t.app, body)).statusCode).toBe(200)
    expect(await settled(phone)).toHaveLength(1)
  })

  it('accepts a batch delivery, skipping items it cannot use', async () => {
    const a = newPhone()
    const b = newPhone()
    const body = {
      type: 'chat.message.received', batch: true, data: [messageBody(a, { text: 'hola' }), messageBody(b, { reply: 'link:code' }), { nonsense: true }]
    }
    const res = await postWebhook(t.app, body, { key: randomUUID() })
    expect(res.statusCode).toBe(200)
    expect(await settled(a)).toHaveLength(1)
    const forB = await settled(b)
    expect(textOf(forB[0]!.body)).toMatch(/código/)
  })

  it('processes a message once: the same delivery key, or the same message id under a new key', async () => {
    const phone = newPhone()
    const body = messageBody(phone, { text: 'hola' })
    const key = randomUUID()
    for (const k of [key, key, randomUUID()]) expect((await postWebhook(t.app, body, { key: k })).statusCode).toBe(200)
    expect(await settled(phone)).toHaveLength(1)
  })

  it('concurrent duplicate deliveries give one turn and one reply', async () => {
    const phone = newPhone()
    const body = messageBody(phone, { reply: 'link:code' })
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => postWebhook(t.app, body, { key: i % 2 ? 'same-key' : randomUUID() })))
    expect(answers.map((r) => r.statusCode)).toEqual(Array(8).fill(200))
    expect(await settled(phone)).toHaveLength(1)
  })

  it('tells the member that an image can\'t be seen and what to do instead, and shows the options again', async () => {
    const phone = newPhone()
    await postWebhook(t.app, messageBody(phone, { type: 'image' }))
    const replies = await settled(phone)
    expect(replies).toHaveLength(2)
    expect(textOf(replies[0]!.body)).toMatch(/No puedo ver imágenes/)
    expect(textOf(replies[1]!.body)).toMatch(/vincul/)
  })
})

describe('chat webhook without its store', () => {
  it('answers 503 when Redis is unreachable, so the provider retries', async () => {
    const t = await buildTestApp({ store: 'redis' })
    try {
      t.redis?.disconnect()
      const res = await postWebhook(t.app, messageBody(newPhone(), { text: 'hola' }), { key: randomUUID() })
      expect(res.statusCode).toBe(503)
      expect(res.json().error.code).toBe('SERVICE_UNAVAILABLE')
      expect(res.headers['retry-after']).toBe('10')
    } finally {
      await t.app.close()
    }
  })
})
