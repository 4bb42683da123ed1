import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MESSAGE_EVENT, plainTextEvent, readDelivery } from '../../src/chat/inbound.ts'

// A single message event is read without zod when it is a plain text message (plainTextEvent), through the schema
// otherwise; a batch's items always go through the schema. The same event as a batch's one item is therefore the
// oracle: whatever the body, the single read answers what the schema answers.

const OURS = '100000000000001'
const phoneish = fc.oneof(
  fc.constantFrom('5491100000001', '+5491100000001', ' 34600111222 ', '123456', '12345', '1234567890123456', '+', 'abc', ''),
  fc.string({ maxLength: 18 }), fc.integer(), fc.constant(null)
)
const text = fc.oneof(
  fc.record({ body: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom(' hola ', 'x'.repeat(4096), 'x'.repeat(4097)), fc.integer()), lang: fc.string() },
    { requiredKeys: [] }),
  fc.constant(null), fc.string(), fc.array(fc.string(), { maxLength: 1 })
)
const message = fc.record({
  id: fc.oneof(fc.constantFrom('', 'a', 'x'.repeat(256), 'x'.repeat(257)), fc.string({ maxLength: 12 }), fc.integer()),
  from: phoneish,
  from_user_id: fc.constantFrom('AR.abc123', 'x', 5),
  type: fc.constantFrom('text', 'interactive', 'button', 'image', '', 5),
  text,
  interactive: fc.record({
    type: fc.constantFrom('button_reply', 'list_reply', 'x'),
    button_reply: fc.record({ id: fc.string({ minLength: 1 }), title: fc.string() }),
  }),
  button: fc.record({ payload: fc.string({ maxLength: 5 }), text: fc.string({ maxLength: 5 }) }),
  context: fc.jsonValue({ maxDepth: 2 }),
}, { requiredKeys: [] })
const conversation = fc.oneof(
  fc.constant(null), fc.string({ maxLength: 4 }), fc.array(fc.string(), { maxLength: 1 }),
  fc.record({
    id: fc.oneof(fc.string({ maxLength: 6 }), fc.integer()),
    phone_number: phoneish,
    business_scoped_user_id: fc.constantFrom('AR.abc123', 'bad', 7),
    username: fc.oneof(fc.string({ maxLength: 6 }), fc.integer()),
  }, { requiredKeys: [] })
)
const event = fc.record({
  type: fc.oneof(fc.constant(MESSAGE_EVENT), fc.integer()),
  message: fc.oneof(message, fc.constant(null), fc.string({ maxLength: 4 })),
  conversation,
  phone_number_id: fc.oneof(fc.constantFrom(OURS, '999'), fc.integer()),
  extra: fc.jsonValue({ maxDepth: 2 }),
}, { requiredKeys: [] })

const digits = fc.stringMatching(/^\+?\d{6,15}$/)
/** What the provider sends nearly always: a text from a phone, the phone perhaps in the conversation too. */
const common = fc.record({
  message: fc.record({
    id: fc.string({ minLength: 1, maxLength: 256 }), from: digits, type: fc.constant('text'), text: fc.record({ body: fc.string({ maxLength: 200 }) }),
  }),
  conversation: fc.record({ phone_number: digits }, { requiredKeys: [] }),
  phone_number_id: fc.constantFrom(OURS, '999'),
}, { requiredKeys: ['message'] })

function readsAsTheSchema (body: unknown): void {
  const single = readDelivery(body, 7, MESSAGE_EVENT, OURS)
  const viaSchema = readDelivery({ batch: true, data: [body] }, 7, MESSAGE_EVENT, OURS)
  if (!viaSchema.ok) throw new Error('a batch of one item is always read')
  if (single.ok) {
    expect(single.messages).toEqual(viaSchema.messages)
    expect([single.foreign, single.skipped]).toEqual([viaSchema.foreign, viaSchema.skipped])
  } else {
    expect([viaSchema.messages, viaSchema.skipped]).toEqual([[], 1])
  }
}

describe('reading a single message event', () => {
  it('property: whatever the body, the same messages as the schema reads (or the same refusal)', () => {
    fc.assert(fc.property(event, readsAsTheSchema), { numRuns: 2_000 })
  })

  it('property: a plain text message with a few fields changed, read as the schema reads it', () => {
    fc.assert(fc.property(common, message, conversation, event, fc.nat(), (body, m, c, e, pick) => {
      // one change at a time or two: a message field, a conversation field, a top-level field
      const [mKeys, cKeys, eKeys] = [Object.keys(m), typeof c === 'object' && c !== null && !Array.isArray(c) ? Object.keys(c) : [], Object.keys(e)]
      const one = <T extends object>(from: T, keys: string[], n: number) =>
        keys.length === 0 ? {} : { [keys[n % keys.length] as string]: (from as Record<string, unknown>)[keys[n % keys.length] as string] }
      const changed = {
        ...body,
        ...(pick % 3 === 0 ? one(e, eKeys, pick) : {}),
        message: { ...body.message, ...(pick % 3 === 1 ? one(m, mKeys, pick) : {}) },
        ...(pick % 3 === 2 ? { conversation: cKeys.length > 0 ? { ...body.conversation, ...one(c as object, cKeys, pick) } : c } : {}),
      }
      readsAsTheSchema(changed)
    }), { numRuns: 3_000 })
  })

  it('property: a plain text message is read without the schema, as the schema reads it', () => {
    fc.assert(fc.property(common, (body) => {
      expect(plainTextEvent(body)).toBeDefined()
      readsAsTheSchema(body)
    }), { numRuns: 1_000 })
  })

  it('leaves to the schema what the schema would look at: buttons, user ids, usernames, a field of another type', () => {
    const base = { message: { id: 'm1', from: '5491100000001', type: 'text', text: { body: 'hola' } } }
    expect(plainTextEvent(base)).toEqual(base)
    for (const body of [
      { ...base, message: { ...base.message, button: { payload: 'x' } } },
      { ...base, message: { ...base.message, from_user_id: 'AR.abc123' } },
      { ...base, conversation: { username: 'ana' } },
      { ...base, conversation: { business_scoped_user_id: 'AR.abc123' } },
      { ...base, phone_number_id: 5 },
      { ...base, message: { ...base.message, from: '12' } },
      { ...base, message: { ...base.message, type: 'image' } },
    ]) expect(plainTextEvent(body)).toBeUndefined()
  })
})
