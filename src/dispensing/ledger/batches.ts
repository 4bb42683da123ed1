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

export interface BatchSource {
  /** The batches the line's grams came from (their grams adding up to the line's), or none when unknown. */
  batchesOf: (tenant: Tenant, line: DispensedLine) => Promise<BatchShare[]>
}

export const NO_BATCHES: BatchSource = { batchesOf: async () => [] }
