import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { daysBefore } from '../../src/dispensing/decide.ts'
import { demoIds } from '../../src/embedded-commerce/demo.ts'
import { linkCode, newPhone, say, startFakeProvider, type FakeProvider } from '../chat/support.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { demoLogin } from '../orders/place-order.ts'

// The daily job over registrations: Ana (Club Sur, de-kcang, her phone linked) is told once, in-app and in the
// chat (the provider is a loopback stand-in), that her registration ends in 10 days, however often the job runs;
// the day after her validUntil she is lapsed and her order is refused.

const SUR = 'club-sur'

describe('membership expiring and lapsed (redis, provider stand-in)', () => {
  let provider: FakeProvider
  let t: TestApp
  let admin: Record<string, string>
  let ana: Record<string, string>
  let today: string
  const phone = newPhone()

  const notices = async () =>
    (await t.app.inject({ url: '/api/notifications?limit=100', headers: ana })).json().notifications as Array<{
      event: string, metadata?: Record<string, unknown>
    }>
  const patchAna = async (payload: object) => {
    const res = await t.app.inject({ method: 'PATCH', url: '/api/members/cus_ana', headers: admin, payload })
    expect(res.statusCode).toBe(200)
    return res.json().standing
  }
  const daily = async () => {
    const outcome = await t.app.dispensingDaily.run()
    if (!outcome.ran) throw new Error('the daily job did not run')
    await t.app.chatWorker.idle(phone)
    return outcome.result
  }
  const chatTexts = () => provider.to(phone).map((m) => JSON.stringify(m)).filter((m) => m.includes('vence el'))

  beforeAll(async () => {
    provider = await startFakeProvider()
    t = await buildTestApp({ store: 'redis', env: { CHAT_API_BASE_URL: provider.url, RATE_LIMIT_MAX: '1000000' } })
    admin = await t.auth('admin', SUR, { sub: 'user_admin_sur', name: 'Admin Sur' })
    expect((await t.app.inject({ method: 'PATCH', url: '/api/club/rules', headers: admin, payload: { preset: 'de-kcang' } })).statusCode).toBe(200)
    ana = await demoLogin(t, 'customer', 'ana@example.com', SUR)
    today = t.app.dispensing.dayOf((await t.app.tenants.get(SUR))!)
    const token = (ana.authorization as string).replace('Bearer ', '')
    await say(t, phone, { text: 'hola' })
    await say(t, phone, { text: `LINK-${await linkCode(t, { customerId: 'cus_ana', email: 'ana@example.com', name: 'Ana', tenantId: SUR, token })}` })
  })
  afterAll(async () => {
    await t.close()
    await provider.close()
  })

  it('ten days before validUntil: one membership.expiring notice and one chat message over two runs', async () => {
    const validUntil = daysBefore(today, -10)
    await patchAna({ validUntil })
    const before = chatTexts().length
    const first = await daily()
    expect(first.notified).toBeGreaterThanOrEqual(1)
    await daily()
    const expiring = (await notices()).filter((n) => n.event === 'membership.expiring')
    expect(expiring).toHaveLength(1)
    expect(expiring[0]?.metadata).toMatchObject({ validUntil })
    const sent = chatTexts().slice(before)
    expect(sent).toHaveLength(1)
    expect(sent[0]).toContain(validUntil)
    // Eleven days ahead is not yet told.
    await patchAna({ validUntil: daysBefore(today, -11) })
    await daily()
    expect((await notices()).filter((n) => n.event === 'membership.expiring')).toHaveLength(1)
  })

  it('the day after validUntil the member is lapsed, once, and an order is refused naming it', async () => {
    await patchAna({ validUntil: daysBefore(today, 1) })
    expect((await daily()).lapsed).toBe(1)
    const standing = (await t.app.inject({ url: '/api/members/cus_ana', headers: admin })).json().standing
    expect(standing).toMatchObject({ status: 'lapsed', validUntil: daysBefore(today, 1) })
    // lapsed members leave the index: a second run lapses nobody
    expect((await daily()).lapsed).toBe(0)
    const variant = (await t.app.inject({ url: '/store/products?limit=50', headers: ana })).json().products
      .find((p: { id: string }) => p.id === demoIds.product('sur', 'flores-critical')).variants[0].id
    const cart = (await t.app.inject({ method: 'POST', url: '/store/carts', headers: ana, payload: {} })).json().cart
    await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id as string}/line-items`, headers: ana, payload: { variantId: variant, quantity: 1 } })
    const options = (await t.app.inject({ url: `/store/shipping-options?cartId=${cart.id as string}`, headers: ana })).json().shippingOptions
    const pickup = options.find((o: { name: string }) => o.name === 'pickup')
    await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id as string}/shipping-methods`, headers: ana, payload: { optionId: pickup.id } })
    await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id as string}/payment-sessions`, headers: ana, payload: { providerId: 'cash' } })
    const refused = await t.app.inject({ method: 'POST', url: `/store/carts/${cart.id as string}/complete`, headers: ana })
    expect(refused.statusCode).toBe(403)
    expect(refused.json().error).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'status', status: 'lapsed' } })
  })
})
