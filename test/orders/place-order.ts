import { expect } from 'vitest'
import type { TestApp } from '../helper.ts'

/** Headers of a demo login (`password: demo-password`) acting in `tenant`. */
export async function demoLogin (t: TestApp, actorType: 'customer' | 'user', email: string, tenant = 'club-norte'): Promise<Record<string, string>> {
  const res = await t.app.inject({ method: 'POST', url: `/auth/${actorType}/emailpass`, payload: { email, password: 'demo-password' } })
  expect(res.statusCode).toBe(200)
  return { authorization: `Bearer ${res.json().token}`, 'tenant-id': tenant }
}

/** A cart of `items` (variant id, quantity) with the first shipping option (or the one named), cash, completed: the answer. */
export async function completeCart (t: TestApp, headers: Record<string, string>, items: Array<[string, number]>, shipping?: string) {
  const cart = (await t.app.inject({ method: 'POST', url: '/store/carts', headers, payload: {} })).json().cart
  for (const [variantId, quantity] of items) {
    await t.app.inject({
      method: 'POST', url: `/store/carts/${cart.id}/line-items`, headers, payload: { variantId, quantity }
    })
  }
  const options: Array<{
    id: string, name: string
  }> = (await t.app.inject({ url: `/store/shipping-options?cartId=${cart.id}`, headers })).json().shippingOptions
  const option = shipping === undefined ? options[0] : options.find((o) => o.name === shipping)
  expect(option).toBeDefined()
  await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/shipping-methods`, headers, payload: { optionId: option!.id } })
  await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/payment-sessions`, headers, payload: { providerId: 'cash' } })
  return await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id}/complete`, headers })
}

/**
 * One item of the first product (with `grams`, of the first variant counted in grams: one the dispensing record
 * notes), the first shipping option (or the one named `shipping`), cash: the member's order through the store front.
 */
export async function placeOrder (t: TestApp, headers: Record<string, string>, grams = false, shipping?: string): Promise<{ id: string, displayId: string }> {
  const products: Array<{ variants: Array<{ id: string, grams: number | null }> }> = (await t.app.inject({ url: '/store/products', headers })).json().products
  const variant = grams ? products.flatMap((p) => p.variants).find((v) => v.grams) : products[0]?.variants[0]
  expect(variant).toBeDefined()
  const done = await completeCart(t, headers, [[variant!.id, 1]], shipping)
  expect(done.statusCode).toBe(200)
  return done.json().order
}
