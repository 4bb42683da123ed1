import { remainingUnits, type Batch, type BatchStatus, type BatchSummary } from '../model.ts'

/** What a batch list may be narrowed to; the filters given combine. */
export interface BatchFilters {
  status?: BatchStatus | undefined
  strain?: string | undefined
  /** At least this many milligrams available (not yet packaged nor destroyed). */
  minMg?: number | undefined
}

export interface BatchQuery extends BatchFilters {
  limit: number
  offset: number
}

export interface BatchPage {
  batches: BatchSummary[]
  total: number
}

/** What a change of some batches gives back: the new records (all or none are written), and what the caller reports. */
export interface BatchChange<T> {
  batches: Batch[]
  result: T
  /** The order's draw as it is after the change (null: none), when the change was asked with an order. */
  draw?: string | null
}

export const narrows = (q: BatchFilters): boolean => Boolean(q.status || q.strain || q.minMg !== undefined)

/** Filters and pages summaries already newest first; the same decision for both stores. */
export function pageOf (newestFirst: BatchSummary[], q: BatchQuery): BatchPage {
  const matching = narrows(q)
    ? newestFirst.filter((b) =>
      (!q.status || b.status === q.status) &&
      (!q.strain || b.strain.id === q.strain) &&
      (q.minMg === undefined || b.bulkMg >= q.minMg))
    : newestFirst
  return { batches: matching.slice(q.offset, q.offset + q.limit), total: matching.length }
}

/** Where a batch stands in the club's index: by harvest date, newest first. */
export const indexScore = (batch: Batch): number => Date.parse(batch.harvestedAt)

/**
 * The variants a batch offers units of, scored by its best-before (earliest first): a recalled batch offers none.
 * Both stores keep one ordered set per variant from this, so a handover finds the batches to draw from without
 * reading every batch.
 */
export function offered (batch: Batch): Map<string, number> {
  const offers = new Map<string, number>()
  if (batch.recall) return offers
  for (const line of batch.shelf) if (remainingUnits(line) > 0) offers.set(line.variantId, Date.parse(batch.bestBefore))
  return offers
}

/** The variants whose ordered sets a change touches: offered before or after it. */
export function touchedVariants (before: Batch | undefined, after: Batch): string[] {
  return [...new Set([...(before ? offered(before).keys() : []), ...offered(after).keys()])]
}

/**
 * Batches of every club. A change reads the current records, applies a pure function and writes them all only if
 * nobody wrote any of them in between (else it is re-run).
 */
export interface BatchStore {
  /** Adds a batch; false (and nothing written) when its number is already a batch of the club. */
  create (batch: Batch): Promise<boolean>
  get (tenantId: string, batchNumber: string): Promise<Batch | undefined>
  /** A page of the summaries that match the query, newest harvest first. */
  list (tenantId: string, query: BatchQuery): Promise<BatchPage>
  /** Every batch of the club (the stock report); a club has hundreds of batches, not millions. */
  all (tenantId: string): Promise<Batch[]>
  /**
   * Changes these batches together; undefined when one of them does not exist. `change` gets them in the order
   * asked (with the order's draw when `order` is given) and answers them changed (same numbers), and the draw;
   * whatever it throws is thrown.
   */
  update<T> (
    tenantId: string, batchNumbers: string[], change: (batches: Batch[], draw: string | null) => BatchChange<T>, order?: string
  ): Promise<T | undefined>
  /** What a handover drew for this order (JSON), if anything. */
  drawOf (tenantId: string, orderId: string): Promise<string | null>
  /** Batch numbers with units of this variant on sale, earliest best-before first. */
  offering (tenantId: string, variantId: string): Promise<string[]>
}

/** How often a change is re-run when others keep writing the same batches before giving up. */
export const MAX_CHANGE_ATTEMPTS = 20
