import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { frozenStatuses } from '../../machines/crop.machine.ts'
import { MemoryCatalogStore, MemoryCropStore } from '../../src/crops/store/memory.ts'
import { MAX_CHANGE_ATTEMPTS, type CatalogStore, type CropStore } from '../../src/crops/store/port.ts'
import { RedisCatalogStore, RedisCropStore } from '../../src/crops/store/redis.ts'
import { keys } from '../../src/stores/keys.ts'
import { testRedis, testRedisCluster } from '../helper.ts'
import { cropRecord, plants } from './fixtures.ts'

interface Stores {
  /** Two handles on the same data (two connections for Redis), to race against each other. */
  crops: [CropStore, CropStore]
  catalog: CatalogStore
  close: () => Promise<void>
}

async function redisStores (open: typeof testRedis | typeof testRedisCluster = testRedis): Promise<Stores> {
  const r = await open()
  const other = r.redis.duplicate()
  return {
    crops: [new RedisCropStore(r.redis), new RedisCropStore(other)],
    catalog: new RedisCatalogStore(r.redis),
    close: async () => { other.disconnect(); await r.cleanup() },
  }
}

async function memoryStores (): Promise<Stores> {
  const store = new MemoryCropStore()
  return { crops: [store, store], catalog: new MemoryCatalogStore(), close: async () => {} }
}

const EVERY = { limit: 1000, offset: 0 }
const listAll = async (store: CropStore, tenant: string) => (await store.list(tenant, EVERY)).crops

let tenantSeq = 0
const freshTenant = () => `tenant-${++tenantSeq}-${Date.now()}`

