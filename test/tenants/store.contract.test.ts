import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryTenantStore, RedisTenantStore, type TenantStore } from '../../src/tenants/store.ts'
import { demoStaff, demoTenants } from '../../src/tenants/demo.ts'
import { testRedis, testRedisCluster } from '../helper.ts'

type Make = () => Promise<{ store: TenantStore, cleanup: () => Promise<void> }>
const onRedis = (open: typeof testRedis | typeof testRedisCluster): Make => async () => {
  const r = await open()
  return { store: new RedisTenantStore(r.redis), cleanup: r.cleanup }
}
const stores: Array<[string, Make]> = [
  ['memory', async () => ({ store: new MemoryTenantStore(), cleanup: async () => {} })],
  ['redis', onRedis(testRedis)],
  ['cluster', onRedis(testRedisCluster)],
]

describe.each(stores)('tenant store contract (%s)', (_name, make) => {
  let store: TenantStore
  let cleanup: () => Promise<void>
  beforeAll(async () => { ({ store, cleanup } = await make()) })
  afterAll(async () => { await cleanup() })

  it('is empty at first', async () => {
    expect(await store.list()).toEqual([])
    expect(await store.get('club-norte')).toBeUndefined()
    expect(await store.getStaff('admin@club-norte.test')).toBeUndefined()
  })

  it('puts, gets and lists tenants in id order; a put replaces', async () => {
    for (const tenant of [...demoTenants].reverse()) await store.put(tenant)
    expect((await store.list()).map((t) => t.id)).toEqual(['club-norte', 'club-sur'])
    await store.put({ ...demoTenants[0]!, name: 'Club Norte Renamed' })
    expect((await store.get('club-norte'))?.name).toBe('Club Norte Renamed')
    expect(await store.list()).toHaveLength(2)
  })

  it('hands out copies, so a caller cannot change what is stored', async () => {
    const tenant = await store.get('club-sur')
    tenant!.name = 'changed'
    expect((await store.get('club-sur'))?.name).toBe('Club Sur')
  })

  it('finds staff by email, whatever its case', async () => {
    for (const staff of demoStaff) await store.putStaff(staff)
    expect(await store.getStaff('GROWER@club-norte.test')).toEqual(demoStaff[1])
  })
})
