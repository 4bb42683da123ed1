import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { actorFrom } from '../../src/auth/actor.ts'
import { verifyAccessToken } from '../../src/auth/tokens.ts'
import { CatalogCache } from '../../src/commerce/catalog-cache.ts'
import type { UpstreamShippingOption } from '../../src/commerce/upstream.ts'
import { createCommerceStore } from '../../src/embedded-commerce/store/index.ts'
import { settingsKey, StoreFront, type Catalog, type ShopperActor } from '../../src/orders/storefront.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { startCountingProxy, type CountingProxy } from './counting-proxy.ts'
import { createUnsettledStore } from '../../src/orders/unsettled.ts'
import { demoLogin, placeOrder } from './place-order.ts'

// What a checkout reads once per club and keeps for CATALOG_CACHE_MS, counted from outside: a loopback in front of
// the embedded backend sees every call the service makes, as a real Medusa would.

const PROVIDERS = 'GET /store/payment-providers'
const OPTIONS = 'GET /store/shipping-options'
const SHIP = /^POST \/store\/carts\/\w+\/shipping-methods$/
const SESSION = /^POST \/store\/payment-collections\/\w+\/payment-sessions$/

async function started (kept: string): Promise<{ proxy: CountingProxy, t: TestApp }> {
  const proxy = await startCountingProxy()
  const t = await buildTestApp({ store: 'redis', env: { COMMERCE_TENANTS_FILE: proxy.tenantsFile, CATALOG_CACHE_MS: kept } })
  proxy.target = t.app.commerceUrl
  return { proxy, t }
}

/** Ana at `tenantId` as the bot acts for her, and a new cart of hers holding one unit of the club's first product. */
async function shopperWithCart (t: TestApp, tenantId = 'club-norte', store: StoreFront = t.app.storeFront): Promise<{ shopper: ShopperActor, cartId: string }> {
  const token = await t.token('member', [tenantId], { sub: 'cus_ana', email: 'ana@example.com', name: 'Ana' })
  const actor = actorFrom(await verifyAccessToken(t.config.jwtSecret, token), (await t.app.tenants.get(tenantId))!)
  const shopper = await store.shopper(actor, token)
  const variant = (await store.catalog(actor)).products[0]!.variants[0]!.id
  return { shopper, cartId: (await store.holdAtLeast(shopper, undefined, variant, 1)).id }
}

describe.each([
  { kept: '30000', reads: 1 },
  { kept: '0', reads: 2 },
])('a checkout\'s kept reads (CATALOG_CACHE_MS=$kept, redis, counting loopback)', ({ kept, reads }) => {
  let proxy: CountingProxy
  let t: TestApp
  beforeAll(async () => { ({ proxy, t } = await started(kept)) })
  afterAll(async () => {
    await t.close()
    await proxy.close()
  })

  it('the bot\'s confirmations read the club\'s shipping options and payment providers once within the bound', async () => {
    const carts = [await shopperWithCart(t), await shopperWithCart(t)]
    const calls = await proxy.during(async () => {
      for (const { shopper, cartId } of carts) {
        const order = await t.app.storeFront.checkout(shopper, cartId, { shipping: 'pickup', payment: 'cash' })
        expect(order.items).toHaveLength(1)
      }
    })
    expect(calls.filter((c) => c === OPTIONS)).toHaveLength(reads)
    expect(calls.filter((c) => c === PROVIDERS)).toHaveLength(reads)
    expect(calls.filter((c) => SHIP.test(c))).toHaveLength(2)
    expect(calls.filter((c) => SESSION.test(c))).toHaveLength(2)
    // another club reads its own
    const sur = await shopperWithCart(t, 'club-sur')
    const surCalls = await proxy.during(async () => { await t.app.storeFront.checkout(sur.shopper, sur.cartId, { shipping: 'pickup', payment: 'cash' }) })
    expect(surCalls.filter((c) => c === PROVIDERS || c === OPTIONS)).toEqual([OPTIONS, PROVIDERS])
    expect(proxy.calls.filter((c) => c.path === '/store/payment-providers').at(-1)?.query.get('region_id')).toBe('reg_club_sur')
  })

  it('the store route\'s payment sessions read the region\'s providers once within the bound', async () => {
    const ana = await demoLogin(t, 'customer', 'ana@example.com')
    const calls = await proxy.during(async () => {
      for (let i = 0; i < 2; i++) await placeOrder(t, ana)
    })
    // the first of these may find the list kept by the test before
    expect(calls.filter((c) => c === PROVIDERS).length).toBeLessThanOrEqual(reads)
    expect(calls.filter((c) => SESSION.test(c))).toHaveLength(2)
  })
})

describe('a kept copy the backend no longer agrees with (redis, counting loopback)', () => {
  let proxy: CountingProxy
  let t: TestApp
  beforeAll(async () => { ({ proxy, t } = await started('30000')) })
  afterAll(async () => {
    await t.close()
    await proxy.close()
  })

  it('a shipping option it no longer offers: refused, the kept list dropped, the options read again and the order placed', async () => {
    const kept = new CatalogCache<UpstreamShippingOption[]>(30_000)
    const store = new StoreFront(
      t.app.orders, t.app.commerce.sessions, new CatalogCache<Catalog>(30_000), new CatalogCache<string[]>(30_000), kept, t.app.orderDispensing,
      { unsettled: createUnsettledStore(t.app.redis), locks: t.app.locks, tenants: t.app.tenants, log: t.app.log }
    )
    const { shopper, cartId } = await shopperWithCart(t, 'club-norte', store)
    await kept.get('club-norte', settingsKey(shopper.medusa.settings), async () => [{ id: 'so_gone', name: 'pickup' }])
    const calls = await proxy.during(async () => {
      const order = await store.checkout(shopper, cartId, { shipping: 'pickup', payment: 'cash' })
      expect(order.items).toHaveLength(1)
    })
    expect(calls.filter((c) => SHIP.test(c) || c === OPTIONS)).toEqual([expect.stringMatching(SHIP), OPTIONS, expect.stringMatching(SHIP)])
    // the list read then is kept: the next confirmation reads none
    const next = await shopperWithCart(t, 'club-norte', store)
    expect(
      (await proxy.during(async () => { await store.checkout(next.shopper, next.cartId, { shipping: 'pickup', payment: 'cash' }) })).filter((c) =>
        c === OPTIONS)
    ).toEqual([])
  })

  it('a provider the region no longer offers: refused, the kept list dropped, the providers read again and the default used', async () => {
    const { shopper, cartId } = await shopperWithCart(t)
    await t.app.storeFront.checkout(shopper, cartId, { shipping: 'pickup', payment: 'cash' })
    // staff take pp_cash out of the region after the providers were kept
    const commerce = createCommerceStore(t.redis)
    const region = (await commerce.get('region', shopper.medusa.settings.regionId))!
    expect(await commerce.replace('region', region.rev, { ...region.doc, payment_providers: ['pp_system_default'] })).toBe('ok')
    const next = await shopperWithCart(t)
    const calls = await proxy.during(async () => {
      const order = await t.app.storeFront.checkout(next.shopper, next.cartId, { shipping: 'pickup', payment: 'cash' })
      expect(order.items).toHaveLength(1)
    })
    expect(calls.filter((c) => SESSION.test(c) || c === PROVIDERS)).toEqual([expect.stringMatching(SESSION), PROVIDERS, expect.stringMatching(SESSION)])
  })
})
