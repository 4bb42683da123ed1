import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OrderDoc, SalesChannelDoc } from '../../src/embedded-commerce/model.ts'
import { hasOrderIn, ordersOfCustomer } from '../../src/embedded-commerce/services/orders.ts'
import { MemoryCommerceStore } from '../../src/embedded-commerce/store/memory.ts'
import { RedisCommerceStore } from '../../src/embedded-commerce/store/redis.ts'
import type { CommerceStore } from '../../src/embedded-commerce/store/port.ts'
import { INDEX, score } from '../../src/embedded-commerce/services/context.ts'
import { testRedis } from '../helper.ts'

// Staff see a guest (a customer a cart's email made) once it has an order in their channels: that is decided by
// counting the guest's index of each channel (filled once from their index of all orders for orders of before
// it), not by reading the guest's orders, which grow with every order the guest places.

const T0 = Date.parse('2026-03-01T10:00:00.000Z')
const order = (id: string, channel: string, customer: string, at: number): OrderDoc => ({
  id,
  display_id: 0,
  version: 1,
  status: 'pending',
  cart_id: 'c',
  region_id: 'r',
  sales_channel_id: channel,
  stock_location_id: 'loc',
  customer_id: customer,
  email: null,
  currency_code: 'ars',
  items: [],
  shipping_methods: [],
  shipping_address: null,
  billing_address: null,
  payment_collections: [],
  fulfillments: [],
  metadata: null,
  canceled_at: null,
  created_at: new Date(at).toISOString(),
  updated_at: new Date(at).toISOString(),
})

const salesChannel = (id: string, at: number): SalesChannelDoc => ({
  id, name: id, description: null, is_disabled: false, metadata: null, created_at: new Date(at).toISOString(), updated_at: new Date(at).toISOString(),
})

/** An order with the indexes a cart's completion writes now (`before`: those it wrote before the customer's index of a channel). */
async function place (store: CommerceStore, o: OrderDoc, before: boolean): Promise<void> {
  const indexes = [INDEX.ordersOfChannel(o.sales_channel_id), INDEX.ordersOfCustomer(o.customer_id as string)]
  if (!before) indexes.push(INDEX.ordersOfCustomerIn(o.customer_id as string, o.sales_channel_id))
  expect(await store.create('order', o, indexes.map((index) => ({ index, score: score(o.created_at) })), [])).toBe(true)
}

/** A store that counts the records of `kind` it is asked for. */
function counting (store: CommerceStore, kind: string): { store: CommerceStore, reads: () => number } {
  let reads = 0
  const counted = Object.create(store) as CommerceStore
  counted.getMany = async (k, ids) => {
    if (k === kind) reads += ids.length
    return await store.getMany(k, ids)
  }
  return { store: counted, reads: () => reads }
}

describe.each(['redis', 'memory'] as const)('a guest\'s visibility and the staff\'s customer list (%s)', (kind) => {
  let store: CommerceStore
  let cleanup = async (): Promise<void> => {}
  beforeAll(async () => {
    if (kind === 'memory') { store = new MemoryCommerceStore(); return }
    const r = await testRedis()
    store = new RedisCommerceStore(r.redis)
    cleanup = r.cleanup
  })
  afterAll(async () => { await cleanup() })

  let run = 0
  it('a guest has an order in these channels exactly when its whole list of orders says so, orders of before included', async () => {
    const placed = fc.array(fc.record({ channel: fc.constantFrom('a', 'b', 'c'), before: fc.boolean(), ms: fc.nat(3) }), { maxLength: 8 })
    const asked = fc.subarray(['a', 'b', 'c', 'elsewhere'])
    await fc.assert(fc.asyncProperty(placed, asked, async (orders, channels) => {
      const r = `v${run++}`
      const ctx = { store, jwtSecret: 'x' }
      for (const c of ['a', 'b', 'c']) {
        expect(await store.create('sales_channel', salesChannel(`${r}-${c}`, T0), [{ index: INDEX.salesChannels, score: T0 }], [])).toBe(true)
      }
      for (const [i, o] of orders.entries()) await place(store, order(`${r}-o${i}`, `${r}-${o.channel}`, `${r}-guest`, T0 + o.ms), o.before)
      const ids = channels.map((c) => `${r}-${c}`)
      const whole = (await ordersOfCustomer(ctx, `${r}-guest`)).some((o) => ids.includes(o.sales_channel_id))
      for (let ask = 0; ask < 2; ask++) expect(await hasOrderIn(ctx, `${r}-guest`, ids)).toBe(whole)
    }), { numRuns: 60 })
  })

  it('reads none of a guest\'s orders to decide, however many it placed', async () => {
    const r = `busy${run++}`
    expect(await store.create('sales_channel', salesChannel(`${r}-a`, T0), [{ index: INDEX.salesChannels, score: T0 }], [])).toBe(true)
    for (let i = 0; i < 200; i++) await place(store, order(`${r}-o${String(i).padStart(3, '0')}`, `${r}-a`, `${r}-guest`, T0 + i), i < 100)
    const c = counting(store, 'order')
    const ctx = { store: c.store, jwtSecret: 'x' }
    expect(await hasOrderIn(ctx, `${r}-guest`, [`${r}-a`])).toBe(true)
    expect(c.reads()).toBe(200) // once: the orders of before are added to the guest's index of their channel
    expect(await hasOrderIn(ctx, `${r}-guest`, [`${r}-a`])).toBe(true)
    expect(await hasOrderIn(ctx, `${r}-guest`, ['elsewhere'])).toBe(false)
    expect(c.reads()).toBe(200)
  })
})
