import type { z } from 'zod'
import { remainingUnits, shelfMg, statusOf, toGrams, type Batch, type BatchSummary } from './model.ts'
import type { batchSchema, batchSummarySchema } from './schemas.ts'

// Records to the API's shapes (grams). Pure.

export function batchSummaryView (s: BatchSummary): z.infer<typeof batchSummarySchema> {
  return {
    batchNumber: s.batchNumber,
    cropId: s.cropId,
    strain: s.strain,
    status: s.status,
    harvestedAt: s.harvestedAt,
    bestBefore: s.bestBefore,
    gramsHarvested: toGrams(s.harvestedMg),
    gramsAvailable: toGrams(s.bulkMg),
    gramsOnHand: toGrams(s.bulkMg + s.shelfMg),
    lab: s.lab,
  }
}

/** Where a batch's grams went, in milligrams: harvested = available + packaged + destroyed, packaged = on shelf + dispensed + withdrawn. */
export function gramsOf (batch: Batch) {
  const sum = (f: (l: Batch['shelf'][number]) => number) => batch.shelf.reduce((s, l) => s + f(l) * l.mgPerUnit, 0)
  const destroyed = batch.destructions.reduce((s, d) => s + d.mg, 0)
  return {
    harvested: batch.harvestedMg,
    available: batch.bulkMg,
    packaged: sum((l) => l.packaged),
    onShelf: shelfMg(batch),
    dispensed: sum((l) => l.dispensed),
    destroyed,
    withdrawn: sum((l) => l.withdrawn),
    onHand: batch.bulkMg + shelfMg(batch),
  }
}

export function batchView (batch: Batch): z.infer<typeof batchSchema> {
  const mg = gramsOf(batch)
  return {
    batchNumber: batch.batchNumber,
    cropId: batch.cropId,
    harvestId: batch.harvestId,
    strain: batch.strain,
    status: statusOf(batch),
    harvestedAt: batch.harvestedAt,
    bestBefore: batch.bestBefore,
    gramsHarvested: toGrams(mg.harvested),
    gramsAvailable: toGrams(mg.available),
    gramsOnHand: toGrams(mg.onHand),
    grams: Object.fromEntries(Object.entries(mg).map(([k, v]) => [k, toGrams(v)])) as Record<keyof typeof mg, number>,
    lab: batch.lab,
    labHistory: batch.labHistory,
    packaged: batch.shelf.map((l) => ({
      variantId: l.variantId,
      productId: l.productId,
      title: l.title,
      gramsPerUnit: toGrams(l.mgPerUnit),
      units: l.packaged,
      dispensedUnits: l.dispensed,
      withdrawnUnits: l.withdrawn,
      remainingUnits: remainingUnits(l),
    })),
    packagings: batch.packagings.map(({ mg: m, ...p }) => ({ ...p, grams: toGrams(m) })),
    destructions: batch.destructions.map(({ mg: m, ...d }) => ({ ...d, grams: toGrams(m) })),
    dispensations: batch.dispensations.map(({ mg: m, ...d }) => ({ ...d, grams: toGrams(m) })),
    recall: batch.recall,
    createdAt: batch.createdAt,
    updatedAt: batch.updatedAt,
  }
}
