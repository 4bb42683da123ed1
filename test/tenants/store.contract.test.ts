import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Tenant } from '../../src/tenants/model.ts'
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

describe.each(stores)('tenant store contract (%s)', (name, make) => {
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

  it('hands out frozen records, so a caller cannot change what is stored: a write anywhere in one throws', async () => {
    const tenant = await store.get('club-sur') as Tenant
    const [listed] = await store.list() as Tenant[]
    expect(() => { tenant.name = 'changed' }).toThrow(TypeError)
    expect(() => { tenant.plan.maxActiveCrops = 99 }).toThrow(TypeError)
    expect(() => { listed!.locale = 'en' }).toThrow(TypeError)
    expect(await store.get('club-sur')).toMatchObject({ name: 'Club Sur', plan: demoTenants[1]!.plan })
    expect((await store.list())[0]?.locale).toBe(demoTenants[0]!.locale)
  })

  it('finds staff by email, whatever its case', async () => {
    for (const staff of demoStaff) await store.putStaff(staff)
    expect(await store.getStaff('GROWER@club-norte.test')).toEqual(demoStaff[1])
  })

  it('creates a tenant once: a second create of the id is refused and changes nothing', async () => {
    expect(await store.create({ id: 'club-este', name: 'Club Este', locale: 'en', currency: 'USD', plan: { maxActiveCrops: 5 } })).toBe(true)
    expect(await store.create({ id: 'club-este', name: 'Other', locale: 'es', currency: 'ARS', plan: { maxActiveCrops: 1 } })).toBe(false)
    expect(await store.get('club-este')).toMatchObject({ name: 'Club Este', timeZone: 'America/Argentina/Buenos_Aires' })
  })

  it('updates a tenant from what is stored; concurrent updates of different fields both land', async () => {
    await Promise.all([
      store.update('club-este', (t) => ({ ...t, locale: 'es' })),
      store.update('club-este', (t) => ({ ...t, timeZone: 'Europe/Madrid' })),
    ])
    expect(await store.get('club-este')).toMatchObject({ locale: 'es', timeZone: 'Europe/Madrid' })
    expect(await store.update('club-nowhere', (t) => t)).toBeUndefined()
  })

  it('keeps a roster per club and never lets its last admin go, even when two admins demote each other at once', async () => {
    const staff = (n: string, role: 'admin' | 'grower') => ({ id: `user_${n}`, email: `${n}@este.test`, name: n, role, tenants: ['club-este'] })
    await store.putStaff(staff('ada', 'admin'))
    await store.putStaff(staff('bea', 'admin'))
    await store.putStaff(staff('cai', 'grower'))
    expect((await store.listStaff('club-este')).map((s) => s.email)).toEqual(['ada@este.test', 'bea@este.test', 'cai@este.test'])
    const outcomes = await Promise.all([store.changeStaff('club-este', 'ada@este.test', 'grower'), store.changeStaff('club-este', 'BEA@este.test', null)])
    expect(outcomes.sort()).toEqual(['last-admin', 'ok'])
    expect((await store.listStaff('club-este')).filter((s) => s.role === 'admin')).toHaveLength(1)
    expect(await store.changeStaff('club-este', 'cai@este.test', null)).toBe('ok')
    expect(await store.getStaff('cai@este.test')).toBeUndefined()
    expect(await store.changeStaff('club-este', 'cai@este.test', 'admin')).toBe('missing')
  })
})
