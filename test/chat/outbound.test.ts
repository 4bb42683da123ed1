import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Product, Reply } from '../../machines/conversation.types.ts'
import { readDelivery } from '../../src/chat/inbound.ts'
import { sendBody, sendBodyFor, type OutboundMessage } from '../../src/chat/outbound/messages.ts'
import { ProviderClient, retryAfterMs } from '../../src/chat/outbound/provider-client.ts'
import { compose } from '../../src/chat/replies/compose.ts'
import { money } from '../../src/chat/replies/copy.ts'
import { recipientOf } from '../../src/chat/provider/identity.ts'
import type { InboundMessage } from '../../src/chat/inbound.ts'
import type { OutboxEntry } from '../../src/chat/outbound/transport.ts'
import { buildTestApp } from '../helper.ts'
import { startFakeProvider, type FakeProvider } from './support.ts'

// Outbound: provider limits hold for any reply; one send call tells ok, retry (429, 5xx, timeout) and refused apart.

const API_KEY = 'secret-chat-api-key-123'

describe('provider client', () => {
  let fake: FakeProvider
  beforeAll(async () => { fake = await startFakeProvider() })
  afterAll(async () => { await fake.close() })
  const body = sendBodyFor('5491100000001', { type: 'text', text: { body: 'hola' } })
  const entry = (id: string) => ({ id, phone: '5491100000001', tenantId: undefined, at: 0, body })
  const client = () => new ProviderClient({ baseUrl: fake.url, phoneNumberId: '123', apiKey: API_KEY, timeoutMs: 300 })

  it('sends once with the key as Bearer and the entry id as X-Idempotency-Key, and answers the message id the provider gave', async () => {
    const sent = await client().deliver(entry('wamid.1:0'))
    expect(sent).toEqual({ kind: 'ok', messageId: fake.calls.at(-1)?.messageId })
    expect(fake.calls.at(-1)).toMatchObject({ url: '/123/messages', authorization: `Bearer ${API_KEY}`, idempotencyKey: 'wamid.1:0', body })
  })

  it('answers throttled for 429 (with Retry-After), retry for 5xx, refused for other 4xx, never with the key', async () => {
    fake.plan.push({ status: 429, headers: { 'retry-after': '3' } }, { status: 503 }, { status: 400, body: `bad request from Bearer ${API_KEY}` })
    expect(await client().deliver(entry('a'))).toMatchObject({ kind: 'throttled', scope: 'number', retryAfterMs: 3000 })
    expect(await client().deliver(entry('b'))).toMatchObject({ kind: 'retry', retryAfterMs: undefined, reason: expect.stringContaining('503') })
    const refused = await client().deliver(entry('c'))
    expect(refused).toMatchObject({ kind: 'refused', reason: expect.stringContaining('400') })
    expect(JSON.stringify(refused)).not.toContain(API_KEY)
  })

  it('tells the provider\'s throttling codes apart: the number\'s rate, or one recipient\'s pair rate', async () => {
    fake.plan.push(
      { status: 400, body: JSON.stringify({ error: { code: 130429, message: 'Rate limit hit' } }) },
      { status: 400, body: JSON.stringify({ error: { code: 131056, message: 'Pair rate limit hit' } }) },
      { status: 400, body: JSON.stringify({ error: { code: 131026, message: 'Message undeliverable' } }) }
    )
    expect(await client().deliver(entry('e'))).toMatchObject({ kind: 'throttled', scope: 'number', retryAfterMs: undefined })
    expect(await client().deliver(entry('f'))).toMatchObject({ kind: 'throttled', scope: 'phone' })
    expect(await client().deliver(entry('g'))).toMatchObject({ kind: 'refused' })
  })

  it('gives up a call that hangs after its timeout', async () => {
    fake.plan.push({ status: 200, hangMs: 2_000 })
    const started = Date.now()
    expect(await client().deliver(entry('d'))).toMatchObject({ kind: 'retry', reason: 'no answer within 300 ms' })
    expect(Date.now() - started).toBeLessThan(1_500)
  })

  it('is cut short by its signal (shutdown): a call in flight answers retry before its timeout, one whose signal was aborted writes nothing', async () => {
    fake.plan.push({ status: 200, hangMs: 2_000 })
    const stopping = new AbortController()
    const before = fake.attempts
    const inFlight = client().deliver(entry('s:0'), stopping.signal)
    while (fake.attempts === before) await new Promise((resolve) => setTimeout(resolve, 5))
    stopping.abort()
    const cut = await inFlight
    expect(cut.kind).toBe('retry')
    expect(cut.kind === 'retry' && cut.reason).not.toContain('no answer within')
    expect(await client().deliver(entry('s:1'), stopping.signal)).toMatchObject({ kind: 'retry' })
    expect(fake.attempts).toBe(before + 1)
  })

  it('reads Retry-After in seconds or as a date', () => {
    expect(retryAfterMs('2')).toBe(2000)
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000)
    expect(retryAfterMs('soon')).toBeUndefined()
    expect(retryAfterMs(undefined)).toBeUndefined()
  })
})

