import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoIds } from '../../src/embedded-commerce/demo.ts'
import { keys } from '../../src/stores/keys.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { demoLogin } from '../orders/place-order.ts'

// Club Norte put under de-kcang here (its record starts empty: the demo's Club Sur already holds Lucía's), Ana
// ordering Amnesia Haze (5 g and 10 g units, 18 % THC) through every path that starts a dispensation; staff hand
// over at the counter; the record verifies, reverses, lists and sums.

const CLUB = 'club-norte'
const FLOWER = demoIds.product('norte', 'flores-amnesia')

describe('dispensing under de-kcang (embedded backend, redis)', () => {
  let t: TestApp
  let ana: Record<string, string>
  let admin: Record<string, string>
  let v5: string
  let v10: string
  let papers: string

  const cart = async (items: Array<[string, number]>, shipping = 'pickup'): Promise<string> => {
    const c = (await t.app.inject({ method: 'POST', url: '/store/carts', headers: ana, payload: {} })).json().cart
    for (const [variantId, quantity] of items) {
      expect((await t.app.inject({ method: 'POST', url: `/store/carts/${c.id}/line-items`, headers: ana, payload: { variantId, quantity } })).statusCode).toBe(
        200
      )
    }
    const options = (await t.app.inject({ url: `/store/shipping-options?cartId=${c.id}`, headers: ana })).json().shippingOptions
    const option = options.find((o: { name: string }) => o.name === shipping)
    await t.app.inject({ method: 'POST', url: `/store/carts/${c.id}/shipping-methods`, headers: ana, payload: { optionId: option.id } })
    await t.app.inject({ method: 'POST', url: `/store/carts/${c.id}/payment-sessions`, headers: ana, payload: { providerId: 'cash' } })
    return c.id
  }
  const complete = async (cartId: string) => await t.app.inject({ method: 'POST', url: `/store/carts/${cartId}/complete`, headers: ana })
  const quota = async () => (await t.app.inject({ url: '/api/members/me/quota', headers: ana })).json().quota
  const handover = async (orderId: string, body: unknown = { identityChecked: true }, headers = admin) =>
    await t.app.inject({ method: 'POST', url: `/api/orders/${orderId}/handover`, headers, payload: body as object })

  beforeAll(async () => {
    t = await buildTestApp()
    admin = await t.auth('admin', CLUB, { sub: 'user_admin_norte', name: 'Admin Norte' })
    expect((await t.app.inject({ method: 'PATCH', url: '/api/club/rules', headers: admin, payload: { preset: 'de-kcang' } })).statusCode).toBe(200)
    ana = await demoLogin(t, 'customer', 'ana@example.com', CLUB)
    const products = (await t.app.inject({ url: '/store/products?limit=50', headers: ana })).json().products
    const flower = products.find((p: { id: string }) => p.id === FLOWER)
    v5 = flower.variants.find((v: { grams: number }) => v.grams === 5).id
    v10 = flower.variants.find((v: { grams: number }) => v.grams === 10).id
    expect(flower.variants[0]).toMatchObject({ thcPercent: 18, cbdPercent: 0.5 })
    papers = products.find((p: { id: string }) => p.id === demoIds.product('norte', 'picador')).variants[0].id
  })
  afterAll(async () => { await t.close() })

  it('an order reserves its grams; one that would cross the daily cap is 403 LIMIT_EXCEEDED with the figures, nothing reserved', async () => {
    const first = await complete(await cart([[v10, 2]]))
    expect(first.statusCode).toBe(200)
    expect(first.json().order.metadata.activityLogs[0].description).toBe('orders:activity.created')
    expect((await quota()).periods).toEqual([
      { period: 'day', id: expect.any(String), used: 0, reserved: 20, limit: 25, remaining: 5 },
      { period: 'month', id: expect.any(String), used: 0, reserved: 20, limit: 50, remaining: 30 },
    ])
    const over = await complete(await cart([[v5, 2]]))
    expect(over.statusCode).toBe(403)
    expect(over.json().error).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { current: 20, limit: 25, period: 'day', remaining: 5 } })
    expect((await quota()).periods[0].reserved).toBe(20)
    // papers count toward nothing
    expect((await complete(await cart([[papers, 3]]))).statusCode).toBe(200)
    // cancelling gives the grams back
    expect((await t.app.inject({ method: 'POST', url: `/api/orders/${first.json().order.id as string}/cancel`, headers: admin })).statusCode).toBe(200)
    expect((await quota()).periods[0]).toMatchObject({ reserved: 0, remaining: 25 })
  })

  it('delivery in a pickup-only club is 422 naming the rule, before anything is reserved', async () => {
    const res = await complete(await cart([[v5, 1]], 'delivery'))
    expect(res.statusCode).toBe(422)
    expect(res.json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: { rule: 'deliveryAllowed' } })
    expect((await quota()).periods[0].reserved).toBe(0)
  })

  it('the handover: identity required, standing and caps checked again, the record written, the order completed; twice is 409', async () => {
    const order = (await complete(await cart([[v5, 3]]))).json().order
    expect((await handover(order.id, { identityChecked: false })).statusCode).toBe(400)
    expect((await handover(order.id, {})).statusCode).toBe(400)
    const res = await handover(order.id)
    expect(res.statusCode).toBe(200)
    expect(res.json().order).toMatchObject({ status: 'completed', fulfillmentStatus: 'shipped' })
    expect(res.json().entries).toEqual([expect.objectContaining({
      kind: 'dispensation',
      orderId: order.id,
      grams: 15,
      quantity: 3,
      thcPercent: 18,
      cbdPercent: 0.5,
      memberName: 'Ana Pereyra',
      memberBirthYear: null,
      staff: { id: 'user_admin_norte', name: 'Admin Norte' },
      batches: [],
      productId: FLOWER,
    })])
    expect((await quota()).periods[0]).toMatchObject({ used: 15, reserved: 0, remaining: 10 })
    const again = await handover(order.id)
    expect(again.statusCode).toBe(409)
    expect(again.json().error.code).toBe('CONFLICT')
    // the member sees it completed
    expect((await t.app.inject({ url: `/api/orders/${order.id as string}`, headers: ana })).json().order.status).toBe('completed')
    // another club's admin: 404, nothing written
    const sur = await t.auth('admin', 'club-sur')
    expect((await handover(order.id, { identityChecked: true }, sur)).statusCode).toBe(404)
    expect((await t.app.inject({ url: '/api/dispensing', headers: admin })).json().count).toBe(1)
  })

  it('a member not active, or under 21 above 10 % THC, is refused naming why; a future birth date or an unknown status is 400, nothing written', async () => {
    const member = '/api/members/cus_ana'
    for (const payload of [
      { birthDate: '2999-01-01' }, { status: 'banned' }, { monthlyAllowanceGrams: -1 }, { identityCheck: { document: 'passport', number: 'X123' } }
    ]) {
      const res = await t.app.inject({ method: 'PATCH', url: member, headers: admin, payload })
      expect(res.statusCode).toBe(400)
      expect(res.json().error.code).toBe('VALIDATION_ERROR')
    }
    expect((await t.app.inject({ url: member, headers: admin })).json().standing).toMatchObject({ status: 'active', birthDate: null })
    const suspended = await t.app.inject({
      method: 'PATCH', url: member, headers: admin, payload: { status: 'suspended', reason: 'unpaid fee', phone: '+54 9 11 5555-0000' }
    })
    expect(suspended.json()).toMatchObject({ member: { phone: '+5491155550000' }, standing: { status: 'suspended', reason: 'unpaid fee' } })
    const refused = await complete(await cart([[v5, 1]]))
    expect(refused.statusCode).toBe(403)
    expect(refused.json().error).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'status', status: 'suspended' } })
    const young = new Date(Date.now() - 19 * 365.25 * 86_400_000).toISOString().slice(0, 10)
    await t.app.inject({ method: 'PATCH', url: member, headers: admin, payload: { status: 'active', birthDate: young } })
    const thc = await complete(await cart([[v5, 1]]))
    expect(thc.statusCode).toBe(403)
    expect(thc.json().error).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'thcCeiling', ceilingPercent: 10 } })
    expect((await quota())).toMatchObject({ young: true, thcCeilingPercent: 10 })
    await t.app.inject({ method: 'PATCH', url: member, headers: admin, payload: { birthDate: '1990-05-01', identityCheck: { document: 'id-card' } } })
  })

  it('the record: reverse with a reason (the grams back), a reversal not reversed, verify, CSV, reports; ' +
    'an edited or removed entry fails verify at it', async () => {
    const [entry] = (await t.app.inject({ url: '/api/dispensing', headers: admin })).json().entries
    expect((await t.app.inject({ method: 'POST', url: `/api/dispensing/${entry.id as string}/reverse`, headers: admin, payload: {} })).statusCode).toBe(400)
    const reversed = await t.app.inject({
      method: 'POST', url: `/api/dispensing/${entry.id as string}/reverse`, headers: admin, payload: { reason: 'wrong member' }
    })
    expect(reversed.statusCode).toBe(201)
    expect(reversed.json().entry).toMatchObject({ kind: 'reversal', grams: -15, reverses: entry.id, reason: 'wrong member', prevHash: entry.hash })
    expect((await quota()).periods[0]).toMatchObject({ used: 0 })
    const twice = await t.app.inject({ method: 'POST', url: `/api/dispensing/${entry.id as string}/reverse`, headers: admin, payload: { reason: 'again' } })
    expect(twice.statusCode).toBe(409)
    const ofReversal = await t.app.inject({
      method: 'POST', url: `/api/dispensing/${reversed.json().entry.id as string}/reverse`, headers: admin, payload: { reason: 'undo' }
    })
    expect(ofReversal.statusCode).toBe(409)
    expect(ofReversal.json().error.message).toContain('reversing entry')
    expect((await t.app.inject({ url: '/api/dispensing', headers: admin })).json().count).toBe(2)

    expect((await t.app.inject({ url: '/api/dispensing/verify', headers: admin })).json()).toEqual({ ok: true, entries: 2, head: reversed.json().entry.hash })
    const csv = await t.app.inject({ url: '/api/dispensing', headers: { ...admin, accept: 'text/csv' } })
    expect(csv.headers['content-type']).toContain('text/csv')
    expect(csv.body.split('\r\n')[0]).toMatch(/^id,seq,kind,at,day/)
    expect(csv.body.split('\r\n').filter(Boolean)).toHaveLength(3)
    const year = Number(entry.day.slice(0, 4))
    expect((await t.app.inject({ url: `/api/reports/dispensing?year=${year}`, headers: admin })).json()).toMatchObject({
      year, grams: 0, strains: [{ productId: FLOWER, grams: 0, dispensations: 0 }]
    })
    expect((await t.app.inject({ url: `/api/reports/dispensing?month=${entry.day.slice(0, 7) as string}`, headers: admin })).json()).toMatchObject({
      members: [{ memberName: 'Ana Pereyra', grams: 0 }]
    })
    expect((await t.app.inject({ url: '/api/reports/dispensing', headers: admin })).statusCode).toBe(400)
    expect((await t.app.inject({ url: '/api/dispensing', headers: ana })).statusCode).toBe(403)

    const redis = t.redis
    if (!redis) throw new Error('redis test')
    const k = keys.dispensing.ledger(CLUB)
    const text = await redis.hget(k.entries, '1') as string
    await redis.hset(k.entries, '1', text.replace('"grams":15', '"grams":1.5'))
    expect((await t.app.inject({ url: '/api/dispensing/verify', headers: admin })).json()).toMatchObject({
      ok: false, broken: { id: 'dsp_1', problem: 'content' }
    })
    await redis.hset(k.entries, '1', text)
    await redis.hdel(k.entries, '2')
    expect((await t.app.inject({ url: '/api/dispensing/verify', headers: admin })).json()).toMatchObject({
      ok: false, broken: { id: 'dsp_2', problem: 'missing' }
    })
  })
})
