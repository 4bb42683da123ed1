import type { DocKinds, Kind, OrderDoc, StockLevel } from '../model.ts'

// The commerce store port. Records carry a revision: every change is a compare-and-set on it, and the
// changes that must hold together (stock, the display_id sequence, an order, a cart's completion) are one
// atomic step of the store (one Lua script on Redis).

export interface Versioned<T> {
  rev: number
  doc: T
}

/** An index entry: the named index (e.g. `orders:sc_x`) lists the record's id, ordered by `score`. */
export interface IndexEntry {
  index: string
  score: number
}

/**
 * The order of an index's entries ([id, score]): by score, then by id as Redis orders equal scores (bytes; ids
 * are ASCII), in both implementations.
 */
export const indexOrder = (a: readonly [string, number], b: readonly [string, number]): number =>
  a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)

/** `indexOrder` newest first: by score descending, equal scores by id as `indexOrder` has them. */
export const newestFirstOrder = (a: readonly [string, number], b: readonly [string, number]): number => b[1] - a[1] || indexOrder(a, b)

/** A unique value (e.g. `pk` + token) that points at the record's id. */
export interface Lookup {
  name: string
  value: string
}

/** A change of one stock level; the store refuses a change that would take a quantity below zero. */
export interface StockDelta {
  inventoryItemId: string
  locationId: string
  stocked: number
  reserved: number
}

export interface Reservation {
  inventoryItemId: string
  locationId: string
  quantity: number
}

/** An index the record leaves, unless one of `unlessAnyOf` (indexes) has an entry: checked in the same atomic step. */
export interface IndexRemoval {
  index: string
  unlessAnyOf?: string[]
}

export interface ReplaceOptions {
  stock?: StockDelta[]
  /** Indexes the record enters (an entry it has keeps its score) and leaves, with the record's change. */
  addTo?: IndexEntry[]
  removeFrom?: IndexRemoval[]
  /** Refuse (`completed`) when this cart has been completed meanwhile. */
  unlessCartCompleted?: string
}

export type ReplaceResult = 'ok' | 'conflict' | 'completed' | 'stock'

export interface CompleteCartInput {
  cartId: string
  /** The cart revision the order was built from; another revision is a `conflict` (rebuild and retry). */
  cartRev: number
  /** The order to create; its display_id is set by the store. */
  order: OrderDoc
  reservations: Reservation[]
  indexes: IndexEntry[]
  lookups: Lookup[]
  now: string
  /**
   * Lists the order's customer in `index` when the customer has no account at that moment, with the score of its
   * entry in `scoreFrom` (a guest is seen by the staff of the clubs it ordered from).
   */
  guest?: { customerId: string, index: string, scoreFrom: string }
}

export type CompleteCartResult =
  | { kind: 'created', displayId: number }
  | { kind: 'existing', orderId: string }
  | { kind: 'conflict' }
  | { kind: 'insufficient', inventoryItemId: string, locationId: string }

export interface CommerceStore {
  get<K extends Kind> (kind: K, id: string): Promise<Versioned<DocKinds[K]> | undefined>
  /** The records that exist among `ids`, in that order. */
  getMany<K extends Kind> (kind: K, ids: readonly string[]): Promise<Array<Versioned<DocKinds[K]>>>
  /** Writes a new record with its index entries and lookups; false (and nothing written) when the id or a lookup is taken. */
  create<K extends Kind> (kind: K, doc: DocKinds[K] & { id: string }, indexes: IndexEntry[], lookups: Lookup[]): Promise<boolean>
  /** Compare-and-set on `rev`, with the stock deltas applied in the same atomic step. */
  replace<K extends Kind> (kind: K, rev: number, doc: DocKinds[K] & { id: string }, options?: ReplaceOptions): Promise<ReplaceResult>
  /** Every id of an index, oldest first. */
  ids (index: string): Promise<string[]>
  /**
   * How many ids an index holds, and those from `offset` on (at most `limit`) of `ids`'s list, or of that list
   * stably sorted newest first (equal scores still by id): a page read without reading the whole index.
   */
  page (index: string, offset: number, limit: number, newestFirst: boolean): Promise<{ ids: string[], total: number }>
  /** Lists existing records in indexes (an index made after them); an id listed already keeps its entry. */
  addToIndexes (entries: ReadonlyArray<IndexEntry & { id: string }>): Promise<void>
  lookup (name: string, value: string): Promise<string | undefined>
  /** Points a lookup at an id when it is free (e.g. a guest customer's email); false when taken. */
  claim (name: string, value: string, id: string): Promise<boolean>
  stock (inventoryItemId: string): Promise<StockLevel[]>
  /** Sets the stocked quantity of a level (creating it); `below_reserved` when that would be under what is reserved. */
  setStocked (inventoryItemId: string, locationId: string, quantity: number, levelId: string, now: string): Promise<'ok' | 'below_reserved'>
  /** The order a cart became, if it was completed. */
  cartOrder (cartId: string): Promise<string | undefined>
  /**
   * Completes a cart in one atomic step: unless the cart already became an order (`existing`) or changed
   * (`conflict`), reserves every line's stock (all or nothing: `insufficient`), takes the sales channel's next
   * display_id, writes the order with its indexes and lookups and marks the cart completed.
   */
  completeCart (input: CompleteCartInput): Promise<CompleteCartResult>
}

/** Sums the deltas per level, so that each level is checked once against its total change. */
export function mergeDeltas (deltas: readonly StockDelta[]): StockDelta[] {
  const merged = new Map<string, StockDelta>()
  for (const d of deltas) {
    const key = `${d.inventoryItemId}\u0000${d.locationId}`
    const prev = merged.get(key)
    if (prev) {
      prev.stocked += d.stocked
      prev.reserved += d.reserved
    } else {
      merged.set(key, { ...d })
    }
  }
  return [...merged.values()].filter((d) => d.stocked !== 0 || d.reserved !== 0)
}

export function mergeReservations (reservations: readonly Reservation[]): Reservation[] {
  return mergeDeltas(reservations.map((r) => ({ inventoryItemId: r.inventoryItemId, locationId: r.locationId, stocked: 0, reserved: r.quantity })))
    .map((d) => ({ inventoryItemId: d.inventoryItemId, locationId: d.locationId, quantity: d.reserved }))
}

/** Stock hashes keep one field per location and quantity: `<location>:stocked`, `<location>:reserved`, ... */
export const levelField = (locationId: string, field: 'stocked' | 'reserved' | 'id' | 'created_at' | 'updated_at'): string => `${locationId}:${field}`

export function levelsFromHash (hash: Record<string, string>): StockLevel[] {
  const locations = new Set(Object.keys(hash).filter((f) => f.endsWith(':id')).map((f) => f.slice(0, -3)))
  return [...locations].sort().map((loc) => ({
    id: hash[levelField(loc, 'id')] as string,
    location_id: loc,
    stocked_quantity: Number(hash[levelField(loc, 'stocked')] ?? 0),
    reserved_quantity: Number(hash[levelField(loc, 'reserved')] ?? 0),
    created_at: hash[levelField(loc, 'created_at')] ?? '',
    updated_at: hash[levelField(loc, 'updated_at')] ?? '',
  }))
}
