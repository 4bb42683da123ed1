import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PLANT_INTERACTIONS } from '../../src/crops/model.ts'
import { parseTimelineData } from '../../src/crops/timeline-data.ts'
import { timelineBody } from '../../src/crops/requests.ts'

const type = fc.constantFrom(...PLANT_INTERACTIONS)
const finite = fc.double({ noNaN: true, noDefaultInfinity: true })
const watering = fc.record({
  amount: fc.double({ min: 0.001, max: 1e6, noNaN: true }),
  unit: fc.constantFrom('L', 'ml', 'gal'),
  pH: fc.option(fc.double({ min: 0, max: 14, noNaN: true }), { nil: undefined }),
  EC: fc.option(fc.double({ min: 0, max: 20, noNaN: true }), { nil: undefined }),
}, { requiredKeys: ['amount', 'unit'] })
const fertilizer = fc.record({
  name: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim().length > 0),
  nutrients: fc.array(fc.constantFrom('N', 'P', 'K', 'Ca', 'Mg'), { maxLength: 5 }),
  amount: fc.double({ min: 0.001, max: 1e4, noNaN: true }),
  unit: fc.constantFrom('ml', 'g', 'ml/L'),
})

describe('timeline data parser (outside input)', () => {
  it('property: never throws; either accepts or names the offending paths', () => {
    fc.assert(fc.property(type, fc.option(fc.jsonValue(), { nil: undefined }), (t, data) => {
      const parsed = parseTimelineData(t, data)
      if (!parsed.ok) expect(parsed.issues.length).toBeGreaterThan(0)
      else if (t === 'FERTILIZATION') expect(Array.isArray(parsed.data)).toBe(true)
      else expect(typeof parsed.data === 'object' && !Array.isArray(parsed.data)).toBe(true)
    }), { numRuns: 500 })
  })

  it('property: every well-formed WATERING and FERTILIZATION is accepted unchanged', () => {
    fc.assert(fc.property(watering, (data) => {
      const parsed = parseTimelineData('WATERING', data)
      expect(parsed).toEqual({ ok: true, data: Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined)) })
    }))
    fc.assert(fc.property(fc.array(fertilizer, { minLength: 1, maxLength: 5 }), (data) => {
      const parsed = parseTimelineData('FERTILIZATION', data)
      expect(parsed.ok).toBe(true)
      if (parsed.ok) expect((parsed.data as unknown[]).length).toBe(data.length)
    }))
  })

  it('property: a WATERING with a non-positive amount or pH outside 0-14 is refused on that path', () => {
    fc.assert(fc.property(watering, fc.double({ max: 0, noNaN: true }), (data, amount) => {
      const parsed = parseTimelineData('WATERING', { ...data, amount })
      expect(parsed.ok).toBe(false)
      if (!parsed.ok) expect(parsed.issues.map((i) => i.path.join('.'))).toContain('amount')
    }))
    fc.assert(fc.property(watering, finite.filter((x) => x < 0 || x > 14), (data, pH) => {
      const parsed = parseTimelineData('WATERING', { ...data, pH })
      expect(parsed.ok).toBe(false)
    }))
  })

  it('data is required only where the spec gives a shape', () => {
    expect(parseTimelineData('WATERING', undefined)).toMatchObject({ ok: false, issues: [{ path: [], message: 'Required for WATERING' }] })
    expect(parseTimelineData('FERTILIZATION', undefined).ok).toBe(false)
    expect(parseTimelineData('PLANTING', undefined)).toEqual({ ok: true, data: {} })
    expect(parseTimelineData('PRUNING', { technique: 'topping' })).toEqual({ ok: true, data: { technique: 'topping' } })
  })

  it('property: the whole body schema never throws on arbitrary JSON', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(), fc.record({ type, data: fc.jsonValue(), date: fc.string(), evidences: fc.array(fc.string()) }, { requiredKeys: ['type'] }),
        (junk, shaped) => {
          for (const input of [junk, shaped]) {
            const result = timelineBody.safeParse(input)
            if (!result.success) expect(result.error.issues.length).toBeGreaterThan(0)
          }
        }
      ),
      { numRuns: 300 }
    )
  })
})
