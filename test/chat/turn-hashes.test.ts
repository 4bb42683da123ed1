import { createHash, createHmac } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { signWebhookBody, verifyWebhookSignature } from '../../src/chat/signature.ts'
import { appliedMark } from '../../src/chat/store/index.ts'

// The two hashes of a turn's path made cheaper than Node's streaming calls (one-shot crypto.hash, a key object per
// secret) give the bytes the streaming calls give.
describe('a turn\'s hashes', () => {
  it('an applied mark is the first 12 hex digits of the id\'s SHA-1, as createHash gives them (property)', () => {
    expect(appliedMark('abc')).toBe('a9993e364706')
    expect(appliedMark('a9993e364706')).toBe('a9993e364706')
    fc.assert(fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string(), fc.stringMatching(/^[0-9a-fA-F]{11,13}$/)), (id) => {
      const reference = /^[0-9a-f]{12}$/.test(id) ? id : createHash('sha1').update(id).digest('hex').slice(0, 12)
      expect(appliedMark(id)).toBe(reference)
    }), { numRuns: 1000 })
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
