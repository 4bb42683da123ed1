import { createHash, createHmac } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { quickMessageEvent, readBySchema, readDelivery } from '../../src/chat/inbound.ts'
import { decodeMail, encodeMail, mail } from '../../src/chat/mail.ts'
import { sendBody, sendBodyFor } from '../../src/chat/outbound/messages.ts'
import { recipientOf } from '../../src/chat/provider/identity.ts'
import { signWebhookBody, verifyWebhookSignature } from '../../src/chat/signature.ts'
import { appliedMark } from '../../src/chat/store/index.ts'

const PHONE = '5491100000001'
/** A field's value: mostly one a provider sends, at times one that breaks a rule, now and then anything at all. */
const some = <T>(good: T[], bad: unknown[] = []) => fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom(...good) },
  ...(bad.length > 0 ? [{ weight: 2, arbitrary: fc.constantFrom(...bad) }] : []),
  { weight: 1, arbitrary: fc.anything() }
)
const reply = fc.record({ id: some(['product:p1', 'b'], ['', 'x'.repeat(257)]), title: some(['Aceite', ''], ['x'.repeat(1025), 5]), extra: fc.anything() },
  { requiredKeys: ['id'] })
const messageEvent = fc.record({
  type: some(['chat.message.received', 'chat.message.read']),
  message: fc.record({
    id: some(['wamid.0d6c3a1e-9b7f', 'x'], ['', 'x'.repeat(257)]),
    from: some([PHONE, ` +${PHONE} `], ['+12', 'abc', '']),
    from_user_id: some(['AR.ENT.abc123', '  AR.xyz ', 'ar.x'], ['', 'x'.repeat(161), '   ']),
    type: some(['text', 'interactive', 'button', 'image', 'audio', 'voice', 'sticker'], ['', 'x'.repeat(65)]),
    text: fc.oneof(some([{ body: ' hola ' }, { body: '' }], [{ body: 'x'.repeat(4097) }, null]), fc.record({ body: fc.string(), more: fc.anything() })),
    interactive: fc.oneof(
      fc.record({ type: some(['button_reply', 'list_reply', 'nfm_reply']), button_reply: reply, list_reply: reply }, { requiredKeys: ['type'] }),
      some([undefined], [null])
    ),
    button: fc.record({ payload: some(['menu:1'], ['', 'x'.repeat(257)]), text: some(['Menú', undefined], ['x'.repeat(1025)]) }, { requiredKeys: ['payload'] }),
    kapso: some([{ transcript: { text: ' dime el menú ' } }, { transcript: 'hola' }, { transcript: '   ' }, null]),
  }, { requiredKeys: ['id', 'type'] }),
  conversation: fc.oneof(fc.record({
    id: some(['c1', undefined]),
    phone_number: some([PHONE, '+34600111222', ' 34600111222 '], ['12']),
    business_scoped_user_id: some(['AR.abc123', 'AR.ENT.xyz', ' ar.abc '], ['']),
    username: some(['ana', '  '], ['x'.repeat(257)]),
  }, { requiredKeys: [] }), some([undefined], [null, []])),
  phone_number_id: some(['1234567890', 'other']),
}, { requiredKeys: ['message'] })

// The turn's hot readers and hashes take shortcuts past zod and Node's stream-shaped crypto objects; each is held
// here to the answer of the longer way, which stays the reference (and, for the readers, the fallback).

