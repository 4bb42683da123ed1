import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { flowRequestSchema, FORM_SCREENS } from '../../../src/chat/linking/flow-request.ts'
import { parseLinkCode } from '../../../src/chat/linking/link-record.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('link code parser', () => {
  it('accepts a UUID in any case and answers it in lower case', () => {
    expect(parseLinkCode('3F2504E0-4F89-41D3-9A0C-0305E82C3301')).toBe('3f2504e0-4f89-41d3-9a0c-0305e82c3301')
  })

  it('property: UUIDs pass (lower-cased), nothing else does, nothing throws', () => {
    fc.assert(fc.property(fc.uuid(), (uuid) => {
      expect(parseLinkCode(uuid)).toBe(uuid.toLowerCase())
      expect(parseLinkCode(uuid.toUpperCase())).toBe(uuid.toLowerCase())
    }))
    fc.assert(fc.property(fc.oneof(fc.string(), fc.anything()), (input) => {
      const parsed = parseLinkCode(input)
      if (parsed !== undefined) expect(parsed).toMatch(UUID)
      if (typeof input === 'string' && input.length < 10) expect(parsed).toBeUndefined()
    }))
  })

  it('property: a UUID with anything added or cut is refused', () => {
    fc.assert(fc.property(fc.uuid(), fc.string({ minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 35 }), (uuid, extra, cut) => {
      expect(parseLinkCode(uuid + extra)).toBeUndefined()
      expect(parseLinkCode(uuid.slice(cut))).toBeUndefined()
    }))
  })
})

describe('flow endpoint request parser', () => {
  const phone = fc.stringMatching(/^[1-9][0-9]{7,14}$/)
  const action = fc.constantFrom(undefined, 'data_exchange', 'DATA_EXCHANGE', 'INIT', 'init', 'BACK', 'COMPLETE', 'complete')
  const validExchange = fc.record({
    source: fc.string(),
    data_exchange: fc.record({
      version: fc.constantFrom('3.0', undefined),
      screen: fc.constantFrom(...FORM_SCREENS),
      action,
      flow_token: fc.oneof(phone, phone.map((p) => `+${p}`)),
      // Fastify's JSON parser refuses a __proto__ key before any parser of ours sees the body.
      data: fc.dictionary(fc.string().filter((k) => k !== '__proto__'), fc.jsonValue()),
    }),
    signature_valid: fc.boolean(),
  })

  it('property: never throws on any input; whatever it accepts is a ping or a complete exchange', () => {
    fc.assert(fc.property(fc.oneof(fc.anything(), fc.jsonValue(), validExchange.map((v) => ({ ...v, extra: 1 }))), (input) => {
      const result = flowRequestSchema.safeParse(input)
      if (!result.success) {
        expect(result.error.issues.length).toBeGreaterThan(0)
        return
      }
      const r = result.data
      if (r.kind === 'exchange') {
        expect(r.phone).toMatch(/^[1-9][0-9]{5,14}$/)
        expect(typeof r.signatureValid).toBe('boolean')
        if (r.action === 'DATA_EXCHANGE') expect(FORM_SCREENS).toContain(r.screen)
      }
    }))
  })

  it('property: every request of the spec\'s shape is read faithfully', () => {
    fc.assert(fc.property(validExchange, (input) => {
      const result = flowRequestSchema.safeParse(input)
      expect(result.success).toBe(true)
      const r = result.data
      if (r?.kind !== 'exchange') throw new Error('expected an exchange')
      expect(r.phone).toBe(input.data_exchange.flow_token.replace(/^\+/, ''))
      expect(r.signatureValid).toBe(input.signature_valid)
      expect(r.data).toEqual(input.data_exchange.data)
      expect(r.action).toBe((input.data_exchange.action ?? 'DATA_EXCHANGE').toUpperCase())
      if (r.action === 'DATA_EXCHANGE') expect(r.screen).toBe(input.data_exchange.screen)
    }))
  })

  it('property: a ping is a ping whatever unknown fields come with it', () => {
    const unknownKey = fc.string().filter((k) => !['action', 'source', 'data_exchange', 'signature_valid'].includes(k))
    fc.assert(fc.property(fc.dictionary(unknownKey, fc.jsonValue()), fc.constantFrom('ping', 'PING', 'Ping'), (rest, ping) => {
      const result = flowRequestSchema.safeParse({ ...rest, action: ping, signature_valid: undefined })
      expect(result.success && result.data.kind).toBe('ping')
    }))
  })
})
