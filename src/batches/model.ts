// What the batches domain stores. Grams are kept as whole milligrams, so that sums never drift (0.1 + 0.2) and a
// batch's books balance exactly; the API speaks grams (views.ts).

export interface ActorRef {
  id: string
  name: string
}

/** A lab's analysis of a batch: the average THC and CBD, and where its report is. */
export interface LabResult {
  thcPercent: number
  cbdPercent: number
  reportRef: string
  testedAt: string
  recordedAt: string
  recordedBy: ActorRef
}

/** Units of one variant filled from the batch: how many, and where they went since. */
export interface ShelfLine {
  variantId: string
  productId: string | null
  title: string
  mgPerUnit: number
  packaged: number
  dispensed: number
  /** Taken off sale by a recall. */
  withdrawn: number
}

export interface Packaging {
  id: string
  variantId: string
  units: number
  mg: number
  /** pending: its grams are reserved while the commerce backend is told; done: the units are on the shelf. */
  state: 'pending' | 'done'
  at: string
  by: ActorRef
}

interface Destruction {
  id: string
  mg: number
  reason: string
  at: string
  by: ActorRef
}

/** Units of a batch handed to a member (one line of a dispensation). */
export interface Dispensation {
  id: string
  orderId: string
  memberId: string
  variantId: string
  units: number
  mg: number
  at: string
  /** The dispensing record's entry, when the ledger wrote one. */
  entryId: string | null
  reversedAt: string | null
}

interface Recall {
  reason: string
  at: string
  by: ActorRef
  unitsWithdrawn: number
  /** How the remaining units were taken off sale (docs/batches.md). */
  offSale: 'stock-to-zero'
  /** Per variant, the units taken out of the commerce backend's stock at the club's location; done once it has them. */
  stock: Array<{ variantId: string, units: number, done: boolean }>
  dispensationIds: string[]
  membersNotified: number
}

export interface Batch {
  batchNumber: string
  tenantId: string
  cropId: string
  harvestId: string
  strain: { id: string, name: string }
  harvestedAt: string
  bestBefore: string
  /** The harvest's dry weight when it was stocked. */
  harvestedMg: number
  /** Not yet packaged (nor destroyed): the bulk on hand. */
  bulkMg: number
  lab: LabResult | null
  labHistory: LabResult[]
  shelf: ShelfLine[]
  packagings: Packaging[]
  destructions: Destruction[]
  dispensations: Dispensation[]
  recall: Recall | null
  createdAt: string
  updatedAt: string
}

export const BATCH_STATUSES = ['AVAILABLE', 'DEPLETED', 'RECALLED'] as const
export type BatchStatus = typeof BATCH_STATUSES[number]

export const remainingUnits = (line: ShelfLine): number => line.packaged - line.dispensed - line.withdrawn

/** Grams still on the shelf as units of the batch (packaged, neither handed out nor withdrawn). */
export const shelfMg = (batch: Batch): number => batch.shelf.reduce((sum, l) => sum + remainingUnits(l) * l.mgPerUnit, 0)

export function statusOf (batch: Batch): BatchStatus {
  if (batch.recall) return 'RECALLED'
  return batch.bulkMg > 0 || shelfMg(batch) > 0 ? 'AVAILABLE' : 'DEPLETED'
}

/** What a batch list shows and filters on; kept beside the record so that a list reads no histories. */
export interface BatchSummary {
  batchNumber: string
  cropId: string
  strain: { id: string, name: string }
  status: BatchStatus
  harvestedAt: string
  bestBefore: string
  harvestedMg: number
  bulkMg: number
  shelfMg: number
  lab: { thcPercent: number, cbdPercent: number } | null
}

export function summarize (batch: Batch): BatchSummary {
  return {
    batchNumber: batch.batchNumber,
    cropId: batch.cropId,
    strain: { ...batch.strain },
    status: statusOf(batch),
    harvestedAt: batch.harvestedAt,
    bestBefore: batch.bestBefore,
    harvestedMg: batch.harvestedMg,
    bulkMg: batch.bulkMg,
    shelfMg: shelfMg(batch),
    lab: batch.lab ? { thcPercent: batch.lab.thcPercent, cbdPercent: batch.lab.cbdPercent } : null,
  }
}

export const toMg = (grams: number): number => Math.round(grams * 1000)
export const toGrams = (mg: number): number => mg / 1000
