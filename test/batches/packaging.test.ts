import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import { as, type Call } from '../crops/client.ts'
import { startCountingProxy, type CountingProxy } from '../orders/counting-proxy.ts'
import { FLOWERS, stockedBatch } from './client.ts'

// Packaging on the embedded backend, reached through a loopback that can fail the stock write (fault injection).

describe('packaging a batch into a variant', () => {
  let proxy: CountingProxy
  let t: TestApp
  let admin: Call
  let grower: Call
  let otherClub: Call
  let flowers: { id: string, variants: Array<{ id: string, inventoryItemId: string }> }

  const stocked = async (itemId: string) => await t.app.commerce.medusaFor((await t.app.tenants.get('club-norte'))!).stockedAtClub(itemId)
  const batchOf = async (n: string) => (await grower('GET', `/api/batches/${n}`)).body.batch

  beforeAll(async () => {
    proxy = await startCountingProxy()
    t = await buildTestApp({ env: { COMMERCE_TENANTS_FILE: proxy.tenantsFile, RATE_LIMIT_MAX: '1000000' } })
    proxy.target = t.app.commerceUrl
    admin = await as(t, 'admin')
    grower = await as(t, 'grower')
    otherClub = await as(t, 'admin', 'club-sur')
    flowers = (await admin('POST', '/api/products', FLOWERS)).body.product
  })
  afterAll(async () => {
    await t.close()
    await proxy.close()
  })

  it('draws units x grams per unit and adds the units to the variant\'s stock at the club\'s location', async () => {
    const { batchNumber } = await stockedBatch(grower, 100)
    const [five, ten] = flowers.variants
    const res = await grower('POST', `/api/batches/${batchNumber}/package`, { variantId: five!.id, units: 10 })
    expect(res.status).toBe(201)
    expect(res.body.packaging).toMatchObject({ variantId: five!.id, units: 10, grams: 50 })
    expect(res.body.stocked).toBe(10)
    expect(await stocked(five!.inventoryItemId)).toBe(10)
    await grower('POST', `/api/batches/${batchNumber}/package`, { variantId: ten!.id, units: 2 })
    await grower('POST', `/api/batches/${batchNumber}/package`, { variantId: five!.id, units: 1 })
    const batch = await batchOf(batchNumber)
    expect(batch.grams).toMatchObject({ harvested: 100, available: 25, packaged: 75, onShelf: 75, onHand: 100 })
    expect(batch.packaged).toEqual([
      expect.objectContaining({ variantId: five!.id, gramsPerUnit: 5, units: 11, remainingUnits: 11, title: 'Flores Gelato 5 g' }),
      expect.objectContaining({ variantId: ten!.id, gramsPerUnit: 10, units: 2, remainingUnits: 2 }),
    ])
    expect(batch.packagings.map((p: { state: string }) => p.state)).toEqual(['done', 'done', 'done'])
    expect(await stocked(five!.inventoryItemId)).toBe(11)
  })

  it('never below zero: more than the batch holds is refused with what it holds, nothing written', async () => {
    const { batchNumber } = await stockedBatch(grower, 12)
    const [five] = flowers.variants
    const before = await stocked(five!.inventoryItemId)
    const res = await grower('POST', `/api/batches/${batchNumber}/package`, { variantId: five!.id, units: 3 })
    expect(res.status).toBe(409)
    expect(res.body.error).toMatchObject({ code: 'CONFLICT', details: { availableGrams: 12, requestedGrams: 15 } })
    expect((await batchOf(batchNumber)).grams.available).toBe(12)
    expect(await stocked(five!.inventoryItemId)).toBe(before)
    // Destroyed grams come from the same bulk, never below zero either.
    expect((await grower('POST', `/api/batches/${batchNumber}/destroy`, { grams: 2.5, reason: 'Moho en un frasco' })).status).toBe(201)
    const over = await grower('POST', `/api/batches/${batchNumber}/destroy`, { grams: 10, reason: 'x' })
    expect(over.status).toBe(409)
    const batch = await batchOf(batchNumber)
    expect(batch.grams).toMatchObject({ available: 9.5, destroyed: 2.5, onHand: 9.5 })
    expect(batch.destructions).toEqual([expect.objectContaining({ grams: 2.5, reason: 'Moho en un frasco', by: { id: 'test-grower', name: 'Test grower' } })])
  })

  it('a variant without grams, of another strain, unknown, or another club\'s batch: clear errors, nothing written', async () => {
    const { batchNumber } = await stockedBatch(grower, 50)
    const papers = (await admin('POST', '/api/products', { title: 'Papelillos', variants: [{ title: 'x50', price: 1500 }] })).body.product
    const noGrams = await grower('POST', `/api/batches/${batchNumber}/package`, { variantId: papers.variants[0].id, units: 1 })
    expect(noGrams.status).toBe(400)
    expect(noGrams.body.error.details.errors.variantId[0]).toContain('no grams per unit')
    const amnesia = (await admin('POST', '/api/products', { ...FLOWERS, title: 'Flores Amnesia', strain: 'strain_norte_amnesia' })).body.product
    const strain = await grower('POST', `/api/batches/${batchNumber}/package`, { variantId: amnesia.variants[0].id, units: 1 })
    expect(strain.status).toBe(409)
    expect(strain.body.error.message).toContain('strain_norte_amnesia')
    expect((await grower('POST', `/api/batches/${batchNumber}/package`, { variantId: 'variant_nowhere', units: 1 })).status).toBe(404)
    expect((await otherClub('POST', `/api/batches/${batchNumber}/package`, { variantId: flowers.variants[0]!.id, units: 1 })).status).toBe(404)
    expect((await grower('POST', `/api/batches/${batchNumber}/package`, { variantId: flowers.variants[0]!.id, units: 0 })).status).toBe(400)
    expect((await grower('POST', '/api/batches/B-nowhere/package', { variantId: flowers.variants[0]!.id, units: 1 })).status).toBe(404)
    const batch = await batchOf(batchNumber)
    expect(batch.grams.available).toBe(50)
    expect(batch.packagings).toEqual([])
    expect(await stocked(amnesia.variants[0].inventoryItemId)).toBe(0)
  })

  it('a failing stock write leaves the batch as it was; a write that landed with its answer lost counts once', async () => {
    const { batchNumber } = await stockedBatch(grower, 40)
    const [five] = flowers.variants
    const itemId = five!.inventoryItemId
    const before = await stocked(itemId)
    const fault = { method: 'POST', path: `/admin/inventory-items/${itemId}/location-levels`, status: 500 }
    proxy.faults.push(fault)
    const failed = await grower('POST', `/api/batches/${batchNumber}/package`, { variantId: five!.id, units: 4 })
    proxy.faults.splice(proxy.faults.indexOf(fault), 1)
    expect(failed.status).toBe(502)
    expect(failed.body.error.code).toBe('BACKEND_ERROR')
    const after = await batchOf(batchNumber)
    expect(after.grams).toMatchObject({ available: 40, packaged: 0 })
    expect(after.packagings).toEqual([])
    expect(await stocked(itemId)).toBe(before)

    const lost = { ...fault, landed: true }
    proxy.faults.push(lost)
    const landed = await grower('POST', `/api/batches/${batchNumber}/package`, { variantId: five!.id, units: 4 })
    proxy.faults.splice(proxy.faults.indexOf(lost), 1)
    expect(landed.status).toBe(201)
    expect(await stocked(itemId)).toBe((before ?? 0) + 4)
    expect((await batchOf(batchNumber)).grams).toMatchObject({ available: 20, packaged: 20 })
  })
})
