import type { Batch } from '../../src/batches/model.ts'

let clock = Date.UTC(2026, 0, 1)

/** A stored batch as the service writes it; harvestedAt strictly increases between calls. */
export function batchRecord (tenantId: string, batchNumber: string, overrides: Partial<Batch> = {}): Batch {
  const at = new Date(clock += 60_000).toISOString()
  return {
    batchNumber,
    tenantId,
    cropId: 'crop_1',
    harvestId: 'harvest_1',
    strain: { id: 'strain_x', name: 'X' },
    harvestedAt: at,
    bestBefore: new Date(Date.parse(at) + 365 * 24 * 3600 * 1000).toISOString(),
    harvestedMg: 100_000,
    bulkMg: 100_000,
    lab: null,
    labHistory: [],
    shelf: [],
    packagings: [],
    destructions: [],
    dispensations: [],
    recall: null,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  }
}

/** The batch with `units` of a variant of `mgPerUnit` on the shelf, drawn from its bulk. */
export function packaged (batch: Batch, variantId: string, units: number, mgPerUnit = 5000): Batch {
  const line = batch.shelf.find((l) => l.variantId === variantId)
  const shelf = line
    ? batch.shelf.map((l) => l === line ? { ...l, packaged: l.packaged + units } : l)
    : [...batch.shelf, { variantId, productId: null, title: variantId, mgPerUnit, packaged: units, dispensed: 0, withdrawn: 0 }]
  return { ...batch, bulkMg: batch.bulkMg - units * mgPerUnit, shelf }
}
