import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { appliedMark } from '../../src/chat/store/port.ts'
import { packMark, packMarks, unpackMark } from '../../src/chat/store/scripts.ts'

// Applied marks as the Redis store converts them (src/chat/store/scripts.ts): by table, with Buffer's answers.
const viaBuffer = {
  pack: (hex: string): string => Buffer.from(hex, 'hex').toString('base64url'),
  unpack: (packed: string): string => Buffer.from(packed, 'base64url').toString('hex'),
}

const HEX = '0123456789abcdefABCDEF'
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
/** Strings of `length` characters, mostly of `alphabet`, now and then another (a damaged record, a stray character). */
const shaped = (alphabet: string, length: number): fc.Arbitrary<string> =>
  fc.array(fc.oneof(
    { weight: 9, arbitrary: fc.constantFrom(...alphabet) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) }
  ), { minLength: length, maxLength: length }).map((chars) => chars.join(''))

describe('applied marks, packed and unpacked', () => {
  it('pack a mark as Buffer would, whatever the string', () => {
    fc.assert(fc.property(fc.oneof(shaped(HEX, 12), fc.string({ unit: 'binary' })), (s) => { expect(packMark(s)).toBe(viaBuffer.pack(s)) }), { numRuns: 2000 })
  })

  it('unpack a mark as Buffer would, whatever the string', () => {
    fc.assert(fc.property(fc.oneof(shaped(BASE64URL, 8), fc.string({ unit: 'binary' })), (s) => { expect(unpackMark(s)).toBe(viaBuffer.unpack(s)) }),
      { numRuns: 2000 })
  })

  it('pack a session\'s applied ids as one string of their marks, each read back as its mark', () => {
    fc.assert(fc.property(fc.array(fc.oneof(fc.string(), fc.stringMatching(/^[0-9a-f]{12}$/)), { maxLength: 8 }), (ids) => {
      const packed = packMarks(ids)
      expect(packed).toBe(ids.map((id) => viaBuffer.pack(appliedMark(id))).join(''))
      expect(Array.from({ length: ids.length }, (_, i) => unpackMark(packed.slice(i * 8, i * 8 + 8)))).toEqual(ids.map(appliedMark))
    }))
  })
})
