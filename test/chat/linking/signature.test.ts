import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { signWebhookBody, verifyWebhookSignature } from '../../../src/chat/signature.ts'

const SECRET = 'test-webhook-secret-0123456789abcdef'
const body = Buffer.from('{"message":{"id":"m1"}}')

describe('webhook signature', () => {
  it('accepts the right signature as hex, upper case, or with a sha256= prefix', () => {
    const sig = signWebhookBody(SECRET, body)
    expect(sig).toMatch(/^[0-9a-f]{64}$/)
    expect(verifyWebhookSignature(SECRET, body, sig)).toBe(true)
    expect(verifyWebhookSignature(SECRET, body, sig.toUpperCase())).toBe(true)
    expect(verifyWebhookSignature(SECRET, body, `sha256=${sig}`)).toBe(true)
    expect(verifyWebhookSignature(SECRET, body.toString('utf8'), sig)).toBe(true)
  })

  it('refuses a missing, empty, odd-length, non-hex or other-key header', () => {
    const sig = signWebhookBody(SECRET, body)
    expect(verifyWebhookSignature(SECRET, body, undefined)).toBe(false)
    expect(verifyWebhookSignature(SECRET, body, '')).toBe(false)
    expect(verifyWebhookSignature(SECRET, body, sig.slice(1))).toBe(false)
    expect(verifyWebhookSignature(SECRET, body, `${sig.slice(0, -1)}g`)).toBe(false)
    expect(verifyWebhookSignature(SECRET, body, sig.slice(0, 32))).toBe(false)
    expect(verifyWebhookSignature('another-secret-0123456789abcdef', body, sig)).toBe(false)
  })

  it('property: never throws, true exactly for the signature of those bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 256 }), fc.string({ maxLength: 80 }), (bytes, header) => {
      const raw = Buffer.from(bytes)
      const right = signWebhookBody(SECRET, raw)
      expect(verifyWebhookSignature(SECRET, raw, right)).toBe(true)
      const result = verifyWebhookSignature(SECRET, raw, header)
      expect(result).toBe(header.trim().toLowerCase().replace(/^sha256=/, '') === right)
    }))
  })

  it('property: a body changed in any byte no longer verifies', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 128 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (bytes, at, flip) => {
      const raw = Buffer.from(bytes)
      const sig = signWebhookBody(SECRET, raw)
      const tampered = Buffer.from(raw)
      const i = at % tampered.length
      tampered[i] = (tampered[i] as number) ^ flip
      expect(verifyWebhookSignature(SECRET, tampered, sig)).toBe(false)
    }))
  })

  it('property: arbitrary hex of the right length is refused', () => {
    fc.assert(fc.property(fc.stringMatching(/^[0-9a-f]{64}$/), (hex) => {
      fc.pre(hex !== signWebhookBody(SECRET, body))
      expect(verifyWebhookSignature(SECRET, body, hex)).toBe(false)
    }))
  })
})
