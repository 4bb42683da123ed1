import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import { startCountingProxy, type CountingProxy } from './counting-proxy.ts'
import { demoLogin, placeOrder } from './place-order.ts'

// What a checkout reads once per club and keeps for CATALOG_CACHE_MS, counted from outside: a loopback in front of
// the embedded backend sees every call the service makes, as a real Medusa would.

describe.each([
  { kept: '30000', providerReads: 1 },
  { kept: '0', providerReads: 2 },
])('a checkout\'s kept reads (CATALOG_CACHE_MS=$kept, redis, counting loopback)', ({ kept, providerReads }) => {
  let proxy: CountingProxy
  let t: TestApp
  beforeAll(async () => {
    proxy = await startCountingProxy()
    t = await buildTestApp({ store: 'redis', env: { COMMERCE_TENANTS_FILE: proxy.tenantsFile, CATALOG_CACHE_MS: kept } })
    proxy.target = t.app.commerceUrl
  })
  afterAll(async () => {
    await t.close()
    await proxy.close()
  })

  it('the region\'s payment providers are read once per club within the bound, and each order still gets its session', async () => {
    const ana = await demoLogin(t, 'customer', 'ana@example.com')
    const calls = await proxy.during(async () => {
      for (let i = 0; i < 2; i++) await placeOrder(t, ana)
    })
    expect(calls.filter((c) => c === 'GET /store/payment-providers')).toHaveLength(providerReads)
    expect(calls.filter((c) => /^POST \/store\/payment-collections\/\w+\/payment-sessions$/.test(c))).toHaveLength(2)
    // another club's region is read for itself
    const sur = await demoLogin(t, 'customer', 'ana@example.com', 'club-sur')
    const surCalls = await proxy.during(async () => { await placeOrder(t, sur) })
    const reads = proxy.calls.filter((c) => c.path === '/store/payment-providers').slice(-1)[0]
    expect(surCalls.filter((c) => c === 'GET /store/payment-providers')).toHaveLength(1)
    expect(reads?.query.get('region_id')).toBe('reg_club_sur')
  })
})