describe.each([['redis', redisStores], ['cluster', async () => await redisStores(testRedisCluster)], ['memory', memoryStores]] as const)(
  'crop store contract (%s)',
  (_name, make) => {
    let s: Stores
    let store: CropStore
    let racer: CropStore
    beforeAll(async () => {
      s = await make()
      ;[store, racer] = s.crops
    })
    afterAll(async () => { await s.close() })

    it('creates, reads back and lists newest first, per tenant', async () => {
      const tenant = freshTenant()
      const a = cropRecord(tenant, { name: 'A' })
      const b = cropRecord(tenant, { name: 'B' })
      expect(await store.create(a, [], 10)).toEqual({ ok: true })
      expect(await store.create(b, [], 10)).toEqual({ ok: true })
      expect(await store.get(tenant, a.id)).toEqual(a)
      expect((await listAll(store, tenant)).map((c) => c.name)).toEqual(['B', 'A'])
      expect(await store.get(freshTenant(), a.id)).toBeUndefined()
      expect(await listAll(store, freshTenant())).toEqual([])
    })

    it('pages newest first with the total, filters before paging, and past the end gives the total and no crops', async () => {
      const tenant = freshTenant()
      const names = ['A', 'B', 'C', 'D', 'E']
      for (const name of names) {
        await store.create(
          cropRecord(tenant, { name, status: name === 'B' || name === 'D' ? 'FINISHED' : 'IDEATING', spaceIds: name === 'E' ? ['space_1'] : [] }), [], 10
        )
      }
      const page = async (query: Parameters<CropStore['list']>[1]) => {
        const { crops, total } = await store.list(tenant, query)
        return { names: crops.map((c) => c.name), total }
      }
      expect(await page({ limit: 2, offset: 0 })).toEqual({ names: ['E', 'D'], total: 5 })
      expect(await page({ limit: 2, offset: 2 })).toEqual({ names: ['C', 'B'], total: 5 })
      expect(await page({ limit: 2, offset: 4 })).toEqual({ names: ['A'], total: 5 })
      expect(await page({ limit: 2, offset: 9 })).toEqual({ names: [], total: 5 })
      expect(await page({ limit: 1, offset: 1, status: 'FINISHED' })).toEqual({ names: ['B'], total: 2 })
      expect(await page({ limit: 10, offset: 0, spaceId: 'space_1' })).toEqual({ names: ['E'], total: 1 })
      expect(await page({ limit: 10, offset: 0, search: 'c', strain: 'strain_x' })).toEqual({ names: ['C'], total: 1 })
      expect(await page({ limit: 10, offset: 0, strain: 'strain_y' })).toEqual({ names: [], total: 0 })
    })

    it('lists summaries (what the list shows and filters on), never whole records, and keeps them in step', async () => {
      const tenant = freshTenant()
      const a = cropRecord(tenant, {
        spaceIds: ['space_1'],
        timeline: [{ type: 'PLANTING', date: '2024-01-01T00:00:00.000Z', data: {}, notes: '', evidences: [], author: { id: 'u', name: 'U' } }]
      })
      await store.create(a, [], 10)
      const summary = { id: a.id, name: a.name, strain: a.strain, status: a.status, plantedAt: a.plantedAt, spaceIds: ['space_1'], createdAt: a.createdAt }
      expect(await listAll(store, tenant)).toEqual([summary])
      await store.update(tenant, a.id, (crop) => ({ crop: { ...crop, name: 'Renamed', status: 'PROPAGATING', spaceIds: [] }, result: undefined }))
      expect(await listAll(store, tenant)).toEqual([{ ...summary, name: 'Renamed', status: 'PROPAGATING', spaceIds: [] }])
    })

    it('refuses a second crop with the same id', async () => {
      const tenant = freshTenant()
      const a = cropRecord(tenant)
      await store.create(a, [], 10)
      expect(await store.create({ ...a, name: 'other' }, [], 10)).toEqual({ ok: false, reason: 'EXISTS' })
      expect((await store.get(tenant, a.id))?.name).toBe(a.name)
    })

    it('enforces the active-crop limit, but a FINISHED crop always fits', async () => {
      const tenant = freshTenant()
      expect(await store.create(cropRecord(tenant), [], 2)).toEqual({ ok: true })
      expect(await store.create(cropRecord(tenant), [], 2)).toEqual({ ok: true })
      expect(await store.create(cropRecord(tenant), [], 2)).toEqual({ ok: false, reason: 'LIMIT_EXCEEDED', current: 2 })
      expect(await store.create(cropRecord(tenant, { status: 'FINISHED' }), [], 2)).toEqual({ ok: true })
      expect(await listAll(store, tenant)).toHaveLength(3)
    })

    it('concurrent creates never exceed the limit', async () => {
      const tenant = freshTenant()
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? racer : store).create(cropRecord(tenant), [], 7)))
      expect(results.filter((r) => r.ok)).toHaveLength(7)
      expect(await listAll(store, tenant)).toHaveLength(7)
    })

    it('update applies a pure change and reports its result; a missing crop is undefined', async () => {
      const tenant = freshTenant()
      const a = cropRecord(tenant)
      await store.create(a, [], 10)
      const result = await store.update(tenant, a.id, (crop) => ({ crop: { ...crop, name: 'Renamed' }, result: crop.name }))
      expect(result).toBe(a.name)
      expect((await store.get(tenant, a.id))?.name).toBe('Renamed')
      expect(await store.update(tenant, 'crop_missing', (crop) => ({ crop, result: 1 }))).toBeUndefined()
    })

    it('a change that throws writes nothing', async () => {
      const tenant = freshTenant()
      const a = cropRecord(tenant)
      await store.create(a, [], 10)
      await expect(store.update(tenant, a.id, () => { throw new Error('refused') })).rejects.toThrow('refused')
      expect(await store.get(tenant, a.id)).toEqual(a)
    })

    it('concurrent updates lose nothing', async () => {
      const tenant = freshTenant()
      const a = cropRecord(tenant)
      await store.create(a, [], 10)
      await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? racer : store).update(tenant, a.id, (crop) => ({
        crop: {
          ...crop,
          timeline: [
            ...crop.timeline, { type: 'OBSERVATION' as const, date: crop.createdAt, data: { i }, notes: '', evidences: [], author: { id: 'u', name: 'U' } }
          ]
        },
        result: undefined,
      }))))
      const stored = await store.get(tenant, a.id)
      expect(stored?.timeline.map((e) => (e.data as { i: number }).i).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    })

    it('a crop that reaches FINISHED stops counting as active', async () => {
      const tenant = freshTenant()
      const a = cropRecord(tenant, { status: 'CURING' })
      await store.create(a, [], 1)
      expect(await store.create(cropRecord(tenant), [], 1)).toMatchObject({ ok: false, reason: 'LIMIT_EXCEEDED' })
      await store.update(tenant, a.id, (crop) => ({ crop: { ...crop, status: 'FINISHED' }, result: undefined }))
      expect(await store.create(cropRecord(tenant), [], 1)).toEqual({ ok: true })
    })

    it('stores the first plants with the crop and adds more in order, all or none', async () => {
      const tenant = freshTenant()
      const a = cropRecord(tenant)
      await store.create(a, plants(a.id, ['P-001', 'P-002']), 10)
      const more = plants(a.id, ['P-003', 'P-004'])
      expect(await store.addPlants(tenant, a.id, more, frozenStatuses)).toEqual({ ok: true })
      expect((await store.plants(tenant, a.id)).map((p) => p.code)).toEqual(['P-001', 'P-002', 'P-003', 'P-004'])
      expect(await store.addPlants(tenant, a.id, plants(a.id, ['P-005', 'P-002', 'P-004']), frozenStatuses))
        .toEqual({ ok: false, reason: 'DUPLICATE', codes: ['P-002', 'P-004'] })
      expect(await store.plants(tenant, a.id)).toHaveLength(4)
      expect(await store.plants(freshTenant(), a.id)).toEqual([])
    })

    it('refuses plants for a frozen or missing crop', async () => {
      const tenant = freshTenant()
      const a = cropRecord(tenant, { status: 'DRYING' })
      await store.create(a, [], 10)
      expect(await store.addPlants(tenant, a.id, plants(a.id, ['X']), frozenStatuses)).toEqual({ ok: false, reason: 'FROZEN', status: 'DRYING' })
      expect(await store.addPlants(tenant, 'crop_missing', plants('crop_missing', ['X']), frozenStatuses)).toEqual({ ok: false, reason: 'NOT_FOUND' })
    })

    it('two concurrent plant creations never produce duplicate codes', async () => {
      const tenant = freshTenant()
      const a = cropRecord(tenant)
      await store.create(a, [], 10)
      const codes = ['P-001', 'P-002', 'P-003']
      const results = await Promise.all([store, racer, store, racer].map((st) => st.addPlants(tenant, a.id, plants(a.id, codes), frozenStatuses)))
      expect(results.filter((r) => r.ok)).toHaveLength(1)
      expect((await store.plants(tenant, a.id)).map((p) => p.code)).toEqual(codes)
    })

    it('removes a crop with its plants; a second removal finds nothing', async () => {
      const tenant = freshTenant()
      const a = cropRecord(tenant)
      await store.create(a, plants(a.id, ['P-001']), 1)
      expect(await store.remove(tenant, a.id)).toBe(true)
      expect(await store.get(tenant, a.id)).toBeUndefined()
      expect(await store.plants(tenant, a.id)).toEqual([])
      expect(await listAll(store, tenant)).toEqual([])
      expect(await store.remove(tenant, a.id)).toBe(false)
      // The same id can be used again, with none of the old plants.
      expect(await store.create(a, [], 1)).toEqual({ ok: true })
      expect(await store.addPlants(tenant, a.id, plants(a.id, ['P-001']), frozenStatuses)).toEqual({ ok: true })
    })

    it('batch numbers are a per-tenant sequence without repeats, even concurrently', async () => {
      const tenant = freshTenant()
      const numbers = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? racer : store).nextBatchNumber(tenant)))
      expect([...numbers].sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
      expect(await store.nextBatchNumber(freshTenant())).toBe(1)
    })

    it('catalog: add once per id, get, list sorted by name, per tenant and kind', async () => {
      const tenant = freshTenant()
      const gelato = { id: 's1', name: 'Gelato', type: 'HYBRID', cannabinoids: { thc: 20, cbd: 1 } }
      const amnesia = { id: 's2', name: 'Amnesia', type: 'SATIVA', cannabinoids: { thc: 22, cbd: 0 } }
      expect(await s.catalog.add(tenant, 'strains', gelato)).toBe(true)
      expect(await s.catalog.add(tenant, 'strains', amnesia)).toBe(true)
      expect(await s.catalog.add(tenant, 'strains', { ...gelato, name: 'Other' })).toBe(false)
      expect(await s.catalog.get(tenant, 'strains', 's1')).toEqual(gelato)
      expect(await s.catalog.get(tenant, 'spaces', 's1')).toBeUndefined()
      expect(await s.catalog.get(freshTenant(), 'strains', 's1')).toBeUndefined()
      expect(await s.catalog.list(tenant, 'strains')).toEqual([amnesia, gelato])
      expect(await s.catalog.list(tenant, 'lights')).toEqual([])
    })
  }
)

