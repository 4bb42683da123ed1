import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OrderDoc, SalesChannelDoc } from '../../src/embedded-commerce/model.ts'
import { ordersMatching, pageOfOrders, sortOrders } from '../../src/embedded-commerce/services/orders.ts'
import { customerForCart, customersWithEmails, listCustomers, saveCustomer } from '../../src/embedded-commerce/services/accounts.ts'
import type { CommerceStore } from '../../src/embedded-commerce/store/port.ts'
import { INDEX, score } from '../../src/embedded-commerce/services/context.ts'
import { orderDoc } from './docs.ts'
import { counting, storeOn } from './support.ts'

// A member's orders (GET /admin/orders?customer_id=, what the service and the chat's "my orders" ask) are read
// from the member's own index: the same list as every order of the club's channels filtered by customer, read at
// the cost of the member's orders, not the club's (bench/growth.ts holds it over a club's day). The customers of
// an email (GET /admin/customers?email=, asked first for a member's orders) are found by the email's lookups, not
// by reading every customer. A list by creation time is paged: a club's (staff's) by the channel's index, a
// member's by their index of that channel, filled from their index of all orders when it holds fewer (orders
// completed before it existed).

const T0 = Date.parse('2026-03-01T10:00:00.000Z')

const salesChannel = (id: string): SalesChannelDoc => ({
  id, name: id, description: null, is_disabled: false, metadata: null, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z',
})

/** Saves an order with the indexes a cart's completion wrote before the customer's index of a channel. */
async function save (store: CommerceStore, o: OrderDoc): Promise<void> {
  const at = score(o.created_at)
  const indexes = [{ index: INDEX.ordersOfChannel(o.sales_channel_id), score: at }]
  if (o.customer_id) indexes.push({ index: INDEX.ordersOfCustomer(o.customer_id), score: at })
  expect(await store.create('order', o, indexes, [])).toBe(true)
}

