import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../helper.ts'
import { caller, type Call } from '../crops/client.ts'
import { FLOWERS, stockedBatch } from '../batches/client.ts'
import { contractBackend } from './backend.ts'

// Products and packaging through the club's backend's admin API, the same scenario on either backend: a product
// made through the service, a batch packaged into its variant raises the variant's stocked quantity at the club's
// location there, and a recall lowers it again.

const backend = contractBackend()

describe(`batches contract against the ${backend.name} commerce backend`, { timeout: backend.timeoutMs }, () => {
  let t: TestApp
  let admin: Call
  let grower: Call

  beforeAll(async () => {
    t = await backend.build()
    admin = caller(t, await t.auth('admin', 'club-norte'))
    grower = caller(t, await t.auth('grower', 'club-norte'))
  })
  afterAll(async () => { await t.close() })

  it('makes a product in grams, packages a batch into it (stock up there), recalls it (stock down)', async () => {
    const made = await admin('POST', '/api/products', { ...FLOWERS, title: `Flores contrato ${Date.now().toString(36)}` })
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    const product = made.body.product
    expect(product.variants.map((v: { title: string, gramsPerUnit: number }) => [v.title, v.gramsPerUnit])).toEqual([['5 g', 5], ['10 g', 10]])
    const variant = product.variants[0]
    const medusa = t.app.commerce.medusaFor((await t.app.tenants.get('club-norte'))!)
    expect(await medusa.stockedAtClub(variant.inventoryItemId)).toBe(0)

    const patched = await admin('PATCH', `/api/products/${product.id}`, { variants: [{ id: variant.id, price: 26000 }] })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    expect(patched.body.product.variants[0]).toMatchObject({ price: 26000, gramsPerUnit: 5 })

    const { batchNumber } = await stockedBatch(grower, 40)
    const packaged = await grower('POST', `/api/batches/${batchNumber}/package`, { variantId: variant.id, units: 3 })
    expect(packaged.status, JSON.stringify(packaged.body)).toBe(201)
    expect(packaged.body.stocked).toBe(3)
    expect(await medusa.stockedAtClub(variant.inventoryItemId)).toBe(3)

    const recalled = await admin('POST', `/api/batches/${batchNumber}/recall`, { reason: 'contract' })
    expect(recalled.status, JSON.stringify(recalled.body)).toBe(200)
    expect(await medusa.stockedAtClub(variant.inventoryItemId)).toBe(0)

    const archived = await admin('DELETE', `/api/products/${product.id}`)
    expect(archived.body.product.status).toBe('archived')
  })
})
