import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../helper.ts'
import { as, cropsApp, type Call } from '../crops/client.ts'
import { FLOWERS } from './client.ts'

/** What the club's storefront lists, straight from the embedded backend. */
async function shopText (t: TestApp): Promise<string> {
  const res = await fetch(`${t.app.commerceUrl}/store/products?limit=100`, { headers: { 'x-publishable-api-key': 'pk_club_norte' } })
  return await res.text()
}

describe.each(['redis', 'memory'] as const)('products API on the embedded backend (%s)', (store) => {
  let t: TestApp
  let admin: Call
  let grower: Call
  let otherClub: Call

  beforeAll(async () => {
    t = await cropsApp(store)
    admin = await as(t, 'admin')
    grower = await as(t, 'grower')
    otherClub = await as(t, 'admin', 'club-sur')
  })
  afterAll(async () => { await t.close() })

  it('an admin adds a product with variants in grams; it is in the club\'s shop with 0 units stocked at its location', async () => {
    const res = await admin('POST', '/api/products', FLOWERS)
    expect(res.status).toBe(201)
    const { product } = res.body
    expect(product).toMatchObject({ title: 'Flores Gelato', status: 'published', strainId: 'strain_norte_gelato' })
    expect(product.variants).toEqual([
      expect.objectContaining({ title: '5 g', gramsPerUnit: 5, price: 25000, inventoryItemId: expect.any(String) }),
      expect.objectContaining({ title: '10 g', gramsPerUnit: 10, price: 45000, sku: 'GEL-10' }),
    ])
    expect((await grower('GET', `/api/products/${product.id}`)).body.product).toEqual(product)
    expect((await grower('GET', '/api/products?limit=100')).body.products.map((p: { id: string }) => p.id)).toContain(product.id)
    const stock = (await admin('GET', '/api/inventory?limit=100')).body
    const levels = JSON.stringify(stock)
    expect(levels).toContain(product.variants[0].inventoryItemId)
    // The member's shop lists it.
    expect(await shopText(t)).toContain(product.id)
  })

  it('PATCH changes the product and its variants; a variant without grams is no controlled product', async () => {
    const { product } = (await admin('POST', '/api/products', { title: 'Papel', variants: [{ title: 'x50', price: 1500 }] })).body
    expect(product.variants[0].gramsPerUnit).toBeNull()
    expect(product.strainId).toBeNull()
    const res = await admin('PATCH', `/api/products/${product.id}`, {
      title: 'Papelillos', strain: 'strain_norte_gelato', variants: [{ id: product.variants[0].id, title: 'x100', price: 2500, gramsPerUnit: 1.5 }],
    })
    expect(res.status).toBe(200)
    expect(res.body.product).toMatchObject({
      title: 'Papelillos', strainId: 'strain_norte_gelato', variants: [expect.objectContaining({ title: 'x100', price: 2500, gramsPerUnit: 1.5 })]
    })
    const cleared = await admin('PATCH', `/api/products/${product.id}`, { strain: null, variants: [{ id: product.variants[0].id, gramsPerUnit: null }] })
    expect(cleared.body.product).toMatchObject({ strainId: null, variants: [expect.objectContaining({ gramsPerUnit: null })] })
  })

  it('DELETE archives (unpublished, kept); a PATCH to published brings it back', async () => {
    const { product } = (await admin('POST', '/api/products', FLOWERS)).body
    const res = await admin('DELETE', `/api/products/${product.id}`)
    expect(res.status).toBe(200)
    expect(res.body.product.status).toBe('archived')
    expect((await grower('GET', `/api/products/${product.id}`)).body.product.status).toBe('archived')
    expect(await shopText(t)).not.toContain(product.id)
    expect((await admin('PATCH', `/api/products/${product.id}`, { status: 'published' })).body.product.status).toBe('published')
  })

  it('growers read but do not write; another club sees nothing; bad bodies are clear errors, nothing written', async () => {
    const before = (await admin('GET', '/api/products?limit=0')).body.count
    expect((await grower('POST', '/api/products', FLOWERS)).status).toBe(403)
    for (const bad of [
      { ...FLOWERS, variants: [] },
      { ...FLOWERS, variants: [{ title: '5 g', gramsPerUnit: -1, price: 1 }] },
      { ...FLOWERS, variants: [{ title: '5 g', gramsPerUnit: 5, price: 1.5 }] },
      { ...FLOWERS, variants: [{ title: '5 g', price: 1 }, { title: '5 g', price: 2 }] },
      { ...FLOWERS, strain: 'strain_nowhere' },
      { variants: FLOWERS.variants },
    ]) {
      const res = await admin('POST', '/api/products', bad)
      expect(res.status, JSON.stringify(bad)).toBe(400)
      expect(res.body.error.code).toBe('VALIDATION_ERROR')
    }
    expect((await admin('GET', '/api/products?limit=0')).body.count).toBe(before)
    const { product } = (await admin('POST', '/api/products', FLOWERS)).body
    expect((await otherClub('GET', `/api/products/${product.id}`)).status).toBe(404)
    expect((await otherClub('PATCH', `/api/products/${product.id}`, { title: 'Mine' })).status).toBe(404)
    expect((await admin('PATCH', `/api/products/${product.id}`, { variants: [{ id: 'variant_other', price: 1 }] })).status).toBe(400)
    expect((await admin('GET', '/api/products/prod_missing')).status).toBe(404)
    expect((await grower('GET', `/api/products/${product.id}`)).body.product.title).toBe('Flores Gelato')
  })
})
