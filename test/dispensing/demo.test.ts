import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoDispensationDays, seedDemoMembers } from '../../src/dispensing/demo.ts'
import { createMemberStore } from '../../src/dispensing/store/index.ts'
import { demoIds } from '../../src/tenants/demo.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { completeCart, demoLogin } from '../orders/place-order.ts'

// The demo as the README's table names it: Club Sur under de-kcang with Lucía near the monthly cap (her handovers
// in the record), Mateo under 21 (30 g a month, nothing above 10 % THC), Olga lapsed, each with a phone staff can
// make a link code for; Club Norte and Ana and Bruno as before (`none`, delivery allowed).

const SUR = 'club-sur'

describe('the demo clubs under their rules (redis, embedded backend)', () => {
  let t: TestApp
  let admin: Record<string, string>
  let today: string
  const get = async (url: string, headers = admin) => (await t.app.inject({ url, headers })).json()
  const variantOf = async (headers: Record<string, string>, key: string, grams: number): Promise<string> => {
    const products: Array<{ id: string, variants: Array<{ id: string, grams: number | null }> }> = (await get('/store/products?limit=50', headers)).products
    return products.find((p) => p.id === demoIds.product('sur', key))!.variants.find((v) => v.grams === grams)!.id
  }

  beforeAll(async () => {
    t = await buildTestApp()
    admin = await t.auth('admin', SUR, { sub: 'user_admin_sur', name: 'Admin Sur' })
    today = t.app.dispensing.dayOf((await t.app.tenants.get(SUR))!)
  })
  afterAll(async () => { await t.close() })

  it('Club Sur runs de-kcang, Club Norte none with delivery', async () => {
    expect((await get('/api/club/rules')).rules).toMatchObject({ preset: 'de-kcang', monthlyGrams: 50, deliveryAllowed: false })
    expect((await get('/api/club/rules', await t.auth('admin', 'club-norte'))).rules).toMatchObject({ preset: 'none', deliveryAllowed: true })
  })

  it('Lucía: her handovers of this month are in the record, which verifies; 5 g left this month from the 2nd on', async () => {
    const days = demoDispensationDays(today, 2)
    const { entries } = await get('/api/dispensing?memberId=cus_lucia')
    expect(entries.map((e: { day: string }) => e.day)).toEqual(days)
    expect(entries.map((e: { grams: number }) => e.grams)).toEqual([25, 20].slice(0, days.length))
    expect(entries[0]).toMatchObject({ memberName: 'Lucía Fernández', product: 'Flores Critical Kush 5 g', thcPercent: 19, staff: { name: 'Admin Sur' } })
    expect((await get('/api/dispensing/verify')).ok).toBe(true)
    const month = (await get('/api/members/cus_lucia/quota')).quota.periods.find((p: { period: string }) => p.period === 'month')
    expect(month).toMatchObject({ used: days.length === 2 ? 45 : 25, remaining: days.length === 2 ? 5 : 25 })
    const lucia = await demoLogin(t, 'customer', 'lucia@example.com', SUR)
    const over = await completeCart(t, lucia, [[await variantOf(lucia, 'flores-critical', 10), 1]], 'pickup')
    expect(over.statusCode).toBe(403)
    expect(over.json().error.code).toBe('LIMIT_EXCEEDED')
  })

  it('seeding again (a restart, a second instance) adds nothing', async () => {
    const before = (await get('/api/dispensing')).count
    await seedDemoMembers({ tenants: t.app.tenants, members: createMemberStore(t.redis ?? null), dispensing: t.app.dispensing, ledger: t.app.ledger })
    expect((await get('/api/dispensing')).count).toBe(before)
    expect((await get('/api/members/cus_lucia/quota')).quota.periods.find((p: { period: string }) => p.period === 'month').used).toBe(
      demoDispensationDays(today, 2).length === 2 ? 45 : 25
    )
  })

  it('Mateo is under 21: the young cap, the low-THC flower is his, the strong one refused naming the ceiling', async () => {
    expect((await get('/api/members/cus_mateo/quota')).quota).toMatchObject({
      young: true, thcCeilingPercent: 10, periods: expect.arrayContaining([expect.objectContaining({ period: 'month', limit: 30 })])
    })
    const mateo = await demoLogin(t, 'customer', 'mateo@example.com', SUR)
    expect((await completeCart(t, mateo, [[await variantOf(mateo, 'flores-harlequin', 5), 1]], 'pickup')).statusCode).toBe(200)
    const strong = await completeCart(t, mateo, [[await variantOf(mateo, 'flores-critical', 5), 1]], 'pickup')
    expect(strong.json().error).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'thcCeiling', ceilingPercent: 10 } })
  })

  it('Olga is lapsed: refused naming why; delivery in Club Sur is refused naming the rule', async () => {
    expect((await get('/api/members/cus_olga')).standing).toMatchObject({ status: 'lapsed', reason: 'membership fee not renewed' })
    const olga = await demoLogin(t, 'customer', 'olga@example.com', SUR)
    const refused = await completeCart(t, olga, [[await variantOf(olga, 'flores-harlequin', 5), 1]], 'pickup')
    expect(refused.json().error).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'status', status: 'lapsed' } })
    const mateo = await demoLogin(t, 'customer', 'mateo@example.com', SUR)
    expect((await completeCart(t, mateo, [[await variantOf(mateo, 'flores-harlequin', 5), 1]], 'delivery')).statusCode).toBe(422)
  })

  it('each new demo member has a phone: staff make them a chat link code', async () => {
    for (const [id, phone] of [['cus_lucia', '+5491140000001'], ['cus_mateo', '+5491140000002'], ['cus_olga', '+5491140000003']]) {
      const res = await t.app.inject({ method: 'POST', url: `/api/members/${id}/chat-link`, headers: admin })
      expect(res.statusCode).toBe(201)
      expect(res.json().phone).toBe(phone)
    }
  })

  it('the handovers fall on the first days of the month, never after today', () => {
    expect(demoDispensationDays('2026-11-27', 2)).toEqual(['2026-11-01', '2026-11-02'])
    expect(demoDispensationDays('2026-11-02', 2)).toEqual(['2026-11-01', '2026-11-02'])
    expect(demoDispensationDays('2026-12-01', 2)).toEqual(['2026-12-01'])
  })
})
