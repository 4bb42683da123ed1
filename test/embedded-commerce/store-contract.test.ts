import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryCommerceStore } from '../../src/embedded-commerce/store/memory.ts'
import { RedisCommerceStore } from '../../src/embedded-commerce/store/redis.ts'
import type { CommerceStore } from '../../src/embedded-commerce/store/port.ts'
import type { CartDoc, OrderDoc, RegionDoc } from '../../src/embedded-commerce/model.ts'
import { testRedis } from '../helper.ts'
import { orderDoc } from './docs.ts'

// The same cases against both implementations of the commerce store port.
const NOW = '2026-01-01T00:00:00.000Z'

const region = (id: string): RegionDoc => ({
  id, name: id, currency_code: 'ars', countries: ['ar'], payment_providers: [], automatic_taxes: true, metadata: null, created_at: NOW, updated_at: NOW
})
const cart = (id: string): CartDoc => ({
  id,
  region_id: 'r',
  sales_channel_id: 'sc',
  currency_code: 'ars',
  email: null,
  customer_id: null,
  items: [],
  shipping_methods: [],
  shipping_address: null,
  billing_address: null,
  payment_collection: null,
  metadata: null,
  created_at: NOW,
  updated_at: NOW,
})
const order = (id: string, salesChannelId = 'sc'): OrderDoc => orderDoc(id, salesChannelId, null, Date.parse(NOW), { metadata: { empty: [] } })

describe.each(['redis', 'memory'] as const)('commerce store contract (%s)', (kind) => {
  let store: CommerceStore
  let cleanup: (() => Promise<void>) | undefined
  beforeAll(async () => {
    if (kind === 'redis') {
      const r = await testRedis()
      store = new RedisCommerceStore(r.redis)
      cleanup = r.cleanup
    } else {
      store = new MemoryCommerceStore()
    }
  })
  afterAll(async () => { await cleanup?.() })

  it('creates once, indexes by score and refuses a taken id or lookup', async () => {
    expect(await store.create('region', region('r2'), [{ index: 'regions', score: 2 }], [{ name: 'code', value: 'two' }])).toBe(true)
    expect(await store.create('region', region('r1'), [{ index: 'regions', score: 1 }], [])).toBe(true)
    expect(await store.create('region', region('r2'), [{ index: 'regions', score: 3 }], [])).toBe(false)
    expect(await store.create('region', region('r3'), [{ index: 'regions', score: 3 }], [{ name: 'code', value: 'two' }])).toBe(false)
    expect(await store.get('region', 'r3')).toBeUndefined()
    expect(await store.ids('regions')).toEqual(['r1', 'r2'])
    expect(await store.lookup('code', 'two')).toBe('r2')
    expect((await store.getMany('region', ['r2', 'nope', 'r1'])).map((v) => v.doc.id)).toEqual(['r2', 'r1'])
    expect(await store.get('region', 'r1')).toEqual({ rev: 1, doc: region('r1') })
  })

  it('replaces only the revision it read', async () => {
    await store.create('region', region('cas'), [], [])
    expect(await store.replace('region', 1, { ...region('cas'), name: 'first' })).toBe('ok')
    expect(await store.replace('region', 1, { ...region('cas'), name: 'stale' })).toBe('conflict')
    expect(await store.get('region', 'cas')).toMatchObject({ rev: 2, doc: { name: 'first' } })
    expect(await store.replace('region', 1, region('missing'))).toBe('conflict')
  })

  it('claims a lookup once', async () => {
    expect(await store.claim('guest', 'a@x', 'id1')).toBe(true)
    expect(await store.claim('guest', 'a@x', 'id2')).toBe(false)
    expect(await store.lookup('guest', 'a@x')).toBe('id1')
  })

  it('sets stocked quantities, never below what is reserved, and applies deltas all or nothing', async () => {
    expect(await store.setStocked('item1', 'loc', 5, 'lev1', NOW)).toBe('ok')
    expect(
      await store.stock('item1')
    ).toEqual([{ id: 'lev1', location_id: 'loc', stocked_quantity: 5, reserved_quantity: 0, created_at: NOW, updated_at: NOW }])
    await store.create('order', order('o-stock'), [], [])
    const fits = await store.replace('order', 1, order('o-stock'), { stock: [{ inventoryItemId: 'item1', locationId: 'loc', stocked: 0, reserved: 3 }] })
    expect(fits).toBe('ok')
    expect(await store.setStocked('item1', 'loc', 2, 'other', NOW)).toBe('below_reserved')
    const tooMuch = await store.replace('order', 2, order('o-stock'), {
      stock: [
        { inventoryItemId: 'item1', locationId: 'loc', stocked: -2, reserved: -2 }, { inventoryItemId: 'item1', locationId: 'loc', stocked: -4, reserved: 0 }
      ],
    })
    expect(tooMuch).toBe('stock')
    expect((await store.stock('item1'))[0]).toMatchObject({ id: 'lev1', stocked_quantity: 5, reserved_quantity: 3 })
    expect((await store.get('order', 'o-stock'))?.rev).toBe(2)
  })

  it('completes a cart once: reserves, numbers per channel, indexes, and marks the cart', async () => {
    await store.setStocked('item2', 'loc', 3, 'lev2', NOW)
    await store.create('cart', cart('c1'), [], [])
    await store.create('cart', cart('c2'), [], [])
    const input = (cartId: string, orderId: string, quantity: number, salesChannelId = 'sc') => ({
      cartId,
      cartRev: 1,
      order: order(orderId, salesChannelId),
      now: NOW,
      reservations: [{ inventoryItemId: 'item2', locationId: 'loc', quantity }],
      indexes: [{ index: `orders:${salesChannelId}`, score: 1 }],
      lookups: [{ name: 'payment', value: `pay-${orderId}` }],
    })
    expect(await store.completeCart({ ...input('c1', 'o1', 2), cartRev: 7 })).toEqual({ kind: 'conflict' })
    expect(await store.completeCart(input('c1', 'o1', 2))).toEqual({ kind: 'created', displayId: 1 })
    expect(await store.completeCart(input('c1', 'o1-again', 1))).toEqual({ kind: 'existing', orderId: 'o1' })
    expect(await store.completeCart(input('c2', 'o2', 2))).toEqual({ kind: 'insufficient', inventoryItemId: 'item2', locationId: 'loc' })
    expect((await store.stock('item2'))[0]).toMatchObject({ stocked_quantity: 3, reserved_quantity: 2 })
    expect(await store.get('order', 'o1')).toMatchObject({ rev: 1, doc: { display_id: 1, metadata: { empty: [] } } })
    expect(await store.get('order', 'o2')).toBeUndefined()
    expect(await store.cartOrder('c1')).toBe('o1')
    expect(await store.cartOrder('c2')).toBeUndefined()
    expect(await store.lookup('payment', 'pay-o1')).toBe('o1')
    expect(await store.ids('orders:sc')).toEqual(['o1'])
    expect(await store.replace('cart', 1, cart('c1'), { unlessCartCompleted: 'c1' })).toBe('completed')

    await store.create('cart', cart('c3'), [], [])
    await store.create('cart', cart('c4'), [], [])
    expect(await store.completeCart(input('c3', 'o3', 1))).toEqual({ kind: 'created', displayId: 2 })
    expect(await store.completeCart(input('c4', 'o4', 0, 'other-sc'))).toEqual({ kind: 'created', displayId: 1 })
  })
})
