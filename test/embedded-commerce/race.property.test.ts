import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PK_NORTE, startBackend, type Backend } from './harness.ts'
import { readyCart, stockOf, variantOf } from './flow.ts'

// Carts racing for the same stock, completed at once over real HTTP: never oversold, every loser told why.
describe.each(['redis', 'memory'] as const)('concurrent cart completion (%s)', (store) => {
  let b: Backend
  let ana: Record<string, string>
  let admin: Record<string, string>
  let variant: { id: string, inventoryItemId: string }
  beforeAll(async () => {
    b = await startBackend(store)
    ana = await b.login('customer', 'ana@example.com')
    admin = await b.login('user', 'admin@club-norte.test')
    variant = await variantOf(b, 'norte-picador')
  })
  afterAll(async () => { await b.close() })

  const setAvailable = async (available: number): Promise<number> => {
    const { reserved } = await stockOf(b, admin, variant.inventoryItemId)
    const res = await b.call('POST', `/admin/inventory-items/${variant.inventoryItemId}/location-levels/sloc_club_norte`, {
      headers: admin, body: { stocked_quantity: reserved + available }
    })
    expect(res.status).toBe(200)
    return reserved
  }

  it('never oversells, and each loser gets a clear insufficient-inventory error', async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 0, max: 5 }),
      fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 2, maxLength: 5 }),
      async (available, quantities) => {
        await setAvailable(100)
        const carts = []
        for (const q of quantities) carts.push(await readyCart(b, ana, variant.id, q))
        const reservedBefore = await setAvailable(available)
        const answers = await Promise.all(carts.map((c) => b.call('POST', `/store/carts/${c}/complete`, { headers: PK_NORTE })))
        const sold = answers.reduce((s, a, i) => s + (a.status === 200 ? quantities[i] as number : 0), 0)
        expect(sold).toBeLessThanOrEqual(available)
        expect((await stockOf(b, admin, variant.inventoryItemId)).reserved).toBe(reservedBefore + sold)
        answers.forEach((a, i) => {
          if (a.status === 200) {
            expect(a.body.type).toBe('order')
            return
          }
          expect(a.status).toBe(400)
          expect(a.body).toMatchObject({ type: 'not_allowed', code: 'insufficient_inventory' })
          expect(a.body.message).toContain(variant.inventoryItemId)
          // it lost for a reason: what is left could not cover it
          expect(quantities[i]).toBeGreaterThan(available - sold)
        })
        const displayIds = answers.filter((a) => a.status === 200).map((a) => a.body.order.display_id)
        expect(new Set(displayIds).size).toBe(displayIds.length)
      }
    ), { numRuns: 15 })
  })

  it('completing the same cart concurrently gives one order', async () => {
    await setAvailable(10)
    const cart = await readyCart(b, ana, variant.id, 2)
    const reservedBefore = (await stockOf(b, admin, variant.inventoryItemId)).reserved
    const answers = await Promise.all([1, 2, 3, 4].map(() => b.call('POST', `/store/carts/${cart}/complete`, { headers: PK_NORTE })))
    expect(answers.every((a) => a.status === 200)).toBe(true)
    expect(new Set(answers.map((a) => a.body.order.id)).size).toBe(1)
    expect((await stockOf(b, admin, variant.inventoryItemId)).reserved).toBe(reservedBefore + 2)
  })
})
