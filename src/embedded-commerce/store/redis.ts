import type { Redis } from 'ioredis'
import type { DocKinds, Kind, StockLevel } from '../model.ts'
import { keys } from '../../stores/keys.ts'
import { completeCart, createDoc, replaceDoc, setStocked } from './lua.ts'
import {
  levelsFromHash, mergeDeltas, mergeReservations, newestFirstOrder,
  type CommerceStore, type CompleteCartInput, type CompleteCartResult, type IndexEntry, type Lookup, type ReplaceOptions, type ReplaceResult, type Versioned,
} from './port.ts'

const DISPLAY_ID_SLOT = '__DISPLAY_ID__'

/** Records are hashes {rev, doc}; every read-check-write is one of the scripts in lua.ts. */
export class RedisCommerceStore implements CommerceStore {
  constructor (private readonly redis: Redis) {}

  async get<K extends Kind> (kind: K, id: string): Promise<Versioned<DocKinds[K]> | undefined> {
    const [rev, doc] = await this.redis.hmget(keys.commerce.doc(kind, id), 'rev', 'doc')
    return rev && doc ? { rev: Number(rev), doc: JSON.parse(doc) } : undefined
  }

  async getMany<K extends Kind> (kind: K, ids: readonly string[]): Promise<Array<Versioned<DocKinds[K]>>> {
    // Side by side, not a pipeline of their own: the client (BatchingRedis) sends them in the batch of whatever
    // else goes out in this tick (one socket write), and no Pipeline object is built per read.
    const found = await Promise.all(ids.map(async (id) => await this.get(kind, id)))
    return found.filter((v): v is Versioned<DocKinds[K]> => v !== undefined)
  }

  async create<K extends Kind> (kind: K, doc: DocKinds[K] & { id: string }, indexes: IndexEntry[], lookups: Lookup[]): Promise<boolean> {
    const keyList = [
      keys.commerce.doc(kind, doc.id), ...indexes.map((i) => keys.commerce.index(i.index)), ...lookups.map((l) => keys.commerce.lookup(l.name, l.value))
    ]
    const score = indexes[0]?.score ?? 0
    return await createDoc(this.redis, keyList, JSON.stringify(doc), doc.id, score, indexes.length)
  }

  async replace<K extends Kind> (kind: K, rev: number, doc: DocKinds[K] & { id: string }, options: ReplaceOptions = {}): Promise<ReplaceResult> {
    const deltas = mergeDeltas(options.stock ?? [])
    const guard = options.unlessCartCompleted
    const addTo = options.addTo ?? []
    const removeFrom = options.removeFrom ?? []
    const keyList = [
      keys.commerce.doc(kind, doc.id), keys.commerce.cartOrder(guard ?? doc.id), ...deltas.map((d) => keys.commerce.stock(d.inventoryItemId)),
      ...addTo.map((e) => keys.commerce.index(e.index)),
      ...removeFrom.flatMap((r) => [r.index, ...(r.unlessAnyOf ?? [])].map((i) => keys.commerce.index(i))),
    ]
    return await replaceDoc(this.redis, keyList, rev, JSON.stringify(doc), guard ? '1' : '0', new Date().toISOString(), deltas.length, addTo.length, doc.id,
      ...deltas.flatMap((d) => [d.locationId, d.stocked, d.reserved]), ...addTo.map((e) => e.score), ...removeFrom.map((r) => r.unlessAnyOf?.length ?? 0))
  }

  async ids (index: string): Promise<string[]> {
    return await this.redis.zrange(keys.commerce.index(index), 0, -1)
  }

  async page (index: string, offset: number, limit: number, newestFirst: boolean) {
    const key = keys.commerce.index(index)
    if (limit <= 0) return { ids: [], total: await this.redis.zcard(key) }
    if (!newestFirst) {
      const [total, ids] = await Promise.all([this.redis.zcard(key), this.redis.zrange(key, offset, offset + limit - 1)])
      return { ids, total }
    }
    // Redis lists equal scores newest first by id descending: the entries up to the page's end are put in order,
    // those of its last score read whole (ascending), since the ones that belong on the page may lie beyond it
    const [total, flat] = await Promise.all([this.redis.zcard(key), this.redis.zrevrange(key, 0, offset + limit - 1, 'WITHSCORES')])
    if (flat.length === 0) return { ids: [], total }
    const last = flat[flat.length - 1] as string
    const above: Array<[string, number]> = []
    for (let i = 0; i < flat.length; i += 2) if (flat[i + 1] !== last) above.push([flat[i] as string, Number(flat[i + 1])])
    const tied = await this.redis.zrangebyscore(key, last, last)
    return { ids: [...above.sort(newestFirstOrder).map(([id]) => id), ...tied].slice(offset, offset + limit), total }
  }

  async addToIndexes (entries: ReadonlyArray<IndexEntry & { id: string }>) {
    await Promise.all(entries.map(async (e) => await this.redis.zadd(keys.commerce.index(e.index), 'NX', e.score, e.id)))
  }

  async lookup (name: string, value: string): Promise<string | undefined> {
    return await this.redis.get(keys.commerce.lookup(name, value)) ?? undefined
  }

  async claim (name: string, value: string, id: string): Promise<boolean> {
    return await this.redis.set(keys.commerce.lookup(name, value), id, 'NX') === 'OK'
  }

  async stock (inventoryItemId: string): Promise<StockLevel[]> {
    return levelsFromHash(await this.redis.hgetall(keys.commerce.stock(inventoryItemId)))
  }

  async setStocked (inventoryItemId: string, locationId: string, quantity: number, levelId: string, now: string): Promise<'ok' | 'below_reserved'> {
    return await setStocked(this.redis, [keys.commerce.stock(inventoryItemId)], locationId, quantity, levelId, now)
  }

  async cartOrder (cartId: string): Promise<string | undefined> {
    return await this.redis.get(keys.commerce.cartOrder(cartId)) ?? undefined
  }

  async completeCart (input: CompleteCartInput): Promise<CompleteCartResult> {
    const reservations = mergeReservations(input.reservations)
    const guest = input.guest
    const keyList = [
      keys.commerce.cartOrder(input.cartId),
      keys.commerce.doc('cart', input.cartId),
      keys.commerce.doc('order', input.order.id),
      keys.commerce.displayIdSeq(input.order.sales_channel_id),
      ...input.indexes.map((i) => keys.commerce.index(i.index)),
      ...input.lookups.map((l) => keys.commerce.lookup(l.name, l.value)),
      ...(guest ? [keys.commerce.doc('customer', guest.customerId), keys.commerce.index(guest.scoreFrom), keys.commerce.index(guest.index)] : []),
      ...reservations.map((r) => keys.commerce.stock(r.inventoryItemId)),
    ]
    const orderJson = JSON.stringify({ ...input.order, display_id: DISPLAY_ID_SLOT })
    const score = input.indexes[0]?.score ?? 0
    const reply = await completeCart(this.redis, keyList,
      input.cartRev, orderJson, input.order.id, score, input.now, input.indexes.length, input.lookups.length, guest ? '1' : '0', guest?.customerId ?? '',
      ...reservations.flatMap((r) => [r.locationId, r.quantity]))
    if (reply.kind !== 'insufficient') return reply
    const r = reservations[reply.level] as (typeof reservations)[number]
    return { kind: 'insufficient', inventoryItemId: r.inventoryItemId, locationId: r.locationId }
  }
}