const titleArb = fc.string({ minLength: 1, maxLength: 120 })
const productArb: fc.Arbitrary<Product> = fc.record({
  id: fc.uuid(),
  title: titleArb,
  variants: fc.array(fc.record({ id: fc.uuid(), title: titleArb, price: fc.integer({ min: 0, max: 10_000_000 }), stock: fc.nat(500) }), {
    minLength: 1, maxLength: 14
  }),
})
const lineArb = fc.record({
  variantId: fc.uuid(), productId: fc.uuid(), title: titleArb, quantity: fc.integer({ min: 1, max: 99 }), unitPrice: fc.nat(1_000_000)
})
const replyArb: fc.Arbitrary<Reply> = fc.oneof(
  fc.record({ id: fc.constant('products' as const), products: fc.array(productArb, { maxLength: 14 }), offset: fc.nat(100), count: fc.nat(200) }),
  productArb.map((product) => ({ id: 'variants' as const, product })),
  fc.record({ id: fc.constant('cart' as const), items: fc.array(lineArb, { maxLength: 60 }) }),
  fc.record({ id: fc.constant('summary' as const), items: fc.array(lineArb, { maxLength: 60 }) }),
  fc.record({ id: fc.constant('clubs' as const), clubs: fc.array(fc.record({ id: fc.uuid(), name: titleArb }), { maxLength: 14 }) }),
  fc.record({ id: fc.constant('greeting' as const), name: fc.string({ maxLength: 5000 }) }),
  fc.record({
    id: fc.constant('menu' as const),
    clubName: fc.string({ maxLength: 2000 }),
    items: fc.subarray(['browse', 'cart', 'orders', 'notifications', 'crops', 'switch-club', 'unlink'] as const)
  })
)

