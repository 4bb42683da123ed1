import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  commitPackaging, destroy, drawOrder, NotEnough, recall, Recalled, releasePackaging, reservePackaging, undrawOrder, type OrderDraw
} from '../../src/batches/books.ts'
import type { Harvest } from '../../src/crops/model.ts'
import { remainingUnits, type Batch } from '../../src/batches/model.ts'
import { stockReport } from '../../src/batches/report.ts'
import { gramsOf } from '../../src/batches/views.ts'
import { batchRecord } from './fixtures.ts'

// Any sequence of packaging (committed, or given back as when the commerce backend refuses), handovers, reversals,
// destructions and recalls over several batches: no count ever goes below zero, every batch's grams add up, the
// stock report balances, and what the handovers drew is what the batches say was dispensed.

const VARIANTS = { v5: 5000, v10: 10_000 } as const
type Variant = keyof typeof VARIANTS
const BY = { id: 'u', name: 'U' }

const batchIndex = fc.integer({ min: 0, max: 2 })
const variant = fc.constantFrom(...Object.keys(VARIANTS) as Variant[])
const action = fc.oneof(
  fc.record({ kind: fc.constant('package' as const), batch: batchIndex, variant, units: fc.integer({ min: 1, max: 12 }), fails: fc.boolean() }),
  fc.record({ kind: fc.constant('dispense' as const), order: fc.integer({ min: 0, max: 3 }), variant, units: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant('reverse' as const), order: fc.integer({ min: 0, max: 3 }), variant: fc.option(variant, { nil: undefined }) }),
  fc.record({ kind: fc.constant('destroy' as const), batch: batchIndex, mg: fc.integer({ min: 1, max: 40_000 }) }),
  fc.record({ kind: fc.constant('recall' as const), batch: batchIndex })
)

function harvestOf (b: Batch): { strain: Batch['strain'], harvest: Harvest } {
  return {
    strain: b.strain,
    harvest: {
      id: b.harvestId,
      cropId: b.cropId,
      name: '',
      status: 'STOCKED',
      wetWeight: 0,
      dryWeight: b.harvestedMg / 1000,
      quality: null,
      batchNumber: b.batchNumber,
      moisture: null,
      notes: '',
      storageLocation: null,
      createdAt: b.harvestedAt,
      updatedAt: b.harvestedAt,
    },
  }
}

function check (batches: Batch[], draws: Map<string, OrderDraw>): void {
  for (const b of batches) {
    expect(b.bulkMg).toBeGreaterThanOrEqual(0)
    for (const l of b.shelf) {
      for (const n of [l.packaged, l.dispensed, l.withdrawn, remainingUnits(l)]) expect(n).toBeGreaterThanOrEqual(0)
    }
    const g = gramsOf(b)
    const pending = b.packagings.filter((p) => p.state === 'pending').reduce((s, p) => s + p.mg, 0)
    expect(b.harvestedMg).toBe(b.bulkMg + pending + g.packaged + g.destroyed)
    expect(g.packaged).toBe(g.onShelf + g.dispensed + g.withdrawn)
    if (b.recall) expect(b.shelf.every((l) => remainingUnits(l) === 0)).toBe(true)
  }
  const report = stockReport(batches.map(harvestOf), batches)
  expect(report.totals.difference).toBe(0)
  for (const line of report.strains) expect(line.difference).toBe(0)
  const drawn = [...draws.values()].flatMap((d) => d.lines).filter((l) => l.reversedAt === null).reduce((s, l) => s + l.mg, 0)
  expect(batches.reduce((s, b) => s + gramsOf(b).dispensed, 0)).toBe(drawn)
}

