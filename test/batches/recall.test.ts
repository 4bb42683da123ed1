import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import { as, type Call } from '../crops/client.ts'
import { linkCode, newPhone, say, startFakeProvider, type FakeProvider } from '../chat/support.ts'
import type { Tenant } from '../../src/tenants/model.ts'
import { FLOWERS, stockedBatch, withLab } from './client.ts'

// From batch to member and back: units drawn at a handover (the dispensing record's hook), the stock report, and a
// recall that reaches exactly the members who received the batch, once each, in-app and through the chat
// pipeline (the provider is a loopback stand-in).

const HOUR = 60 * 60_000

describe('draws, stock report and recall (redis, provider stand-in)', () => {
  let provider: FakeProvider
  let t: TestApp
  let now = Date.now()
  let admin: Call
  let grower: Call
  let tenant: Tenant
  let five: { id: string, inventoryItemId: string }
  let early: { batchNumber: string, cropId: string }
  let late: { batchNumber: string, cropId: string }
  const bruno = newPhone()

  const notices = async (sub: string) =>
    (await t.app.inject({ url: '/api/notifications?limit=100', headers: await t.auth('member', 'club-norte', { sub }) })).json().notifications as Array<{
      event: string, body: string
    }>

  beforeAll(async () => {
    provider = await startFakeProvider()
    t = await buildTestApp({ store: 'redis', env: { CHAT_API_BASE_URL: provider.url, RATE_LIMIT_MAX: '1000000' }, chat: { clock: () => now } })
    admin = await as(t, 'admin')
    grower = await as(t, 'grower')
    tenant = (await t.app.tenants.get('club-norte'))!
    five = (await admin('POST', '/api/products', FLOWERS)).body.product.variants[0]
    late = await stockedBatch(grower, 100)
    early = await stockedBatch(grower, 50)
    await grower('PATCH', `/api/batches/${early.batchNumber}`, { bestBefore: new Date(Date.now() + 30 * 24 * HOUR).toISOString() })
    await withLab(grower, late.batchNumber, 20, 0.5)
    await withLab(grower, early.batchNumber, 16, 1)
    expect((await grower('POST', `/api/batches/${late.batchNumber}/package`, { variantId: five.id, units: 5 })).status).toBe(201)
    expect((await grower('POST', `/api/batches/${early.batchNumber}/package`, { variantId: five.id, units: 4 })).status).toBe(201)
    // Bruno's phone is linked to him at the club.
    const token = await t.token('member', ['club-norte'], { sub: 'cus_bruno', name: 'Bruno', email: 'bruno@example.com' })
    await say(t, bruno, { text: 'hola' })
    await say(t, bruno, {
      text: `LINK-${await linkCode(t, { customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', tenantId: 'club-norte', token })}`
    })
  })
  afterAll(async () => {
    await t.close()
    await provider.close()
  })

  it('a handover draws the earliest best-before first, names each batch with its THC and CBD, and draws once per order', async () => {
    const at = new Date().toISOString()
    const draw = await t.app.batches.draw(tenant, { orderId: 'order_b1', memberId: 'cus_bruno', at, lines: [{ variantId: five.id, units: 5 }] })
    expect(draw.lines.map(({ batchNumber, units, mg, thcPercent, cbdPercent }) => ({ batchNumber, units, mg, thcPercent, cbdPercent }))).toEqual([
      { batchNumber: early.batchNumber, units: 4, mg: 20_000, thcPercent: 16, cbdPercent: 1 },
      { batchNumber: late.batchNumber, units: 1, mg: 5000, thcPercent: 20, cbdPercent: 0.5 },
    ])
    expect(draw.untraced).toEqual([])
    expect(await t.app.batches.draw(tenant, { orderId: 'order_b1', memberId: 'cus_bruno', at, lines: [{ variantId: five.id, units: 5 }] })).toEqual(draw)
    // Ana gets one from the late batch, Carla one that is later reversed: neither batch is drawn twice.
    await t.app.batches.draw(tenant, { orderId: 'order_a1', memberId: 'cus_ana', at, lines: [{ variantId: five.id, units: 1 }] })
    await t.app.batches.draw(tenant, { orderId: 'order_c1', memberId: 'cus_carla', at, lines: [{ variantId: five.id, units: 1 }] })
    const reversed = await t.app.batches.undraw(tenant, 'order_c1')
    expect(reversed?.lines.every((l) => l.reversedAt !== null)).toBe(true)
    // More than the shelf holds: the rest is untraced, never refused here.
    const short = await t.app.batches.draw(tenant, { orderId: 'order_d1', memberId: 'cus_dora', at, lines: [{ variantId: 'variant_typed_by_hand', units: 2 }] })
    expect(short.untraced).toEqual([{ variantId: 'variant_typed_by_hand', units: 2 }])
    const batch = (await grower('GET', `/api/batches/${late.batchNumber}`)).body.batch
    expect(batch.packaged[0]).toMatchObject({ units: 5, dispensedUnits: 2, remainingUnits: 3 })
    expect(batch.dispensations.map((d: { memberId: string, reversedAt: string | null }) =>
      [d.memberId, d.reversedAt === null])).toEqual([['cus_bruno', true], ['cus_ana', true], ['cus_carla', false]])
  })

  it('the stock report balances per strain; the crop\'s complete view lists its batch', async () => {
    const year = new Date().getUTCFullYear()
    const report = (await grower('GET', `/api/reports/stock?year=${year}`)).body
    const gelato = report.strains.find((s: { strain: { id: string } }) => s.strain.id === 'strain_norte_gelato')
    expect(gelato.difference).toBe(0)
    expect(gelato.harvestedDry).toBe(gelato.dispensed + gelato.destroyed + gelato.withdrawn + gelato.onHand)
    expect(report.totals.difference).toBe(0)
    expect((await grower('GET', '/api/reports/stock?year=1999')).status).toBe(400)
    const complete = (await grower('GET', `/api/crops/${late.cropId}/complete`)).body
    expect(complete.batches).toEqual([expect.objectContaining({ batchNumber: late.batchNumber, gramsHarvested: 100, gramsAvailable: 75, gramsDispensed: 10 })])
  })

  it('the info sheet: a printable page in the club\'s language, or plain text', async () => {
    const html = await t.app.inject({ url: `/api/batches/${late.batchNumber}/info-sheet`, headers: await t.auth('member') })
    expect(html.statusCode).toBe(200)
    expect(html.headers['content-type']).toContain('text/html')
    expect(html.body).toContain('Hoja informativa del lote')
    expect(html.body).toContain('Gelato')
    const text = await t.app.inject({ url: `/api/batches/${late.batchNumber}/info-sheet`, headers: { ...await t.auth('grower'), accept: 'text/plain' } })
    expect(text.headers['content-type']).toContain('text/plain')
    expect(text.body).toContain(`Lote: ${late.batchNumber}`)
    expect(text.body).toContain('Peso por unidad: 5 g')
    expect(text.body).toMatch(/THC promedio: 20 %/)
    expect((await t.app.inject({ url: '/api/batches/B-nowhere/info-sheet', headers: await t.auth('member') })).statusCode).toBe(404)
  })

  it('a recall takes the rest off sale and reaches exactly the members who received the batch, once each', async () => {
    expect((await grower('POST', `/api/batches/${late.batchNumber}/recall`, { reason: 'Moho' })).status).toBe(403)
    const unknown = await admin('POST', '/api/batches/B-nowhere/recall', { reason: 'Moho' })
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.code).toBe('NOT_FOUND')
    expect((await admin('POST', `/api/batches/${late.batchNumber}/recall`, {})).status).toBe(400)
    const stockedBefore = await t.app.commerce.medusaFor(tenant).stockedAtClub(five.inventoryItemId)
    now += 25 * HOUR
    try {
      const before = provider.to(bruno).length
      const res = await admin('POST', `/api/batches/${late.batchNumber}/recall`, { reason: 'Moho en el secado' })
      expect(res.status).toBe(200)
      expect(res.body.affected.map((d: { memberId: string, orderId: string, units: number }) =>
        [d.memberId, d.orderId, d.units])).toEqual([['cus_bruno', 'order_b1', 1], ['cus_ana', 'order_a1', 1]])
      expect(res.body.batch).toMatchObject({
        status: 'RECALLED',
        recall: { reason: 'Moho en el secado', unitsWithdrawn: 3, offSale: 'stock-to-zero', stock: [{ variantId: five.id, units: 3, done: true }] }
      })
      expect(await t.app.commerce.medusaFor(tenant).stockedAtClub(five.inventoryItemId)).toBe((stockedBefore ?? 0) - 3)
      // Again: nothing new, nobody told twice.
      expect((await admin('POST', `/api/batches/${late.batchNumber}/recall`, { reason: 'otra vez' })).body.batch.recall.reason).toBe('Moho en el secado')
      await t.app.chatWorker.idle(bruno)
      const got = provider.to(bruno).slice(before)
      expect(got).toHaveLength(1)
      expect(got[0]).toMatchObject({ type: 'template', template: { name: 'batch_recall', language: { code: 'es' } } })
    } finally {
      now -= 25 * HOUR
    }
    expect((await notices('cus_bruno')).filter((n) => n.event === 'batch.recalled')).toHaveLength(1)
    expect((await notices('cus_ana')).filter((n) => n.event === 'batch.recalled').map((n) => n.body)[0]).toContain(late.batchNumber)
    // Carla's was reversed, Dora got none of it: neither is told.
    expect((await notices('cus_carla')).filter((n) => n.event === 'batch.recalled')).toEqual([])
    expect((await notices('cus_dora')).filter((n) => n.event === 'batch.recalled')).toEqual([])
    // Nothing more is drawn from it, nor packaged.
    expect(await t.app.batches.store.offering(tenant.id, five.id)).toEqual([])
    expect((await grower('POST', `/api/batches/${late.batchNumber}/package`, { variantId: five.id, units: 1 })).status).toBe(409)
    const report = (await grower('GET', `/api/reports/stock?year=${new Date().getUTCFullYear()}`)).body
    expect(report.totals.difference).toBe(0)
  })
})
