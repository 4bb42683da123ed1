import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CartDoc, CustomerDoc, OrderDoc, SalesChannelDoc } from '../../src/embedded-commerce/model.ts'
import { hasOrderIn, ordersOfCustomer } from '../../src/embedded-commerce/services/orders.ts'
import {
  clubsOf, createAdminCustomer, createCustomer, customerForCart, customersOfClubs, customersWithEmails, matchesCustomer, saveCustomer, updateCustomer,
  type CustomerFilter,
} from '../../src/embedded-commerce/services/accounts.ts'
import { orderIndexes } from '../../src/embedded-commerce/services/carts.ts'
import type { CommerceContext } from '../../src/embedded-commerce/services/context.ts'
import type { CommerceStore } from '../../src/embedded-commerce/store/port.ts'
import { INDEX, score } from '../../src/embedded-commerce/services/context.ts'
import { orderDoc } from './docs.ts'
import { counting, storeOn } from './support.ts'

// Staff see a guest (a customer a cart's email made) once it has an order in their channels: that is decided by
// counting the guest's index of each channel (filled once from their index of all orders for orders of before
// it), not by reading the guest's orders, which grow with every order the guest places. The staff's customer list
// (GET /admin/customers with no email) is read from their clubs' indexes of customers, kept by every write that
// changes who a club sees, not by reading every customer of the backend: the same list in the same order as every
// customer filtered by what the staff see.

const T0 = Date.parse('2026-03-01T10:00:00.000Z')

const salesChannel = (id: string, at: number, club?: string): SalesChannelDoc => ({
  id,
  name: id,
  description: null,
  is_disabled: false,
  metadata: club === undefined ? null : { tenant_id: club },
  created_at: new Date(at).toISOString(),
  updated_at: new Date(at).toISOString(),
})

/**
 * What the staff of `clubs` saw before the clubs' indexes: every customer (of `emails`: the only ones that may be in
 * these clubs; the property above holds it as every customer filtered by email), filtered, each guest's orders read whole.
 */
async function seenByWholeList (ctx: CommerceContext, clubs: string[], filter: CustomerFilter, emails: string[]): Promise<CustomerDoc[]> {
  const channels = (await listSalesChannelsOf(ctx)).filter((c) => clubs.includes(c.metadata?.tenant_id as string)).map((c) => c.id)
  const matching = (await customersWithEmails(ctx, emails)).filter(matchesCustomer(filter))
  const seen = await Promise.all(matching.map(async (c) => clubsOf(c).some((t) => clubs.includes(t)) ||
    (!c.has_account && (await ordersOfCustomer(ctx, c.id)).some((o) => channels.includes(o.sales_channel_id)))))
  return matching.filter((_, i) => seen[i])
}

async function listSalesChannelsOf (ctx: CommerceContext): Promise<SalesChannelDoc[]> {
  return (await ctx.store.getMany('sales_channel', await ctx.store.ids(INDEX.salesChannels))).map((v) => v.doc)
}

/** A cart (only what its completion reads) completed by the store as carts.ts completes one, with its indexes. */
async function complete (ctx: CommerceContext, id: string, channel: string, club: string | undefined, customer: string, at: number): Promise<void> {
  const o = orderDoc(id, channel, customer, at)
  const cart = { id: `cart_${id}`, sales_channel_id: channel, created_at: o.created_at, updated_at: o.created_at } as unknown as CartDoc
  expect(await ctx.store.create('cart', cart, [], [])).toBe(true)
  const done = await ctx.store.completeCart({
    cartId: cart.id, cartRev: 1, order: o, reservations: [], lookups: [], now: o.created_at, ...orderIndexes(o, club),
  })
  expect(done.kind).toBe('created')
}

/** An order with the indexes a cart's completion writes now (`before`: those it wrote before the customer's index of a channel). */
async function place (store: CommerceStore, o: OrderDoc, before: boolean): Promise<void> {
  const indexes = [INDEX.ordersOfChannel(o.sales_channel_id), INDEX.ordersOfCustomer(o.customer_id as string)]
  if (!before) indexes.push(INDEX.ordersOfCustomerIn(o.customer_id as string, o.sales_channel_id))
  expect(await store.create('order', o, indexes.map((index) => ({ index, score: score(o.created_at) })), [])).toBe(true)
}