describe('reply composer', () => {
  it('never breaks a provider limit, whatever the data (es and en)', () => {
    fc.assert(fc.property(replyArb, fc.constantFrom('es' as const, 'en' as const), (reply, locale) => {
      for (const message of compose(reply, { locale, currency: 'ARS' })) {
        expect(() => sendBodyFor('5491100000001', message)).not.toThrow()
      }
    }), { numRuns: 300 })
  })

  it('a body for an address is what the whole schema answers, or refused as it refuses it (property)', () => {
    const addressArb = fc.oneof(fc.constantFrom('5491100000001', 'AR.123abc', 'AR.ENT.x9', '12345', 'ar.1', ''), fc.string({ maxLength: 20 }))
    const messages = fc.oneof(
      fc.tuple(replyArb, fc.constantFrom('es' as const, 'en' as const))
        .chain(([reply, locale]) => fc.constantFrom(...compose(reply, { locale, currency: 'ARS' }))),
      fc.record({ type: fc.constant('text' as const), text: fc.record({ body: fc.string({ maxLength: 4100 }) }) }),
      fc.jsonValue().map((v) => v as unknown as OutboundMessage)
    )
    fc.assert(fc.property(addressArb, messages, (address, message) => {
      const whole = sendBody.safeParse({ messaging_product: 'whatsapp', recipient_type: 'individual', ...recipientOf(address), ...message })
      if (whole.success) expect(JSON.stringify(sendBodyFor(address, message))).toBe(JSON.stringify(whole.data))
      else expect(() => sendBodyFor(address, message)).toThrow()
    }), { numRuns: 500 })
  })

  it('a turn records its replies as the outbox holds them: the record of the entries as made is the record of their JSON (property)', async () => {
    const t = await buildTestApp({ store: 'memory' })
    try {
      const message: InboundMessage = { id: 'wamid.1', phone: '5491100000001', receivedAt: 1_000, input: { kind: 'reply', id: 'menu:browse', title: 'Ver' } }
      fc.assert(fc.property(fc.array(fc.tuple(replyArb, fc.constantFrom('es' as const, 'en' as const)), { maxLength: 3 }), (said) => {
        const entries: OutboxEntry[] = said.flatMap(([reply, locale]) => compose(reply, { locale, currency: 'ARS' }))
          .map((m, i) => ({ id: `wamid.1:${i}`, phone: message.phone, tenantId: 'club-norte', at: 2_000, body: sendBodyFor(message.phone, m) }))
        const stored = entries.map((e) => JSON.parse(JSON.stringify(e)) as OutboxEntry)
        const record = t.app.chatInbox.turnRecord(message, 'club-norte', entries)
        expect(record).toStrictEqual(t.app.chatInbox.turnRecord(message, 'club-norte', stored))
        expect(record?.messages.map((m) => m.id)).toEqual(['wamid.1', ...entries.map((e) => e.id)])
      }), { numRuns: 200 })
    } finally {
      await t.close()
    }
  })

  it('formats money for the club (es-AR, en)', () => {
    const [es] = compose({ id: 'orderPlaced', displayId: '7', total: 1234.5 }, { locale: 'es', currency: 'ARS' })
    const [en] = compose({ id: 'orderPlaced', displayId: '7', total: 1234.5 }, { locale: 'en', currency: 'USD' })
    expect(es).toMatchObject({ type: 'text', text: { body: expect.stringMatching(/\$\s?1\.234,50/) } })
    expect(en).toMatchObject({ type: 'text', text: { body: expect.stringContaining('$1,234.50') } })
  })

  it('writes each amount as Intl does, whether written afresh or kept, 0 and -0 apart (property)', () => {
    const written = (amount: number, currency: string, locale: 'es' | 'en') =>
      new Intl.NumberFormat(locale === 'es' ? 'es-AR' : 'en', { style: 'currency', currency }).format(amount)
    const amounts = fc.oneof(fc.double(), fc.integer({ min: -1_000_000, max: 100_000_000 }), fc.constantFrom(0, -0, 6500, 13_000.5))
    fc.assert(fc.property(amounts, fc.constantFrom('ARS', 'USD', 'EUR'), fc.constantFrom('es' as const, 'en' as const), (amount, currency, locale) => {
      expect(money(amount, currency, locale)).toBe(written(amount, currency, locale))
      expect(money(amount, currency, locale)).toBe(written(amount, currency, locale))
    }), { numRuns: 2_000 })
    expect(money(-0, 'USD', 'en')).not.toBe(money(0, 'USD', 'en'))
    // more amounts than are kept: the oldest go, and every answer is still Intl's
    for (let i = 1; i <= 5_000; i++) expect(money(i / 4, 'ARS', 'es')).toBe(written(i / 4, 'ARS', 'es'))
    expect(money(0.25, 'ARS', 'es')).toBe(written(0.25, 'ARS', 'es'))
  })

  it('shows the club\'s pickup address and hours with the order summary, when the club has set them', () => {
    const summary: Reply = { id: 'summary', items: [] }
    const pickup = { address: 'Av. Cabildo 1200', hours: 'Lun a vie 14 a 20' }
    const body = (voice: Parameters<typeof compose>[1]) => JSON.stringify(compose(summary, voice))
    expect(body({ locale: 'es', currency: 'ARS', pickup })).toContain('Retirás en Av. Cabildo 1200 (Lun a vie 14 a 20).')
    expect(body({ locale: 'en', currency: 'ARS', pickup })).toContain('Pick it up at Av. Cabildo 1200 (Lun a vie 14 a 20).')
    expect(body({ locale: 'es', currency: 'ARS' })).not.toContain('Retirás en')
  })
})

describe('webhook body parser', () => {
  it('never throws on any JSON, and what it accepts has a phone and an input', () => {
    const messageish = fc.record({
      message: fc.record(
        {
          id: fc.string(),
          from: fc.oneof(fc.string(), fc.constant('5491100000001')),
          type: fc.constantFrom('text', 'interactive', 'button', 'image', ''),
          text: fc.option(fc.record({ body: fc.string() }))
        },
        { requiredKeys: [] }
      ),
      conversation: fc.option(fc.record({ phone_number: fc.string() })),
    }, { requiredKeys: [] })
    fc.assert(fc.property(fc.oneof(fc.jsonValue(), messageish, fc.record({ batch: fc.constant(true), data: fc.array(messageish) })), (body) => {
      const delivery = readDelivery(body, 1)
      if (!delivery.ok) return
      for (const m of delivery.messages) {
        expect(m.phone).toMatch(/^\d{6,15}$/)
        expect(['text', 'reply', 'unsupported']).toContain(m.input.kind)
      }
    }), { numRuns: 500 })
  })
})
