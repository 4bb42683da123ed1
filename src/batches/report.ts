import type { Harvest } from '../crops/model.ts'
import { toGrams, toMg, type Batch } from './model.ts'
import { gramsOf } from './views.ts'

// The stock report of a year, per strain. Pure. The harvested column comes from the crops' stocked harvests (what
// the growers weighed), the rest from the batches those harvests became: so a stocked harvest that became no
// batch, or a dry weight corrected after stocking, shows as a difference instead of vanishing.

export interface StockLine {
  strain: { id: string, name: string }
  batches: number
  harvestedDry: number
  packaged: number
  dispensed: number
  destroyed: number
  withdrawn: number
  onHand: number
  /** harvestedDry - dispensed - destroyed - withdrawn - onHand: 0 when the books balance. */
  difference: number
}

type Sums = Omit<StockLine, 'strain' | 'batches' | 'difference'>
const ZERO: Sums = { harvestedDry: 0, packaged: 0, dispensed: 0, destroyed: 0, withdrawn: 0, onHand: 0 }

export function stockReport (harvests: Array<{ strain: { id: string, name: string }, harvest: Harvest }>, batches: Batch[]): {
  strains: StockLine[], totals: Omit<StockLine, 'strain'>
} {
  const rows = new Map<string, { strain: { id: string, name: string }, batches: number, mg: Sums }>()
  const row = (strain: { id: string, name: string }) => {
    let r = rows.get(strain.id)
    if (!r) {
      r = { strain, batches: 0, mg: { ...ZERO } }
      rows.set(strain.id, r)
    }
    return r
  }
  for (const { strain, harvest } of harvests) row(strain).mg.harvestedDry += toMg(harvest.dryWeight ?? 0)
  for (const batch of batches) {
    const r = row(batch.strain)
    const g = gramsOf(batch)
    r.batches += 1
    r.mg.packaged += g.packaged
    r.mg.dispensed += g.dispensed
    r.mg.destroyed += g.destroyed
    r.mg.withdrawn += g.withdrawn
    r.mg.onHand += g.onHand
  }
  const figures = (count: number, mg: Sums): Omit<StockLine, 'strain'> => ({
    batches: count,
    ...Object.fromEntries(Object.entries(mg).map(([k, v]) => [k, toGrams(v)])) as Sums,
    difference: toGrams(mg.harvestedDry - mg.dispensed - mg.destroyed - mg.withdrawn - mg.onHand),
  })
  const strains = [...rows.values()].sort((a, b) => a.strain.name.localeCompare(b.strain.name)).map((r) => ({ strain: r.strain, ...figures(r.batches, r.mg) }))
  const total = { ...ZERO }
  for (const r of rows.values()) for (const k of Object.keys(total) as Array<keyof Sums>) total[k] += r.mg[k]
  return { strains, totals: figures(batches.length, total) }
}
