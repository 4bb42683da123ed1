import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addressOf } from '../../src/chat/outbound/messages.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { linkCode, messageBody, newPhone, postWebhook, say, startFakeProvider, type FakeProvider } from './support.ts'

// Delivery receipts through the real webhook and a loopback provider: statuses out of order, twice, for unknown
// ids and mixed in a batch with messages; staff see each reply's status; /metrics counts them by status and club.

describe('delivery receipts', () => {
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

  const linked = async () => {
    const phone = newPhone()
    const token = await t.token('member', ['club-norte'], { sub: 'cus_bruno', name: 'Bruno', email: 'bruno@example.com' })
    await say(t, phone, {
      text: `LINK-${await linkCode(t, { customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', tenantId: 'club-norte', token })}`
    })
    return phone
  }
  const status = (phone: string, messageId: string, s: string, timestamp: number, errors?: unknown[]) =>
    ({
      message: { id: messageId, status: s, timestamp: String(timestamp), ...(errors ? { errors } : {}) },
      conversation: { phone_number: phone },
      phone_number_id: '100000000000001'
    })
  const settled = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 100 && !await check(); i++) await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const history = async (phone: string) => {
    const res = await t.app.inject({
      url: `/api/chat/conversations/${phone}/messages?limit=50`, headers: await t.auth('admin', 'club-norte', { sub: 'user_admin_norte' })
    })
    expect(res.statusCode).toBe(200)
    return res.json().messages as Array<{
      id: string, direction: string, delivery?: { status: string, at?: string, failure?: { code?: number, reason: string } }
    }>
  }
  const metric = async (line: RegExp) => {
    const text = (await t.app.inject({ url: '/metrics' })).body
    return text.split('\n').filter((l) => line.test(l)).map((l) => Number(l.split(' ').at(-1))).reduce((a, b) => a + b, 0)
  }

  it('keeps the furthest status whatever the order, a failure beside a later delivery, and shows both to staff', async () => {
    const phone = await linked()
    const [first, second] = provider.calls.filter((c) => addressOf(c.body) === phone).map((c) => c.messageId)
    expect(first).toBeDefined()
    expect(second).toBeDefined()
    const out = (await history(phone)).filter((m) => m.direction === 'out')
    expect(out.length).toBeGreaterThan(0)
    expect(out.every((m) => m.delivery?.status === 'accepted')).toBe(true)

    // read before delivered; failed then delivered; each twice
    for (const body of [
      status(phone, first!, 'read', 1_700_000_020), status(phone, first!, 'delivered', 1_700_000_010), status(phone, first!, 'read', 1_700_000_020),
    ]) expect((await postWebhook(t.app, body, { event: `chat.message.${body.message.status}` })).statusCode).toBe(200)
    const failedEvent = status(phone, second!, 'failed', 1_700_000_011, [{ code: 131026, title: 'Message undeliverable' }])
    expect((await postWebhook(t.app, failedEvent, { event: 'chat.message.failed' })).statusCode).toBe(200)
    expect((await postWebhook(t.app, status(phone, second!, 'delivered', 1_700_000_030), { event: 'chat.message.delivered' })).statusCode).toBe(200)

    await settled(async () => (await history(phone)).some((m) => m.delivery?.status === 'read'))
    const shown = new Map((await history(phone)).map((m) => [m.id, m.delivery]))
    const replyIds = (await history(phone)).filter((m) => m.direction === 'out').map((m) => m.id).reverse()
    expect(shown.get(replyIds[0]!)).toEqual({ status: 'read', at: new Date(1_700_000_020_000).toISOString() })
    expect(shown.get(replyIds[1]!)).toEqual({
      status: 'delivered',
      at: new Date(1_700_000_030_000).toISOString(),
      failure: { at: new Date(1_700_000_011_000).toISOString(), code: 131026, reason: 'Message undeliverable' },
    })
    expect(await metric(/^club_chat_reply_statuses_total\{.*status="read".*club="club-norte"/)).toBeGreaterThanOrEqual(1)
  })

  it('counts and drops status events of unknown ids, and takes a batch mixing messages and statuses', async () => {
    const phone = await linked()
    const unknownBefore = await metric(/^club_chat_reply_statuses_unknown_total/)
    const known = provider.calls.filter((c) => addressOf(c.body) === phone).at(-1)!.messageId
    const before = provider.calls.filter((c) => addressOf(c.body) === phone).length
    const batch = {
      type: 'chat.message.received',
      batch: true,
      data: [
        { type: 'chat.message.delivered', ...status(phone, 'wamid.never-sent', 'delivered', 1_700_000_001) },
        { type: 'chat.message.read', ...status(phone, known, 'read', 1_700_000_002) },
        messageBody(phone, { text: 'menu' }),
      ],
    }
    expect((await postWebhook(t.app, batch, { event: 'chat.message.received' })).statusCode).toBe(200)
    await t.app.chatWorker.idle(phone)
    expect(provider.calls.filter((c) => addressOf(c.body) === phone).length).toBeGreaterThan(before)
    await settled(async () => await metric(/^club_chat_reply_statuses_unknown_total/) > unknownBefore)
    expect(await metric(/^club_chat_reply_statuses_unknown_total/)).toBe(unknownBefore + 1)
    expect(
      (await postWebhook(t.app, status(phone, 'wamid.also-unknown', 'failed', 1_700_000_003, [{
        code: 131026, title: 'x'
      }]), { event: 'chat.message.failed' })).statusCode
    ).toBe(200)
    await settled(async () => await metric(/^club_chat_reply_statuses_unknown_total/) > unknownBefore + 1)
    expect(await metric(/^club_chat_reply_statuses_unknown_total/)).toBe(unknownBefore + 2)
  })

  it('reads the provider\'s v2 extension: the status and the raw history of a message', async () => {
    const phone = await linked()
    const id = provider.calls.filter((c) => addressOf(c.body) === phone).at(-1)!.messageId
    const body = {
      message: { id, kapso: { direction: 'outbound', status: 'delivered', statuses: [{ id, status: 'read', timestamp: '1700000040' }] } },
      conversation: { phone_number: phone },
    }
    expect((await postWebhook(t.app, body, { event: 'chat.message.delivered' })).statusCode).toBe(200)
    await settled(async () => (await history(phone)).some((m) => m.delivery?.status === 'read'))
    expect((await history(phone)).find((m) => m.direction === 'out')?.delivery?.status).toBe('read')
  })
})
