import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryBatchStore } from '../../src/batches/store/memory.ts'
import type { BatchStore } from '../../src/batches/store/port.ts'
import { RedisBatchStore } from '../../src/batches/store/redis.ts'
import { testRedis, testRedisCluster } from '../helper.ts'
import { batchRecord, packaged } from './fixtures.ts'

interface Stores {
  /** Two handles on the same data (two connections for Redis), to race against each other. */
  stores: [BatchStore, BatchStore]
  close: () => Promise<void>
}

async function redisStores (open: typeof testRedis | typeof testRedisCluster = testRedis): Promise<Stores> {
  const r = await open()
  const other = r.redis.duplicate()
  return { stores: [new RedisBatchStore(r.redis), new RedisBatchStore(other)], close: async () => { other.disconnect(); await r.cleanup() } }
}

async function memoryStores (): Promise<Stores> {
  const store = new MemoryBatchStore()
  return { stores: [store, store], close: async () => {} }
}

let seq = 0
const freshTenant = () => `club-${++seq}-${Date.now()}`
const EVERY = { limit: 1000, offset: 0 }

describe.each([['redis', redisStores], ['cluster', async () => await redisStores(testRedisCluster)], ['memory', memoryStores]] as const)(
  'batch store contract (%s)',
  (_name, make) => {
    let s: Stores
    let store: BatchStore
    let racer: BatchStore
    beforeAll(async () => {
      s = await make()
      ;[store, racer] = s.stores
    })
    afterAll(async () => { await s.close() })

    it('creates once per club and number, reads back, lists newest harvest first', async () => {
      const tenant = freshTenant()
      const a = batchRecord(tenant, 'B-1')
      const b = batchRecord(tenant, 'B-2', { strain: { id: 'strain_y', name: 'Y' } })
      expect(await store.create(a)).toBe(true)
      expect(await store.create(b)).toBe(true)
      expect(await store.create({ ...a, bulkMg: 1 })).toBe(false)
      expect(await store.get(tenant, 'B-1')).toEqual(a)
      expect(await store.get(freshTenant(), 'B-1')).toBeUndefined()
      const page = await store.list(tenant, EVERY)
      expect(page.total).toBe(2)
      expect(page.batches.map((x) => x.batchNumber)).toEqual(['B-2', 'B-1'])
      expect((await store.list(tenant, { limit: 1, offset: 1 })).batches.map((x) => x.batchNumber)).toEqual(['B-1'])
      expect(await store.list(tenant, { limit: 0, offset: 0 })).toEqual({ batches: [], total: 2 })
      expect((await store.list(tenant, { ...EVERY, strain: 'strain_y' })).batches.map((x) => x.batchNumber)).toEqual(['B-2'])
      expect((await store.all(tenant)).map((x) => x.batchNumber).sort()).toEqual(['B-1', 'B-2'])
    })

    it('changes several batches together, and keeps the variants\' offers earliest best-before first', async () => {
      const tenant = freshTenant()
      const late = batchRecord(tenant, 'B-late', { bestBefore: '2030-01-01T00:00:00.000Z' })
      const early = batchRecord(tenant, 'B-early', { bestBefore: '2028-01-01T00:00:00.000Z' })
      await store.create(late)
      await store.create(early)
      expect(await store.offering(tenant, 'v1')).toEqual([])
      const result = await store.update(tenant, ['B-late', 'B-early'], (batches) => ({ batches: batches.map((b) => packaged(b, 'v1', 4)), result: 'done' }))
      expect(result).toBe('done')
      expect(await store.offering(tenant, 'v1')).toEqual(['B-early', 'B-late'])
      expect((await store.get(tenant, 'B-early'))?.bulkMg).toBe(80_000)
      // Sold out of one: it is offered no more; recalled: neither.
      await store.update(tenant, ['B-early'], ([b]) => ({ batches: [{ ...b!, shelf: b!.shelf.map((l) => ({ ...l, dispensed: l.packaged })) }], result: null }))
      expect(await store.offering(tenant, 'v1')).toEqual(['B-late'])
      await store.update(tenant, ['B-late'], ([b]) => ({
        batches: [{
          ...b!,
          recall: {
            reason: 'x',
            at: b!.createdAt,
            by: { id: 'a', name: 'a' },
            unitsWithdrawn: 0,
            offSale: 'stock-to-zero' as const,
            stock: [],
            dispensationIds: [],
            membersNotified: 0
          }
        }],
        result: null
      }))
      expect(await store.offering(tenant, 'v1')).toEqual([])
      expect((await store.list(tenant, { ...EVERY, status: 'RECALLED' })).batches.map((b) => b.batchNumber)).toEqual(['B-late'])
    })

    it('writes none when one batch is missing, and what a change throws is thrown with nothing written', async () => {
      const tenant = freshTenant()
      await store.create(batchRecord(tenant, 'B-1'))
      expect(await store.update(tenant, ['B-1', 'B-missing'], (batches) => ({ batches: batches.map((b) => ({ ...b, bulkMg: 0 })), result: 1 }))).toBeUndefined()
      await expect(store.update(tenant, ['B-1'], () => { throw new Error('refused') })).rejects.toThrow('refused')
      expect((await store.get(tenant, 'B-1'))?.bulkMg).toBe(100_000)
    })

    it('concurrent changes from two connections are all applied (compare-and-set, re-run on a lost race)', async () => {
      const tenant = freshTenant()
      await store.create(batchRecord(tenant, 'B-1'))
      await store.create(batchRecord(tenant, 'B-2'))
      const take = (from: BatchStore) =>
        from.update(tenant, ['B-1', 'B-2'], (batches) => ({ batches: batches.map((b) => ({ ...b, bulkMg: b.bulkMg - 1000 })), result: true }))
      await Promise.all(Array.from({ length: 10 }, (_, i) => take(i % 2 === 0 ? store : racer)))
      expect((await store.get(tenant, 'B-1'))?.bulkMg).toBe(90_000)
      expect((await store.get(tenant, 'B-2'))?.bulkMg).toBe(90_000)
    })
  }
)
