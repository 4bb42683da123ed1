import type { DocKinds, Kind } from '../model.ts'
import type { CommerceStore, IndexEntry, IndexRemoval, StockDelta } from '../store/port.ts'
import { conflict, invalidData, notAllowed, type MedusaError } from '../errors.ts'

// Typed record access over the store port, with the compare-and-set retry loop every change goes through.
const MAX_ATTEMPTS = 20

export async function loadDoc<K extends Kind> (store: CommerceStore, kind: K, id: string, missing: () => MedusaError): Promise<DocKinds[K]> {
  const found = await store.get(kind, id)
  if (!found) throw missing()
  return found.doc
}

// Lookups whose answer never changes once it exists (a publishable key's token names its key record, a variant
// id its product, for good: neither is ever pointed elsewhere nor removed), kept per store once found, so that a
// call re-reads only the record itself (whose revocation or deletion it then sees). Bounded, oldest first.
const FIXED_MAX = 10_000
const fixedLookups = new WeakMap<CommerceStore, Map<string, string>>()

/** `store.lookup` for a lookup that never changes once it exists: asked of the store until found, then kept. */
export async function lookupFixed (store: CommerceStore, name: string, value: string): Promise<string | undefined> {
  let kept = fixedLookups.get(store)
  if (!kept) fixedLookups.set(store, kept = new Map())
  const key = `${name}\n${value}`
  const known = kept.get(key)
  if (known !== undefined) return known
  const found = await store.lookup(name, value)
  if (found === undefined) return undefined
  if (kept.size >= FIXED_MAX) kept.delete(kept.keys().next().value as string)
  kept.set(key, found)
  return found
}

/** The records of these ids that exist, in that order. */
export async function docsOf<K extends Kind> (store: CommerceStore, kind: K, ids: readonly string[]): Promise<Array<DocKinds[K]>> {
  return (await store.getMany(kind, ids)).map((v) => v.doc)
}

export async function listDocs<K extends Kind> (store: CommerceStore, kind: K, index: string): Promise<Array<DocKinds[K]>> {
  return await docsOf(store, kind, await store.ids(index))
}

/** How many records an index holds. */
export async function indexSize (store: CommerceStore, index: string): Promise<number> {
  return (await store.page(index, 0, 0, false)).total
}

export interface Change {
  stock?: StockDelta[]
  /** Indexes the record enters and leaves with this change (computed from the revision it edits). */
  addTo?: IndexEntry[]
  removeFrom?: IndexRemoval[]
}

/**
 * Reads a record, lets `change` edit it (and name stock deltas), writes it if nobody wrote in between, else
 * starts over on the fresh record: the check `change` makes always holds for the revision that is replaced.
 */
export async function mutate<K extends Kind> (
  store: CommerceStore, kind: K, id: string, missing: () => MedusaError,
  change: (doc: DocKinds[K]) => Change | undefined, options: { unlessCartCompleted?: string, now?: () => string } = {}
): Promise<DocKinds[K]> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const found = await store.get(kind, id)
    if (!found) throw missing()
    const doc = found.doc
    const result = change(doc) ?? {}
    doc.updated_at = options.now?.() ?? new Date().toISOString()
    const outcome = await store.replace(kind, found.rev, doc as DocKinds[K] & { id: string }, {
      stock: result.stock, addTo: result.addTo, removeFrom: result.removeFrom, unlessCartCompleted: options.unlessCartCompleted
    })
    if (outcome === 'ok') return doc
    if (outcome === 'completed') throw invalidData(`Cart ${id} is already completed`)
    if (outcome === 'stock') throw notAllowed('Not enough stock to apply this change', 'insufficient_inventory')
  }
  throw conflict(`${kind} ${id} is being changed by another request, try again`)
}