describe.each(['redis', 'memory'] as const)('a member\'s orders from their own index (%s)', (kind) => {
  let store: CommerceStore
  let cleanup = async (): Promise<void> => {}
  beforeAll(async () => { ({ store, cleanup } = await storeOn(kind)) })
  afterAll(async () => { await cleanup() })

  let run = 0
  it('lists what every order of the channels, filtered by customer, lists, in the same order (ties in time included)', async () => {
    // ids of other forms (lower case, '_') and a few distinct milliseconds, so that equal times are frequent
    const idChar = fc.constantFrom(...'0123456789ABCZabz_')
    const orders = fc.array(fc.record({
      id: fc.string({ unit: idChar, minLength: 1, maxLength: 4 }),
      channel: fc.constantFrom('a', 'b', 'c'),
      customer: fc.constantFrom('ana', 'bruno', 'carla', null),
      ms: fc.integer({ min: 0, max: 3 }),
    }), { maxLength: 25 })
    const channels = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'none'), { minLength: 1 })
    const customers = fc.array(fc.constantFrom('ana', 'bruno', 'carla', 'nobody'), { minLength: 1, maxLength: 4 })
    await fc.assert(fc.asyncProperty(orders, channels, customers, async (list, channelIds, customerIds) => {
      const r = `r${run++}`
      const saved = new Set<string>()
      for (const o of list) {
        if (saved.has(o.id)) continue
        saved.add(o.id)
        await save(store, orderDoc(`${r}-${o.id}`, `${r}-${o.channel}`, o.customer && `${r}-${o.customer}`, T0 + o.ms))
      }
      const ch = channelIds.map((c) => `${r}-${c}`)
      const ids = customerIds.map((c) => `${r}-${c}`)
      const everyOrder = await ordersMatching({ store, jwtSecret: 'x' }, ch, {})
      const theirs = await ordersMatching({ store, jwtSecret: 'x' }, ch, { customer_id: ids })
      expect(theirs.map((o) => o.id)).toEqual(everyOrder.filter((o) => o.customer_id !== null && ids.includes(o.customer_id)).map((o) => o.id))
    }), { numRuns: 60 })
  })

  it('reads only the member\'s orders, however many the club has', async () => {
    for (let i = 0; i < 300; i++) {
      await save(store, orderDoc(`busy-${String(i).padStart(4, '0')}`, 'busy', i % 100 === 0 ? 'busy-ana' : `busy-other-${i}`, T0 + i))
    }
    const c = counting(store, 'order')
    const ctx = { store: c.store, jwtSecret: 'x' }
    const theirs = await ordersMatching(ctx, ['busy'], { customer_id: ['busy-ana'] })
    expect(theirs.map((o) => o.id)).toEqual(['busy-0000', 'busy-0100', 'busy-0200'])
    expect(c.reads()).toBe(3)
    await ordersMatching(ctx, ['busy'], {})
    expect(c.reads()).toBe(303)
  })

  it('finds the customers of these emails as the whole list filtered by email would, in the same order', async () => {
    const step = fc.record({
      account: fc.boolean(), email: fc.constantFrom('a', 'b', 'c'), ms: fc.integer({ min: 0, max: 2 }), id: fc.constantFrom('X', 'Y', 'a', '_'),
    })
    const emails = fc.array(fc.constantFrom('a', 'b', 'c', 'nobody'), { minLength: 1, maxLength: 4 })
    await fc.assert(fc.asyncProperty(fc.array(step, { maxLength: 12 }), emails, async (steps, asked) => {
      const r = `r${run++}`
      const ctx = { store, jwtSecret: 'x' }
      for (const [i, st] of steps.entries()) {
        const email = `${r}-${st.email}@example.com`
        const at = new Date(T0 + st.ms).toISOString()
        if (st.account) {
          const id = `cus_${r}_${st.id}${i}`
          const names = { first_name: null, last_name: null, phone: null }
          await saveCustomer(ctx, { id, email, ...names, has_account: true, metadata: null, created_at: at, updated_at: at })
        } else {
          await customerForCart(ctx, undefined, email)
        }
      }
      const wanted = asked.map((e) => `${r}-${e}@example.com`)
      const found = await customersWithEmails(ctx, wanted)
      expect(found.map((c) => c.id)).toEqual((await listCustomers(ctx)).filter((c) => wanted.includes(c.email)).map((c) => c.id))
    }), { numRuns: 60 })
  })

  it('pages a club\'s orders by its channel\'s index as sorting all of them would (newest or oldest first, ties in time included)', async () => {
    const id = fc.string({ unit: fc.constantFrom(...'09AZaz_'), minLength: 1, maxLength: 3 })
    const orders = fc.array(fc.record({ id, ms: fc.integer({ min: 0, max: 3 }) }))
    const sorts = fc.constantFrom(undefined, '-created_at', 'created_at', 'total')
    await fc.assert(fc.asyncProperty(orders, sorts, fc.nat(8), fc.nat(8), async (list, sort, offset, limit) => {
      const r = `p${run++}`
      const saved = new Set<string>()
      for (const o of list) {
        if (saved.has(o.id)) continue
        saved.add(o.id)
        await save(store, orderDoc(`${r}-${o.id}`, `${r}-sc`, null, T0 + o.ms))
      }
      const ctx = { store, jwtSecret: 'x' }
      const all = sortOrders(await ordersMatching(ctx, [`${r}-sc`], {}), sort)
      const page = await pageOfOrders(ctx, [`${r}-sc`], {}, sort, { offset, limit })
      expect(page.orders.map((o) => o.id)).toEqual(all.slice(offset, offset + limit).map((o) => o.id))
      expect(page.count).toBe(all.length)
    }), { numRuns: 80 })
  })

  it('pages a member\'s orders in a channel as sorting all of them would, orders of before its index included', async () => {
    const id = fc.string({ unit: fc.constantFrom(...'09AZaz_'), minLength: 1, maxLength: 3 })
    const orders = fc.array(fc.record({
      id, ms: fc.integer({ min: 0, max: 3 }), channel: fc.constantFrom('a', 'b'), customer: fc.constantFrom('ana', 'bruno', 'carla'), before: fc.boolean(),
    }))
    const customers = fc.array(fc.constantFrom('ana', 'bruno', 'nobody'), { minLength: 1, maxLength: 3 })
    const sorts = fc.constantFrom(undefined, '-created_at', 'created_at')
    await fc.assert(fc.asyncProperty(orders, customers, sorts, fc.nat(6), fc.nat(6), async (list, who, sort, offset, limit) => {
      const r = `m${run++}`
      const ctx = { store, jwtSecret: 'x' }
      for (const c of ['a', 'b']) {
        expect(await store.create('sales_channel', salesChannel(`${r}-${c}`), [{ index: INDEX.salesChannels, score: run }], [])).toBe(true)
      }
      const saved = new Set<string>()
      for (const o of list) {
        if (saved.has(o.id)) continue
        saved.add(o.id)
        const doc = orderDoc(`${r}-${o.id}`, `${r}-${o.channel}`, `${r}-${o.customer}`, T0 + o.ms)
        // an order of before has no index of its customer's channel; one completed now has it
        if (o.before) await save(store, doc)
        else {
          const at = score(doc.created_at)
          const customer = `${r}-${o.customer}`
          const channel = doc.sales_channel_id
          const indexes = [INDEX.ordersOfChannel(channel), INDEX.ordersOfCustomer(customer), INDEX.ordersOfCustomerIn(customer, channel)]
          expect(await store.create('order', doc, indexes.map((index) => ({ index, score: at })), [])).toBe(true)
        }
      }
      const ids = who.map((c) => `${r}-${c}`)
      const all = sortOrders((await ordersMatching(ctx, [`${r}-a`], {})).filter((o) => o.customer_id !== null && ids.includes(o.customer_id)), sort)
      for (let ask = 0; ask < 2; ask++) {
        const page = await pageOfOrders(ctx, [`${r}-a`], { customer_id: ids }, sort, { offset, limit })
        expect(page.orders.map((o) => o.id)).toEqual(all.slice(offset, offset + limit).map((o) => o.id))
        expect(page.count).toBe(all.length)
      }
    }), { numRuns: 80 })
  })

  it('reads a page of a member\'s orders once their index of the channel is filled, however many they have', async () => {
    await store.create('sales_channel', salesChannel('heavy-sc'), [{ index: INDEX.salesChannels, score: 0 }], [])
    for (let i = 0; i < 60; i++) await save(store, orderDoc(`heavy-${String(i).padStart(3, '0')}`, 'heavy-sc', 'heavy-ana', T0 + i))
    const c = counting(store, 'order')
    const ctx = { store: c.store, jwtSecret: 'x' }
    const first = await pageOfOrders(ctx, ['heavy-sc'], { customer_id: ['heavy-ana'] }, undefined, { offset: 0, limit: 5 })
    expect(first.orders.map((o) => o.id)).toEqual(['heavy-059', 'heavy-058', 'heavy-057', 'heavy-056', 'heavy-055'])
    expect(first.count).toBe(60)
    const filled = c.reads()
    expect(filled).toBe(60 + 5) // the orders of before read once to fill the index, then the page
    await pageOfOrders(ctx, ['heavy-sc'], { customer_id: ['heavy-ana'] }, undefined, { offset: 0, limit: 5 })
    expect(c.reads() - filled).toBe(5)
  })
})