describe.each(['redis', 'memory'] as const)('a guest\'s visibility and the staff\'s customer list (%s)', (kind) => {
  let store: CommerceStore
  let cleanup = async (): Promise<void> => {}
  beforeAll(async () => { ({ store, cleanup } = await storeOn(kind)) })
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
      for (const [i, o] of orders.entries()) await place(store, orderDoc(`${r}-o${i}`, `${r}-${o.channel}`, `${r}-guest`, T0 + o.ms), o.before)
      const ids = channels.map((c) => `${r}-${c}`)
      const whole = (await ordersOfCustomer(ctx, `${r}-guest`)).some((o) => ids.includes(o.sales_channel_id))
      for (let ask = 0; ask < 2; ask++) expect(await hasOrderIn(ctx, `${r}-guest`, ids)).toBe(whole)
    }), { numRuns: 60 })
  })

  it('reads none of a guest\'s orders to decide, however many it placed', async () => {
    const r = `busy${run++}`
    expect(await store.create('sales_channel', salesChannel(`${r}-a`, T0), [{ index: INDEX.salesChannels, score: T0 }], [])).toBe(true)
    for (let i = 0; i < 200; i++) await place(store, orderDoc(`${r}-o${String(i).padStart(3, '0')}`, `${r}-a`, `${r}-guest`, T0 + i), i < 100)
    const c = counting(store, 'order')
    const ctx = { store: c.store, jwtSecret: 'x' }
    expect(await hasOrderIn(ctx, `${r}-guest`, [`${r}-a`])).toBe(true)
    expect(c.reads()).toBe(200) // once: the orders of before are added to the guest's index of their channel
    expect(await hasOrderIn(ctx, `${r}-guest`, [`${r}-a`])).toBe(true)
    expect(await hasOrderIn(ctx, `${r}-guest`, ['elsewhere'])).toBe(false)
    expect(c.reads()).toBe(200)
  })
  const club = fc.constantFrom('A', 'B', 'C')
  const step = fc.oneof(
    fc.record({ op: fc.constant('admin' as const), who: fc.nat(2), clubs: fc.subarray(['A', 'B', 'C']) }),
    fc.record({ op: fc.constant('register' as const), who: fc.nat(2), clubs: fc.subarray(['A', 'B']) }),
    fc.record({ op: fc.constant('guest' as const), who: fc.nat(2) }),
    fc.record({ op: fc.constant('order' as const), who: fc.nat(2), channel: fc.constantFrom('a1', 'a2', 'b1', 'none'), ms: fc.nat(2) }),
    fc.record({ op: fc.constant('clubs' as const), who: fc.nat(2), clubs: fc.subarray(['A', 'B', 'C']) })
  )
  const filters = fc.constantFrom<CustomerFilter>({}, { q: 'x' }, { has_account: 'true' }, { has_account: 'false' })

  const title = 'lists what the staff of these clubs saw in every customer, in the same order, after each change (before and after the index)'
  it(title, { timeout: 60_000 }, async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { maxLength: 14 }), fc.nat(14), fc.array(club, { minLength: 1, maxLength: 2 }), filters,
      fc.nat(4), fc.integer({ min: 1, max: 4 }), async (steps, firstList, clubs, filter, offset, limit) => {
        const r = `l${run++}`
        const ctx = { store, jwtSecret: 'x' }
        const channelClub: Record<string, string | undefined> = { a1: `${r}A`, a2: `${r}A`, b1: `${r}B`, none: undefined }
        for (const [c, of] of Object.entries(channelClub)) {
          expect(await store.create('sales_channel', salesChannel(`${r}-${c}`, T0, of), [{ index: INDEX.salesChannels, score: T0 }], [])).toBe(true)
        }
        const ids = new Map<number, string>()
        const asked = clubs.map((c) => `${r}${c}`)
        const check = async (): Promise<void> => {
          const whole = await seenByWholeList(ctx, asked, filter, [0, 1, 2].map((who) => `${r}-${who}@example.com`))
          const page = await customersOfClubs(ctx, asked, filter, { offset, limit })
          expect(page.customers.map((c) => c.id)).toEqual(whole.slice(offset, offset + limit).map((c) => c.id))
          expect(page.count).toBe(whole.length)
        }
        for (const [i, st] of steps.entries()) {
          if (i === firstList) await check() // the clubs' indexes are filled here: the steps before it wrote as an older version would have
          const email = `${r}-${st.who}@example.com`
          const at = new Date(T0).toISOString()
          const known = ids.get(st.who)
          if (st.op === 'admin') {
            const made = await createAdminCustomer(ctx, { email, first_name: st.who % 2 ? 'Xavi' : null, metadata: { clubs: st.clubs.map((c) => `${r}${c}`) } })
              .catch(() => undefined)
            if (made) ids.set(st.who, made.id)
          } else if (st.op === 'register') {
            // an identity as registering makes it (its password's hash is not what this is about)
            const identity = { id: `${r}-id${i}`, actor_type: 'customer' as const, email, password_hash: 'x', actor_id: null, created_at: at, updated_at: at }
            expect(await store.create('auth_identity', identity, [], [])).toBe(true)
            const made = await createCustomer(ctx, { authIdentityId: identity.id, actorId: '' }, st.clubs.map((c) => `${r}${c}`), { email })
              .catch(() => undefined)
            if (made) ids.set(st.who, made.id)
          } else if (st.op === 'guest') {
            const made = await customerForCart(ctx, undefined, email)
            if (made && !ids.has(st.who)) ids.set(st.who, made.id)
          } else if (st.op === 'order' && known) {
            const channel = `${r}-${st.channel}`
            if (i < firstList) await place(store, orderDoc(`${r}-o${i}`, channel, known, T0 + st.ms), true)
            else await complete(ctx, `${r}-o${i}`, channel, channelClub[st.channel], known, T0 + st.ms)
          } else if (st.op === 'clubs' && known) {
            await updateCustomer(ctx, known, { metadata: { clubs: st.clubs.map((c) => `${r}${c}`) } })
          }
          if (i >= firstList) await check()
        }
        await check()
      }), {
      numRuns: 60,
      examples: [
        // a customer without an account, a member of A, ordered in A: A keeps it when it leaves A's members
        [[{ op: 'admin', who: 0, clubs: ['A'] }, { op: 'order', who: 0, channel: 'a1', ms: 0 }, { op: 'clubs', who: 0, clubs: [] }], 0, ['A'], {}, 0, 4],
        // one that ordered in A gets an account as a member of B: A no longer sees it
        [[{ op: 'admin', who: 0, clubs: ['B'] }, { op: 'order', who: 0, channel: 'a1', ms: 0 }, { op: 'register', who: 0, clubs: ['B'] }], 0, ['A'], {}, 0, 4],
      ],
    })
  })

  it('reads a page of a club\'s customers, however many the backend holds, once its index is filled', async () => {
    const r = `many${run++}`
    const ctx = { store, jwtSecret: 'x' }
    const names = { first_name: null, last_name: null, phone: null }
    for (let i = 0; i < 300; i++) {
      const at = new Date(T0 + i).toISOString()
      const clubs = i % 3 === 0 ? [`${r}A`] : [`${r}B`]
      const id = `${r}-c${String(i).padStart(3, '0')}`
      const doc = { id, email: `${r}-${i}@example.com`, ...names, has_account: true, metadata: { clubs }, created_at: at, updated_at: at }
      expect(await saveCustomer(ctx, doc)).toBe(true)
    }
    const c = counting(store, 'customer')
    const counted = { store: c.store, jwtSecret: 'x' }
    const first = await customersOfClubs(counted, [`${r}A`], {}, { offset: 0, limit: 5 })
    expect(first.count).toBe(100)
    const filled = c.reads() // every customer of the backend, once
    expect(filled).toBeGreaterThanOrEqual(300)
    const page = await customersOfClubs(counted, [`${r}A`], {}, { offset: 10, limit: 5 })
    expect(page.customers.map((x) => x.id)).toEqual([30, 33, 36, 39, 42].map((i) => `${r}-c0${i}`))
    expect(page.count).toBe(100)
    expect(c.reads() - filled).toBe(5)
  })
})
