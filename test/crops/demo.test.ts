import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoCatalogs, demoCrops, seedCropDemo } from '../../src/crops/demo.ts'
import { createCatalogStore, createCropStore } from '../../src/crops/store/index.ts'
import type { TestApp } from '../helper.ts'
import { as, cropsApp } from './client.ts'

describe.each(['redis', 'memory'] as const)('crops demo data (%s)', (store) => {
  let t: TestApp
  beforeAll(async () => { t = await cropsApp(store) })
  afterAll(async () => { await t.close() })

  it('each demo club has its catalog and its crop, with the documented ids', async () => {
    for (const [tenant, catalog] of Object.entries(demoCatalogs)) {
      const call = await as(t, 'admin', tenant)
      for (const kind of ['strains', 'spaces', 'lights'] as const) {
        const res = await call('GET', `/api/${kind}`)
        expect(res.body[kind].map((i: { id: string }) => i.id).sort()).toEqual(catalog[kind].map((i) => i.id).sort())
      }
    }
    const norte = await as(t, 'grower', 'club-norte')
    const complete = (await norte('GET', '/api/crops/crop_norte_gelato/complete')).body
    expect(complete.crop).toMatchObject({ status: 'FLOWERING', spaces: [{ id: 'space_norte_flora', squareMeters: 12 }] })
    expect(complete.crop.statusHistory.map((e: { status: string }) => e.status)).toEqual(['PROPAGATING', 'VEGETATING', 'FLOWERING'])
    expect(complete.stats).toMatchObject({ daysInCurrentStatus: 21, totalDaysFromSeed: 70, wateringCount: 4 })
    expect(complete.crop.plants).toHaveLength(6)
    const sur = await as(t, 'admin', 'club-sur')
    expect((await sur('GET', '/api/crops/crop_sur_critical')).body.crop.status).toBe('VEGETATING')
    expect((await sur('GET', '/api/crops/crop_norte_gelato')).status).toBe(404)
  })

  it('seeding again changes nothing, not even what staff edited', async () => {
    const crops = createCropStore(t.redis)
    const catalog = createCatalogStore(t.redis)
    // On Redis these are the app's own data (already seeded once); on memory fresh stores, seeded here.
    await seedCropDemo(crops, catalog)
    await crops.update('club-norte', 'crop_norte_gelato', (crop) => ({ crop: { ...crop, name: 'Renamed by staff' }, result: undefined }))
    const snapshot = async () => ({
      crops: await Promise.all(demoCrops.map(async (d) => [await crops.get(d.tenantId, d.id), await crops.plants(d.tenantId, d.id)])),
      strains: await catalog.list('club-norte', 'strains'),
    })
    const before = await snapshot()
    await seedCropDemo(crops, catalog, new Date(Date.now() + 86_400_000))
    expect(await snapshot()).toEqual(before)
    expect(before.crops[0]?.[0]).toMatchObject({ name: 'Renamed by staff' })
    expect(before.strains).toHaveLength(demoCatalogs['club-norte']?.strains.length ?? -1)
  })
})
