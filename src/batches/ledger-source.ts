import { NO_BATCHES, type BatchSource, type LineBatches } from '../dispensing/ledger/batches.ts'
import type { DrawnLine, OrderDraw } from './books.ts'
import { toGrams } from './model.ts'
import type { BatchService } from './service.ts'

// The batches side of the dispensing record: a handover draws its lines' units from the batches once per order
// (a retry answers the first draw), and each ledger line names the batches and grams it came from.

/** THC or CBD of a line drawn from several batches: their lab values weighted by milligrams (null when none has one). */
function weighted (drawn: DrawnLine[], of: (d: DrawnLine) => number | null): number | null {
  const known = drawn.filter((d) => of(d) !== null)
  const mg = known.reduce((sum, d) => sum + d.mg, 0)
  return mg > 0 ? Math.round(known.reduce((sum, d) => sum + (of(d) ?? 0) * d.mg, 0) / mg * 100) / 100 : null
}

/**
 * Splits the draw back into the handover's lines. drawOrder takes the lines in order and never lets one line's
 * units spill into the next, so each line takes its variant's drawn lines in order until its units are reached.
 */
export function linesOfDraw (draw: OrderDraw, lines: ReadonlyArray<{ variantId: string | null, quantity: number }>): LineBatches[] {
  const queue = [...draw.lines]
  return lines.map((line) => {
    const mine: DrawnLine[] = []
    let units = 0
    for (let i = 0; i < queue.length && units < line.quantity;) {
      const d = queue[i]!
      if (d.variantId !== line.variantId) { i++; continue }
      mine.push(d)
      units += d.units
      queue.splice(i, 1)
    }
    return {
      batches: mine.map((d) => ({ batchNumber: d.batchNumber, grams: toGrams(d.mg) })),
      thcPercent: weighted(mine, (d) => d.thcPercent),
      cbdPercent: weighted(mine, (d) => d.cbdPercent),
    }
  })
}

export const batchSource = (batches: BatchService): BatchSource => ({
  batchesOf: async (tenant, h) => {
    const wanted = h.lines.flatMap((l) => l.variantId === null ? [] : [{ variantId: l.variantId, units: l.quantity }])
    if (wanted.length === 0) return await NO_BATCHES.batchesOf(tenant, h)
    const draw = await batches.draw(tenant, { orderId: h.orderId, memberId: h.memberId, at: new Date(h.at).toISOString(), lines: wanted })
    return linesOfDraw(draw, h.lines)
  },
  undraw: async (tenant, orderId, variantId) => { await batches.undraw(tenant, orderId, variantId ?? undefined) },
  labThc: async (tenant, variantId) => await batches.offeredLabThc(tenant, variantId),
})
