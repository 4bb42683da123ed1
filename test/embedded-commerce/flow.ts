import { expect } from 'vitest'
import { PK_NORTE, type Backend } from './harness.ts'

export const SHIPPING = {
  first_name: 'Ana', last_name: 'Pereyra', address_1: 'Av. Cabildo 1300', city: 'Buenos Aires', postal_code: 'C1426', country_code: 'ar', phone: '+541100000000'
}

/** The first variant of a demo product of club-norte, by handle. */
export async function variantOf (b: Backend, handle: string): Promise<{ id: string, inventoryItemId: string, price: number }> {
  const res = await b.call('GET', `/store/products?handle=${handle}&region_id=reg_club_norte`, { headers: PK_NORTE })
  const variant = res.body.products[0].variants[0]
  return { id: variant.id, inventoryItemId: variant.inventory_items[0].inventory_item_id, price: variant.calculated_price.calculated_amount }
}

/** A club-norte cart with one line, an address, a shipping method and a payment session: ready to complete. */
export async function readyCart (
  b: Backend, headers: Record<string, string>, variantId: string, quantity: number, option = 'so_club_norte_delivery', email = 'ana@example.com'
): Promise<string> {
  const h = { ...PK_NORTE, ...headers }
  const created = await b.call('POST', '/store/carts', { headers: h, body: { region_id: 'reg_club_norte', email } })
  expect(created.status).toBe(200)
  const id = created.body.cart.id as string
  const steps = [
    [`/store/carts/${id}/line-items`, { variant_id: variantId, quantity }],
    [`/store/carts/${id}`, { shipping_address: SHIPPING }],
    [`/store/carts/${id}/shipping-methods`, { option_id: option }],
  ] as const
  for (const [path, body] of steps) {
    const res = await b.call('POST', path, { headers: h, body })
    expect(res.status, res.text).toBe(200)
  }
  const pc = await b.call('POST', '/store/payment-collections', { headers: h, body: { cart_id: id } })
  const ps = await b.call('POST', `/store/payment-collections/${pc.body.payment_collection.id}/payment-sessions`, {
    headers: h, body: { provider_id: 'pp_system_default' }
  })
  expect(ps.status, ps.text).toBe(200)
  return id
}

export async function stockOf (b: Backend, admin: Record<string, string>, inventoryItemId: string): Promise<{ stocked: number, reserved: number }> {
  const res = await b.call('GET', `/admin/inventory-items/${inventoryItemId}`, { headers: admin })
  const level = res.body.inventory_item.location_levels[0]
  return { stocked: level.stocked_quantity, reserved: level.reserved_quantity }
}