describe('the books of several batches', () => {
  it('property: never below zero, always balanced, the draws are the dispensations', () => {
    fc.assert(
      fc.property(fc.array(action, {
        maxLength: 40
      }), fc.array(fc.integer({ min: 10_000, max: 120_000 }), { minLength: 3, maxLength: 3 }), (actions, sizes) => {
        let batches = sizes.map((mg, i) => batchRecord('club', `B-${i}`, {
          harvestedMg: mg,
          bulkMg: mg,
          strain: i === 2 ? { id: 'strain_y', name: 'Y' } : { id: 'strain_x', name: 'X' },
          bestBefore: new Date(Date.UTC(2027, 0, 10 - i)).toISOString(),
        }))
        const draws = new Map<string, OrderDraw>()
        let seq = 0
        const at = '2026-06-01T00:00:00.000Z'
        for (const a of actions) {
          const id = `step_${seq++}`
          try {
            if (a.kind === 'package') {
              const b = batches[a.batch] as Batch
              const reserved = reservePackaging(b, {
                id, variantId: a.variant, units: a.units, mg: a.units * VARIANTS[a.variant], state: 'pending', at, by: BY
              })
              batches[a.batch] = a.fails ? releasePackaging(reserved, id) : commitPackaging(reserved, id, { productId: null, title: a.variant })
            } else if (a.kind === 'dispense') {
              const order = `order_${a.order}`
              if (draws.has(order)) continue
              const { batches: next, draw } = drawOrder(batches, {
                orderId: order, memberId: `m_${a.order % 3}`, at, lines: [{ variantId: a.variant, units: a.units }]
              })
              batches = next
              draws.set(order, draw)
            } else if (a.kind === 'reverse') {
              const draw = draws.get(`order_${a.order}`)
              if (!draw) continue
              const undone = undrawOrder(batches, draw, at, a.variant)
              batches = undone.batches
              draws.set(draw.orderId, undone.draw)
            } else if (a.kind === 'destroy') {
              batches[a.batch] = destroy(batches[a.batch] as Batch, { id, mg: a.mg, reason: 'x', at, by: BY })
            } else {
              const b = batches[a.batch] as Batch
              if (!b.recall) batches[a.batch] = recall(b, { reason: 'x', at, by: BY })
            }
          } catch (err) {
          // Refusals leave the books as they were; anything else is a bug.
            if (!(err instanceof NotEnough) && !(err instanceof Recalled)) throw err
          }
          check(batches, draws)
        }
      }),
      { numRuns: 300 }
    )
  })

  it('units handed back after a recall stay off sale', () => {
    const b = commitPackaging(
      reservePackaging(batchRecord('club', 'B-r'), { id: 'p', variantId: 'v', units: 3, mg: 3000, state: 'pending', at: '', by: BY }), 'p',
      { productId: null, title: 'v' }
    )
    const { batches: [drawn], draw } = drawOrder([b], { orderId: 'o', memberId: 'm', at: '', lines: [{ variantId: 'v', units: 2 }] })
    const recalled = recall(drawn as Batch, { reason: 'x', at: '', by: BY })
    const { batches: [back] } = undrawOrder([recalled], draw, 'later')
    expect(back?.shelf[0]).toMatchObject({ packaged: 3, dispensed: 0, withdrawn: 3 })
    expect(remainingUnits(back!.shelf[0]!)).toBe(0)
  })

  it('draws the batch expiring first first and skips recalled ones', () => {
    const a = commitPackaging(
      reservePackaging(batchRecord('club', 'B-a', { bestBefore: '2027-05-01T00:00:00.000Z' }), {
        id: 'p', variantId: 'v', units: 3, mg: 3000, state: 'pending', at: '', by: BY
      }),
      'p', { productId: null, title: 'v' }
    )
    const b = commitPackaging(
      reservePackaging(batchRecord('club', 'B-b', { bestBefore: '2027-01-01T00:00:00.000Z' }), {
        id: 'p', variantId: 'v', units: 3, mg: 3000, state: 'pending', at: '', by: BY
      }),
      'p', { productId: null, title: 'v' }
    )
    expect(drawOrder([a, b], { orderId: 'o', memberId: 'm', at: '', lines: [{ variantId: 'v', units: 4 }] }).draw.lines.map((l) =>
      [l.batchNumber, l.units])).toEqual([['B-b', 3], ['B-a', 1]])
    const recalled = recall(b, { reason: 'x', at: '', by: BY })
    expect(drawOrder([a, recalled], { orderId: 'o', memberId: 'm', at: '', lines: [{ variantId: 'v', units: 4 }] }).draw).toMatchObject({
      lines: [{ batchNumber: 'B-a', units: 3 }], untraced: [{ variantId: 'v', units: 1 }]
    })
  })
})
