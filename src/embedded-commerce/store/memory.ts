import type { DocKinds, Kind, StockLevel } from '../model.ts'
import { keys } from '../../stores/keys.ts'
import {
  indexOrder, levelField, newestFirstOrder, levelsFromHash, mergeDeltas, mergeReservations,
  type CommerceStore, type CompleteCartInput, type CompleteCartResult, type IndexEntry, type Lookup, type ReplaceOptions, type ReplaceResult, type Versioned,
} from './port.ts'

// One process, nothing survives a restart. Each method runs without awaiting in between, so it is atomic
// just as the Redis scripts are. Records are kept as JSON text so that callers never share objects with it.
export class MemoryCommerceStore implements CommerceStore {
  private readonly docs = new Map<string, { rev: number, json: string }>()
  private readonly indexes = new Map<string, Map<string, number>>()
  private readonly strings = new Map<string, string>()
  private readonly hashes = new Map<string, Map<string, string>>()
  private readonly counters = new Map<string, number>()

  async get<K extends Kind> (kind: K, id: string): Promise<Versioned<DocKinds[K]> | undefined> {
    const found = this.docs.get(keys.commerce.doc(kind, id))
    return found ? { rev: found.rev, doc: JSON.parse(found.json) } : undefined
  }

  async getMany<K extends Kind> (kind: K, ids: readonly string[]): Promise<Array<Versioned<DocKinds[K]>>> {
    const out: Array<Versioned<DocKinds[K]>> = []
    for (const id of ids) {
      const found = await this.get(kind, id)
      if (found) out.push(found)
    }
    return out
  }

  async create<K extends Kind> (kind: K, doc: DocKinds[K] & { id: string }, indexes: IndexEntry[], lookups: Lookup[]): Promise<boolean> {
    const key = keys.commerce.doc(kind, doc.id)
    if (this.docs.has(key) || lookups.some((l) => this.strings.has(keys.commerce.lookup(l.name, l.value)))) return false
    this.docs.set(key, { rev: 1, json: JSON.stringify(doc) })
    this.write(doc.id, indexes, lookups)
    return true
  }

  async replace<K extends Kind> (kind: K, rev: number, doc: DocKinds[K] & { id: string }, options: ReplaceOptions = {}): Promise<ReplaceResult> {
    const key = keys.commerce.doc(kind, doc.id)
    const current = this.docs.get(key)
    if (!current || current.rev !== rev) return 'conflict'
    if (options.unlessCartCompleted && this.strings.has(keys.commerce.cartOrder(options.unlessCartCompleted))) return 'completed'
    const deltas = mergeDeltas(options.stock ?? [])
    const fits = deltas.every((d) => {
      const hash = this.hashes.get(keys.commerce.stock(d.inventoryItemId))
      const stocked = Number(hash?.get(levelField(d.locationId, 'stocked')) ?? 0) + d.stocked
      const reserved = Number(hash?.get(levelField(d.locationId, 'reserved')) ?? 0) + d.reserved
      return stocked >= 0 && reserved >= 0
    })
    if (!fits) return 'stock'
    const now = new Date().toISOString()
    for (const d of deltas) {
      this.increment(d.inventoryItemId, d.locationId, 'stocked', d.stocked, now)
      this.increment(d.inventoryItemId, d.locationId, 'reserved', d.reserved, now)
    }
    this.docs.set(key, { rev: rev + 1, json: JSON.stringify(doc) })
    for (const entry of options.addTo ?? []) {
      if (!this.indexes.get(keys.commerce.index(entry.index))?.has(doc.id)) this.write(doc.id, [entry], [])
    }
    for (const r of options.removeFrom ?? []) {
      if (!(r.unlessAnyOf ?? []).some((i) => (this.indexes.get(keys.commerce.index(i))?.size ?? 0) > 0)) {
        this.indexes.get(keys.commerce.index(r.index))?.delete(doc.id)
      }
    }
    return 'ok'
  }

  async ids (index: string): Promise<string[]> {
    const entries = [...(this.indexes.get(keys.commerce.index(index)) ?? new Map<string, number>()).entries()]
    return entries.sort(indexOrder).map(([id]) => id)
  }

  async page (index: string, offset: number, limit: number, newestFirst: boolean) {
    const entries = [...(this.indexes.get(keys.commerce.index(index)) ?? new Map<string, number>()).entries()]
    const ids = entries.sort(newestFirst ? newestFirstOrder : indexOrder).slice(offset, offset + Math.max(limit, 0)).map(([id]) => id)
    return { ids, total: entries.length }
  }

