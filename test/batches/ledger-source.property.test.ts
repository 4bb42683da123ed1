import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { drawOrder, type DrawInput } from '../../src/batches/books.ts'
import { linesOfDraw } from '../../src/batches/ledger-source.ts'
import type { Batch } from '../../src/batches/model.ts'
import { batchRecord, packaged } from './fixtures.ts'

// One draw per order, split back into the handover's lines: each line gets exactly what drawing that line alone,
// after the lines before it, would take from the batches (so two lines of one variant never swap grams), and its
// THC and CBD are the drawn batches' lab values weighted by grams.

const VARIANTS = ['v5', 'v10'] as const
const MG = { v5: 5000, v10: 10_000 }
const lab = fc.option(fc.record({ thc: fc.integer({ min: 0, max: 3000 }), cbd: fc.integer({ min: 0, max: 2000 }) }), { nil: null })
const shelf = fc.array(fc.record({ variant: fc.constantFrom(...VARIANTS), units: fc.integer({ min: 1, max: 6 }) }), { maxLength: 3 })
const batches = fc.array(fc.record({ lab, shelf, recalled: fc.boolean() }), { minLength: 1, maxLength: 3 })
const lines = fc.array(fc.record({ variant: fc.constantFrom(...VARIANTS), units: fc.integer({ min: 1, max: 8 }) }), { minLength: 1, maxLength: 4 })

function build (
  specs: Array<{ lab: { thc: number, cbd: number } | null, shelf: Array<{ variant: 'v5' | 'v10', units: number }>, recalled: boolean }>
): Batch[] {
  return specs.map((s, i) => {
    let b = batchRecord('club', `B-${i}`, { bulkMg: 10_000_000, harvestedMg: 10_000_000 })
    if (s.lab) {
      b = {
        ...b,
        lab: {
          thcPercent: s.lab.thc / 100,
          cbdPercent: s.lab.cbd / 100,
          reportRef: 'L',
          testedAt: b.createdAt,
          recordedAt: b.createdAt,
          recordedBy: { id: 'u', name: 'U' }
        }
      }
    }
    for (const l of s.shelf) b = packaged(b, l.variant, l.units, MG[l.variant])
    return s.recalled ? { ...b, recall: { reason: 'x' } as Batch['recall'] } : b
  })
}

describe('a draw split back into the handover\'s lines', () => {
  it('each line gets what it alone drew after the lines before it, with THC and CBD weighted by grams', () => {
    fc.assert(fc.property(batches, lines, (specs, wanted) => {
      const input: DrawInput = {
        orderId: 'o', memberId: 'm', at: '2026-11-27T10:00:00.000Z', lines: wanted.map((w) => ({ variantId: w.variant, units: w.units }))
      }
      const split = linesOfDraw(drawOrder(build(specs), input).draw, wanted.map((w) => ({ variantId: w.variant, quantity: w.units })))
      let state = build(specs)
      split.forEach((got, i) => {
        const alone = drawOrder(state, { ...input, lines: [input.lines[i]!] })
        state = alone.batches
        expect(got.batches).toEqual(alone.draw.lines.map((d) => ({ batchNumber: d.batchNumber, grams: d.mg / 1000 })))
        const withThc = alone.draw.lines.filter((d) => d.thcPercent !== null)
        const mg = withThc.reduce((sum, d) => sum + d.mg, 0)
        if (mg === 0) expect(got.thcPercent).toBeNull()
        // rounded to hundredths: at most half of one off
        else expect(Math.abs(got.thcPercent! - withThc.reduce((sum, d) => sum + d.thcPercent! * d.mg, 0) / mg)).toBeLessThanOrEqual(0.005 + 1e-9)
      })
    }))
  })
})
