import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PK_NORTE, startBackend, type Backend } from './harness.ts'

// GET /store/products?sales_channel_id= narrows the list to channels of the publishable key, as Medusa does
// (its filterByValidSalesChannels); a channel the key is not linked to is refused, not silently widened.

describe('store products by sales channel (embedded backend)', () => {
  let b: Backend
  beforeAll(async () => { b = await startBackend('memory') })
  afterAll(async () => { await b.close() })

  const ids = (body: { products: Array<{ id: string }> }) => body.products.map((p) => p.id)

  it('the key\'s own channel lists that channel\'s products, as the key alone does', async () => {
    const all = await b.call('GET', '/store/products?fields=id', { headers: PK_NORTE })
    const own = await b.call('GET', '/store/products?fields=id&sales_channel_id=sc_club_norte', { headers: PK_NORTE })
    expect(own.status).toBe(200)
    expect(ids(own.body)).toEqual(ids(all.body))
    expect(ids(own.body).length).toBeGreaterThan(0)
    expect(ids(own.body).every((id) => id.startsWith('prod_norte_'))).toBe(true)
  })

  it('another club\'s channel is refused with Medusa\'s 400 invalid_data', async () => {
    const res = await b.call('GET', '/store/products?sales_channel_id=sc_club_sur', { headers: PK_NORTE })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ type: 'invalid_data', message: 'Requested sales channel is not part of the publishable key' })
  })
})