  async addToIndexes (entries: ReadonlyArray<IndexEntry & { id: string }>) {
    for (const e of entries) {
      const index = this.indexes.get(keys.commerce.index(e.index))
      if (!index?.has(e.id)) this.write(e.id, [e], [])
    }
  }

  async lookup (name: string, value: string): Promise<string | undefined> {
    return this.strings.get(keys.commerce.lookup(name, value))
  }

  async claim (name: string, value: string, id: string): Promise<boolean> {
    const key = keys.commerce.lookup(name, value)
    if (this.strings.has(key)) return false
    this.strings.set(key, id)
    return true
  }

  async stock (inventoryItemId: string): Promise<StockLevel[]> {
    return levelsFromHash(Object.fromEntries(this.hashes.get(keys.commerce.stock(inventoryItemId)) ?? []))
  }

  async setStocked (inventoryItemId: string, locationId: string, quantity: number, levelId: string, now: string): Promise<'ok' | 'below_reserved'> {
    const hash = this.hash(inventoryItemId)
    if (quantity < Number(hash.get(levelField(locationId, 'reserved')) ?? 0)) return 'below_reserved'
    if (!hash.has(levelField(locationId, 'id'))) {
      hash.set(levelField(locationId, 'id'), levelId)
      hash.set(levelField(locationId, 'created_at'), now)
      hash.set(levelField(locationId, 'reserved'), '0')
    }
    hash.set(levelField(locationId, 'stocked'), String(quantity))
    hash.set(levelField(locationId, 'updated_at'), now)
    return 'ok'
  }

  async cartOrder (cartId: string): Promise<string | undefined> {
    return this.strings.get(keys.commerce.cartOrder(cartId))
  }

  async completeCart (input: CompleteCartInput): Promise<CompleteCartResult> {
    const existing = this.strings.get(keys.commerce.cartOrder(input.cartId))
    if (existing) return { kind: 'existing', orderId: existing }
    if (this.docs.get(keys.commerce.doc('cart', input.cartId))?.rev !== input.cartRev) return { kind: 'conflict' }
    const reservations = mergeReservations(input.reservations)
    for (const r of reservations) {
      const hash = this.hashes.get(keys.commerce.stock(r.inventoryItemId))
      const available = Number(hash?.get(levelField(r.locationId, 'stocked')) ?? 0) - Number(hash?.get(levelField(r.locationId, 'reserved')) ?? 0)
      if (available < r.quantity) return { kind: 'insufficient', inventoryItemId: r.inventoryItemId, locationId: r.locationId }
    }
    for (const r of reservations) this.increment(r.inventoryItemId, r.locationId, 'reserved', r.quantity, input.now)
    const seqKey = keys.commerce.displayIdSeq(input.order.sales_channel_id)
    const displayId = (this.counters.get(seqKey) ?? 0) + 1
    this.counters.set(seqKey, displayId)
    this.docs.set(keys.commerce.doc('order', input.order.id), { rev: 1, json: JSON.stringify({ ...input.order, display_id: displayId }) })
    this.write(input.order.id, input.indexes, input.lookups)
    this.strings.set(keys.commerce.cartOrder(input.cartId), input.order.id)
    const guest = input.guest
    const customer = guest && this.docs.get(keys.commerce.doc('customer', guest.customerId))
    const at = guest && this.indexes.get(keys.commerce.index(guest.scoreFrom))?.get(guest.customerId)
    if (guest && customer && at !== undefined && JSON.parse(customer.json).has_account !== true) {
      if (!this.indexes.get(keys.commerce.index(guest.index))?.has(guest.customerId)) this.write(guest.customerId, [{ index: guest.index, score: at }], [])
    }
    return { kind: 'created', displayId }
  }

  private write (id: string, indexes: IndexEntry[], lookups: Lookup[]): void {
    for (const entry of indexes) {
      const key = keys.commerce.index(entry.index)
      let index = this.indexes.get(key)
      if (!index) this.indexes.set(key, index = new Map())
      index.set(id, entry.score)
    }
    for (const l of lookups) this.strings.set(keys.commerce.lookup(l.name, l.value), id)
  }

  private hash (inventoryItemId: string): Map<string, string> {
    const key = keys.commerce.stock(inventoryItemId)
    let hash = this.hashes.get(key)
    if (!hash) this.hashes.set(key, hash = new Map())
    return hash
  }

  private increment (inventoryItemId: string, locationId: string, field: 'stocked' | 'reserved', by: number, now: string): void {
    const hash = this.hash(inventoryItemId)
    hash.set(levelField(locationId, field), String(Number(hash.get(levelField(locationId, field)) ?? 0) + by))
    hash.set(levelField(locationId, 'updated_at'), now)
  }
}