describe('Redis crop store, crops stored before summaries were kept', () => {
  it('still lists them, from their record', async () => {
    const r = await testRedis()
    try {
      const store = new RedisCropStore(r.redis)
      const older = cropRecord('club-x', { name: 'Older' })
      const newer = cropRecord('club-x', { name: 'Newer' })
      await store.create(older, [], 10)
      await store.create(newer, [], 10)
      await r.redis.hdel(keys.crops.one('club-x', older.id), 'sum')
      expect((await listAll(store, 'club-x')).map((c) => [c.name, Object.keys(c).length])).toEqual([['Newer', 7], ['Older', 7]])
    } finally {
      await r.cleanup()
    }
  })
})

describe('Redis crop store under contention', () => {
  it('gives up with 409 CONFLICT when every write loses to another writer, and writes nothing of its own', async () => {
    const r = await testRedis()
    try {
      const store = new RedisCropStore(r.redis)
      const crop = cropRecord('club-x')
      await store.create(crop, [], 10)
      let attempts = 0
      // Fault injection: on the same connection, so Redis runs it between our read and our write, every time.
      const change = (current: typeof crop) => {
        attempts++
        r.redis.hincrby(keys.crops.one('club-x', crop.id), 'v', 1).catch(() => {})
        return { crop: { ...current, name: 'Mine' }, result: undefined }
      }
      await expect(store.update('club-x', crop.id, change)).rejects.toMatchObject({ code: 'CONFLICT', statusCode: 409 })
      expect(attempts).toBe(MAX_CHANGE_ATTEMPTS)
      expect((await store.get('club-x', crop.id))?.name).toBe(crop.name)
    } finally {
      await r.cleanup()
    }
  })
})