describe('quick readers agree with the long way', () => {
  it('an applied mark is the first 12 hex digits of the id\'s SHA-1, as createHash gives them (property)', () => {
    expect(appliedMark('abc')).toBe('a9993e364706')
    expect(appliedMark('a9993e364706')).toBe('a9993e364706')
    fc.assert(fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string(), fc.stringMatching(/^[0-9a-fA-F]{11,13}$/)), (id) => {
      const reference = /^[0-9a-f]{12}$/.test(id) ? id : createHash('sha1').update(id).digest('hex').slice(0, 12)
      expect(appliedMark(id)).toBe(reference)
    }), { numRuns: 1000 })
  })

  it("a message event the quick reader takes is the schema's own reading of it, and everything else goes to the schema (property)", () => {
    let quick = 0
    let read = 0
    fc.assert(fc.property(fc.oneof({ weight: 8, arbitrary: messageEvent }, { weight: 1, arbitrary: fc.anything() }), (body) => {
      const fast = quickMessageEvent(body, 7)
      const bySchema = readBySchema(body, 7)
      if (bySchema.success) read++
      if (fast === undefined) return
      quick++
      expect(bySchema.success).toBe(true)
      expect(fast).toStrictEqual(bySchema.success ? bySchema.data : undefined)
    }), { numRuns: 5000 })
    // not vacuous: the generator reaches the quick reader's answers and the schema's refusals alike
    expect(quick).toBeGreaterThan(300)
    expect(read - quick).toBeLessThan(quick)
  })

  it("the shapes the provider sends are read quickly, and a broken one is refused with the schema's issues", () => {
    const text = { message: { id: 'wamid.1', from: `+${PHONE}`, type: 'text', text: { body: ' hola ' } }, conversation: { phone_number: PHONE } }
    const list = { message: { id: 'wamid.2', from: PHONE, type: 'interactive', interactive: { type: 'list_reply', list_reply: { id: 'product:p1' } } } }
    const voice = { message: { id: 'wamid.3', from_user_id: 'AR.abc123', type: 'audio', kapso: { transcript: { text: ' el menú ' } } } }
    expect(quickMessageEvent(text, 1)?.message).toEqual({ id: 'wamid.1', phone: PHONE, receivedAt: 1, input: { kind: 'text', text: 'hola' } })
    expect(quickMessageEvent(list, 1)?.message.input).toEqual({ kind: 'reply', id: 'product:p1', title: '' })
    expect(quickMessageEvent(voice, 1)?.message).toMatchObject({ phone: 'AR.abc123', input: { kind: 'text', text: 'el menú', voice: true } })
    const broken = { message: { id: 'wamid.4', from: PHONE, type: 'text' } }
    expect(quickMessageEvent(broken, 1)).toBeUndefined()
    const delivery = readDelivery(broken, 1)
    expect(delivery.ok).toBe(false)
    if (!delivery.ok) expect(delivery.error.issues).toEqual([expect.objectContaining({ path: ['message', 'text'], message: 'Required for a text message' })])
  })

  it('a reply\'s body is the one the schema answers, or refused when the schema throws (property)', () => {
    /** a string mostly within `max` (now and then exactly `max`), at times empty, past `max`, of two-unit characters, or no string */
    const text = (max: number) => fc.oneof(
      { weight: 60, arbitrary: fc.string({ minLength: 1, maxLength: max }) },
      { weight: 4, arbitrary: fc.constant('x'.repeat(max)) },
      { weight: 1, arbitrary: fc.constantFrom('', 'x'.repeat(max + 1), '😀'.repeat(Math.ceil(max / 2) + 1)) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: max }) },
      { weight: 1, arbitrary: fc.anything() }
    )
    const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 8, arbitrary: arb }, { weight: 1, arbitrary: fc.constant(undefined) })
    const extra = { extra: fc.anything() }
    const row = fc.record({ id: text(200), title: text(24), description: maybe(text(72)), ...extra }, { requiredKeys: ['id', 'title'] })
    const section = (rows: number) =>
      fc.record({ title: maybe(text(24)), rows: fc.array(row, { minLength: rows > 4 ? 0 : 1, maxLength: rows }), ...extra }, { requiredKeys: ['rows'] })
    const sections = fc.oneof({ weight: 6, arbitrary: fc.array(section(4), { minLength: 1, maxLength: 3 }) }, fc.array(section(11), { maxLength: 11 }))
    const button = fc.record({
      type: fc.oneof({ weight: 12, arbitrary: fc.constant('reply') }, fc.constant('other')),
      reply: fc.record({ id: text(256), title: text(20), ...extra }, { requiredKeys: ['id', 'title'] }),
    })
    const buttons = fc.oneof({ weight: 6, arbitrary: fc.array(button, { minLength: 1, maxLength: 3 }) }, fc.array(button, { maxLength: 4 }))
    const body = fc.record({ text: text(1024), ...extra }, { requiredKeys: ['text'] })
    const textPart = fc.record({ body: text(4096), preview_url: maybe(fc.boolean()), ...extra }, { requiredKeys: ['body'] })
    const message = fc.oneof(
      fc.record({ type: fc.constant('text'), text: textPart, ...extra }, { requiredKeys: ['type', 'text'] }),
      fc.record({ type: fc.constant('interactive'), interactive: fc.record({ type: fc.constant('button'), body, action: fc.record({ buttons }) }) }),
      fc.record({
        type: fc.constant('interactive'),
        interactive: fc.record({ type: fc.constant('list'), body, action: fc.record({ button: text(20), sections, ...extra }) }),
      }),
      fc.record({ type: fc.constantFrom('template', 'interactive'), template: fc.anything(), interactive: fc.anything() }),
      fc.anything()
    )
    const address = fc.constantFrom(PHONE, 'AR.ENT.abc123', 'AR.xyz', '12', 'ar.x', '')
    const sent: Record<string, number> = {}
    fc.assert(fc.property(address, message, (to, m) => {
      let expected: unknown
      try {
        expected = sendBody.parse({ ...(m as object), messaging_product: 'whatsapp', recipient_type: 'individual', ...recipientOf(to) })
      } catch {
        expect(() => sendBodyFor(to, m as never)).toThrow()
        return
      }
      const kind = (m as { interactive?: { type?: string } }).interactive?.type ?? (m as { type: string }).type
      sent[kind] = (sent[kind] ?? 0) + 1
      const body = sendBodyFor(to, m as never)
      expect(body).toStrictEqual(expected)
      expect(JSON.stringify(body)).toBe(JSON.stringify(expected))
    }), { numRuns: 3000 })
    // not vacuous: each kind the quick check takes is sent, and refused, many times
    for (const kind of ['text', 'button', 'list']) expect(sent[kind]).toBeGreaterThan(150)
  })

  it('a mailbox entry reads as the mail schema reads it, keys in its order, and what it refuses stays refused (property)', () => {
    const ordered = (v: unknown): unknown => typeof v === 'object' && v !== null ? Object.entries(v).map(([k, x]) => [k, ordered(x)]) : v
    const some = <T>(good: fc.Arbitrary<T>, ...bad: unknown[]) =>
      fc.oneof({ weight: 30, arbitrary: good }, { weight: 1, arbitrary: fc.constantFrom(...bad, null) }, { weight: 1, arbitrary: fc.jsonValue() })
    const input = fc.oneof(
      fc.record({ kind: fc.constant('text'), text: some(fc.string()), voice: some(fc.constant(true), false) }, { requiredKeys: ['kind', 'text'] }),
      fc.record({ kind: fc.constant('reply'), id: some(fc.string()), title: some(fc.string()), more: fc.jsonValue() },
        { requiredKeys: ['kind', 'id', 'title'] }),
      fc.record({ kind: some(fc.constant('unsupported'), 'image'), messageType: some(fc.string()) }),
      fc.record({ kind: fc.constant('linked'), text: fc.string() }, { requiredKeys: ['kind'] }),
      fc.jsonValue()
    )
    const entry = fc.record({
      id: some(fc.string({ minLength: 1 }), ''),
      phone: some(fc.string({ minLength: 1 }), ''),
      receivedAt: some(fc.double({ noNaN: true, noDefaultInfinity: true }), '5'),
      input,
      extra: fc.jsonValue(),
    }, { requiredKeys: ['id', 'phone', 'receivedAt', 'input'] })
    let read = 0
    fc.assert(fc.property(fc.oneof({ weight: 10, arbitrary: entry.map((e) => JSON.stringify(e)) }, fc.string()), (raw) => {
      let json: unknown
      try {
        json = JSON.parse(raw)
      } catch {
        expect(decodeMail(raw)).toBeUndefined()
        return
      }
      const reference = mail.safeParse(json)
      const decoded = decodeMail(raw)
      if (reference.success) read++
      expect(ordered(decoded)).toStrictEqual(ordered(reference.success ? reference.data : undefined))
    }), { numRuns: 3000 })
    expect(read).toBeGreaterThan(1000)
    const message = { id: 'wamid.1', phone: PHONE, receivedAt: 5, input: { kind: 'text', text: 'hola', voice: true } } as const
    expect(decodeMail(encodeMail(message))).toEqual(message)
  })

  it('a webhook signature is createHmac\'s over the raw bytes with the secret as given, whichever secrets came before (property)', () => {
    const secret = fc.oneof(fc.constantFrom('bench-webhook-secret', 'sé', ''), fc.string({ unit: 'binary', maxLength: 80 }))
    const body = fc.oneof(fc.string({ unit: 'binary' }), fc.uint8Array().map((b) => Buffer.from(b)))
    fc.assert(fc.property(fc.array(secret, { minLength: 1, maxLength: 20 }), body, (secrets, raw) => {
      for (const s of secrets) {
        const expected = createHmac('sha256', s).update(raw).digest('hex')
        expect(signWebhookBody(s, raw)).toBe(expected)
        expect(verifyWebhookSignature(s, raw, `sha256=${expected.toUpperCase()}`)).toBe(true)
      }
      const first = secrets[0] ?? ''
      expect(verifyWebhookSignature(`${first}x`, raw, signWebhookBody(first, raw))).toBe(false)
    }), { numRuns: 300 })
  })
})
