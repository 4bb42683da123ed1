import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../helper.ts'
import { as, cropsApp, newCrop, type Call } from '../crops/client.ts'
import { stockedBatch, withLab } from './client.ts'

describe.each(['redis', 'memory'] as const)('batches API (%s)', (store) => {
  let t: TestApp
  let grower: Call
  let admin: Call
  let member: Call
  let otherClub: Call

  beforeAll(async () => {
    t = await cropsApp(store)
    grower = await as(t, 'grower')
    admin = await as(t, 'admin')
    member = await as(t, 'member')
    otherClub = await as(t, 'admin', 'club-sur')
  })
  afterAll(async () => { await t.close() })

  it('a harvest stocked with its dry weight becomes a batch under its batch number, once', async () => {
    const { batchNumber, cropId, harvestId } = await stockedBatch(grower, 250.5)
    const res = await grower('GET', `/api/batches/${batchNumber}`)
    expect(res.status).toBe(200)
    expect(res.body.batch).toMatchObject({
      batchNumber,
      cropId,
      harvestId,
      strain: { id: 'strain_norte_gelato', name: 'Gelato' },
      status: 'AVAILABLE',
      gramsHarvested: 250.5,
      gramsAvailable: 250.5,
      gramsOnHand: 250.5,
      grams: { harvested: 250.5, available: 250.5, packaged: 0, onShelf: 0, dispensed: 0, destroyed: 0, withdrawn: 0, onHand: 250.5 },
      lab: null,
      packaged: [],
      recall: null,
    })
    // Twelve months after the harvest unless set otherwise.
    const months = (Date.parse(res.body.batch.bestBefore) - Date.parse(res.body.batch.harvestedAt)) / (30 * 24 * 3600 * 1000)
    expect(months).toBeGreaterThan(12)
    expect(months).toBeLessThan(12.3)
    // Written as STOCKED again (a moisture reading), even with a corrected dry weight: the batch stays as it was.
    expect((await grower('PATCH', `/api/crops/${cropId}/harvest/${harvestId}`, { moisture: 11, dryWeight: 240 })).status).toBe(200)
    expect((await grower('GET', `/api/batches/${batchNumber}`)).body.batch.gramsAvailable).toBe(250.5)
    expect((await grower('GET', '/api/batches?limit=100')).body.batches.filter((b: { batchNumber: string }) => b.batchNumber === batchNumber)).toHaveLength(1)
  })

  it('a harvest still drying or curing is no batch', async () => {
    const cropId = await newCrop(grower, { status: 'FLOWERING' })
    const { harvest } = (await grower('POST', `/api/crops/${cropId}/harvest`, { wetWeight: 100 })).body
    await grower('PATCH', `/api/crops/${cropId}/harvest/${harvest.id}`, { dryWeight: 20, status: 'CURING' })
    expect((await grower('GET', `/api/batches/${harvest.batchNumber}`)).status).toBe(404)
  })

  it('lab results: the newest is the batch\'s THC and CBD, earlier ones kept; out of range refused, nothing written', async () => {
    const { batchNumber } = await stockedBatch(grower, 100)
    await withLab(grower, batchNumber, 17, 1)
    const res = await admin('POST', `/api/batches/${batchNumber}/lab-results`, {
      thcPercent: 19.2, cbdPercent: 0.5, reportRef: 'LAB-7', testedAt: '2026-01-10'
    })
    expect(res.status).toBe(201)
    expect(res.body.batch.lab).toMatchObject({
      thcPercent: 19.2, cbdPercent: 0.5, reportRef: 'LAB-7', testedAt: '2026-01-10T00:00:00.000Z', recordedBy: { id: 'test-admin' }
    })
    expect(res.body.batch.labHistory.map((l: { thcPercent: number }) => l.thcPercent)).toEqual([17, 19.2])
    for (const bad of [
      { thcPercent: 101, cbdPercent: 0, reportRef: 'x' },
      { thcPercent: -1, cbdPercent: 0, reportRef: 'x' },
      { thcPercent: 60, cbdPercent: 50, reportRef: 'x' },
      { thcPercent: 10, cbdPercent: 1, reportRef: '' },
      { thcPercent: 10, cbdPercent: 1 },
      { thcPercent: 10, cbdPercent: 1, reportRef: 'x', testedAt: '2999-01-01' },
    ]) {
      const refused = await grower('POST', `/api/batches/${batchNumber}/lab-results`, bad)
      expect(refused.status, JSON.stringify(bad)).toBe(400)
      expect(refused.body.error.code).toBe('VALIDATION_ERROR')
    }
    expect((await grower('GET', `/api/batches/${batchNumber}`)).body.batch.labHistory).toHaveLength(2)
  })

  it('best-before can be set, never before the harvest', async () => {
    const { batchNumber } = await stockedBatch(grower, 10)
    const res = await grower('PATCH', `/api/batches/${batchNumber}`, { bestBefore: '2031-05-01' })
    expect(res.status).toBe(200)
    expect(res.body.batch.bestBefore).toBe('2031-05-01T00:00:00.000Z')
    const refused = await grower('PATCH', `/api/batches/${batchNumber}`, { bestBefore: '2001-05-01' })
    expect(refused.status).toBe(400)
    expect(refused.body.error.details.errors.bestBefore).toBeDefined()
  })

  it('lists newest first with filters on status, strain and grams available, paged by limit/offset', async () => {
    const small = await stockedBatch(admin, 5, { strain: 'strain_norte_amnesia' })
    const big = await stockedBatch(admin, 900, { strain: 'strain_norte_amnesia' })
    const page = (await admin('GET', '/api/batches?strain=strain_norte_amnesia&limit=1')).body
    expect(page).toMatchObject({ count: 2, limit: 1, offset: 0 })
    expect(page.batches.map((b: { batchNumber: string }) => b.batchNumber)).toEqual([big.batchNumber])
    const next = (await admin('GET', '/api/batches?strain=strain_norte_amnesia&limit=1&offset=1')).body
    expect(next.batches.map((b: { batchNumber: string }) => b.batchNumber)).toEqual([small.batchNumber])
    const heavy = (await admin('GET', '/api/batches?strain=strain_norte_amnesia&minGramsAvailable=100')).body
    expect(heavy.batches.map((b: { batchNumber: string }) => b.batchNumber)).toEqual([big.batchNumber])
    expect((await admin('GET', '/api/batches?status=RECALLED&strain=strain_norte_amnesia')).body.count).toBe(0)
    const all = (await admin('GET', '/api/batches?limit=0')).body
    expect(all.batches).toEqual([])
    expect(all.count).toBeGreaterThanOrEqual(2)
    expect((await admin('GET', '/api/batches?status=SOLD')).status).toBe(400)
  })

  it('members are refused; another club sees none of this club\'s batches', async () => {
    const { batchNumber } = await stockedBatch(grower, 10)
    expect((await member('GET', '/api/batches')).status).toBe(403)
    expect((await member('GET', `/api/batches/${batchNumber}`)).body.error.code).toBe('INSUFFICIENT_PERMISSIONS')
    const foreign = await otherClub('GET', `/api/batches/${batchNumber}`)
    expect(foreign.status).toBe(404)
    expect(foreign.body.error.code).toBe('NOT_FOUND')
    expect((await otherClub('POST', `/api/batches/${batchNumber}/lab-results`, { thcPercent: 1, cbdPercent: 1, reportRef: 'x' })).status).toBe(404)
    expect((await grower('GET', `/api/batches/${batchNumber}`)).body.batch.lab).toBeNull()
    expect((await otherClub('GET', '/api/batches?limit=100')).body.batches.some((b: { batchNumber: string }) => b.batchNumber === batchNumber)).toBe(false)
  })
})
