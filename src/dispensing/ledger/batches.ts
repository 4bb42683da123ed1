import type { Tenant } from '../../tenants/model.ts'
import type { BatchShare } from './chain.ts'

// Which batches a dispensed line comes from: the dispensing record asks, the batches domain answers (it plugs in
// with `app.ledger.useBatches(source)`). Until one is set, a line comes from no recorded batch.

/** One controlled line of a handover, as the record writes it. */
export interface DispensedLine {
  orderId: string
  lineId: string
  productId: string | null
  variantId: string | null
  product: string
  quantity: number
  /** The line's grams: quantity times grams per unit. */
  grams: number
  thcPercent: number | null
  cbdPercent: number | null
}

/** A handover as the batches domain needs it: one draw per order, all its controlled lines at once. */
export interface HandoverLines {
  orderId: string
  memberId: string
  at: number
  lines: DispensedLine[]
}

/** Where a line's grams came from; THC and CBD are the batches' lab values (null: none measured, the line's own stand). */
export interface LineBatches {
  batches: BatchShare[]
  thcPercent: number | null
  cbdPercent: number | null
}

export interface BatchSource {
  /** Per line of `h` (same order): the batches its grams came from (adding up to the line's at most), or none when unknown. */
  batchesOf: (tenant: Tenant, h: HandoverLines) => Promise<LineBatches[]>
  /** A reversing entry: the grams of the order's lines of the variant go back to their batches. */
  undraw: (tenant: Tenant, orderId: string, variantId: string | null) => Promise<void>
  /** The lab THC of each batch with units of the variant on sale (null: a batch without a lab result); none: no batch holds it. */
  labThc: (tenant: Tenant, variantId: string) => Promise<Array<number | null>>
}

export const NO_BATCHES: BatchSource = {
  batchesOf: async (_tenant, h) => h.lines.map(() => ({ batches: [], thcPercent: null, cbdPercent: null })),
  undraw: async () => {},
  labThc: async () => [],
}
