import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { nextPlantNumber, plantCode, plantCodes } from '../../src/crops/plant-codes.ts'

const prefix = fc.stringMatching(/^[A-Za-z_.-]{0,6}$/)

describe('plant codes', () => {
  it('pads to three digits and keeps longer numbers whole', () => {
    expect(plantCodes('P-', 1, 3)).toEqual(['P-001', 'P-002', 'P-003'])
    expect(plantCode('', 1234)).toBe('1234')
    expect(plantCode('A', 0)).toBe('A000')
  })

  it('property: a batch has count distinct codes, each with the prefix', () => {
    fc.assert(fc.property(prefix, fc.integer({ min: 0, max: 999_999 }), fc.integer({ min: 1, max: 500 }), (p, start, count) => {
      const codes = plantCodes(p, start, count)
      expect(codes).toHaveLength(count)
      expect(new Set(codes).size).toBe(count)
      for (const code of codes) expect(code.startsWith(p)).toBe(true)
    }))
  })

  it('property: the next default batch never collides with codes already used', () => {
    fc.assert(
      fc.property(
        prefix, fc.array(fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 1, max: 50 })), { maxLength: 6 }), fc.integer({ min: 1, max: 500 }),
        (p, batches, count) => {
          const used = batches.flatMap(([start, n]) => plantCodes(p, start, n))
          const next = plantCodes(p, nextPlantNumber(used, p), count)
          expect(next.filter((code) => used.includes(code))).toEqual([])
        }
      )
    )
  })

  it('ignores codes of other prefixes and non-numeric codes', () => {
    expect(nextPlantNumber(['A-007', 'P-002', 'P-x', 'tag-1'], 'P-')).toBe(3)
    expect(nextPlantNumber([], 'P-')).toBe(1)
  })
})
