import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoTenants } from '../../src/tenants/demo.ts'
import { RedisTenantStore, TENANT_CACHE_MS } from '../../src/tenants/store.ts'
import { keys } from '../../src/stores/keys.ts'
import { testRedis } from '../helper.ts'

// Two instances' tenant stores on one Redis, each with its own clock: what one keeps in memory and for how long.

describe('club records kept in memory (redis, two instances)', () => {
  let r: Awaited<ReturnType<typeof testRedis>>
  let now = 1_000_000
  const clock = () => now
  let here: RedisTenantStore
  let there: RedisTenantStore
  const norte = demoTenants[0]!
  beforeAll(async () => {
    r = await testRedis()
    here = new RedisTenantStore(r.redis, TENANT_CACHE_MS, clock)
    there = new RedisTenantStore(r.redis, TENANT_CACHE_MS, clock)
    await there.put(norte)
  })
  afterAll(async () => { await r.cleanup() })

  it("answers from memory within the bound, so another instance's change shows only once the bound has passed", async () => {
    expect((await here.get(norte.id))?.name).toBe(norte.name)
    await there.put({ ...norte, name: 'Renamed elsewhere' })
    now += TENANT_CACHE_MS - 1
    expect((await here.get(norte.id))?.name).toBe(norte.name)
    now += 1
    expect((await here.get(norte.id))?.name).toBe('Renamed elsewhere')
  })

  it("shows the instance's own writes at once (put, update)", async () => {
    await here.get(norte.id)
    await here.put({ ...norte, name: 'Put here' })
    expect((await here.get(norte.id))?.name).toBe('Put here')
    await here.update(norte.id, (t) => ({ ...t, name: 'Updated here' }))
    expect((await here.get(norte.id))?.name).toBe('Updated here')
  })

  it('keeps no club that was not found: one created elsewhere is seen at once', async () => {
    expect(await here.get('club-nueva')).toBeUndefined()
    await there.create({ ...norte, id: 'club-nueva', name: 'Nueva' })
    expect((await here.get('club-nueva'))?.name).toBe('Nueva')
  })

  it('reads Redis again after the bound even when nothing changed, and a record gone is gone', async () => {
    await here.get(norte.id)
    await r.redis.del(keys.tenants.one(norte.id))
    expect(await here.get(norte.id)).toBeDefined()
    now += TENANT_CACHE_MS
    expect(await here.get(norte.id)).toBeUndefined()
  })
})
