import { actorFrom } from '../../src/auth/actor.ts'
import { verifyAccessToken } from '../../src/auth/tokens.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCountingProxy, type CountingProxy } from '../orders/counting-proxy.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { choiceIds, linkCode, newPhone, outbox, say, textOf, type Input } from './support.ts'

// Commerce calls per bot turn, counted from outside: a loopback in front of the embedded backend sees every call
// the service makes, as a real Medusa would. The catalog is kept per club for CATALOG_CACHE_MS (default 30 s,
// far longer than this file runs); stock is checked again by the backend when the order is placed.

describe('commerce calls per bot turn (redis, counting loopback)', () => {
  let proxy: CountingProxy
  let t: TestApp
  beforeAll(async () => {
    proxy = await startCountingProxy()
    t = await buildTestApp({ store: 'redis', env: { COMMERCE_TENANTS_FILE: proxy.tenantsFile } })
    proxy.target = t.app.commerceUrl
  })
  afterAll(async () => {
    await t.close()
    await proxy.close()
  })

  const member = { customerId: 'cus_ana', email: 'ana@example.com', name: 'Ana' }
  /** A phone linked to Ana in `tenantId`, at the club's menu. */
  const linked = async (tenantId = 'club-norte'): Promise<string> => {
    const phone = newPhone()
    const token = await t.token('member', ['club-norte', 'club-sur'], { sub: member.customerId, name: member.name, email: member.email })
    await say(t, phone, { text: `LINK-${await linkCode(t, { ...member, tenantId, token })}` })
    return phone
  }
  /** The calls one turn made, as `METHOD /path`. */
  const turn = async (phone: string, input: Input): Promise<string[]> => await proxy.during(async () => { await say(t, phone, input) })
  const lastReply = async (phone: string) => (await outbox(t, phone)).at(-1)!.body
  /** The texts of what the bot answered to one input. */
  const answer = async (phone: string, input: Input): Promise<string> => {
    const seen = (await outbox(t, phone)).at(-1)?.seq ?? 0
    await say(t, phone, input)
    return (await outbox(t, phone, seen)).map((m) => textOf(m.body)).join('\n')
  }
  const productRows = async (phone: string) => choiceIds(await lastReply(phone)).filter((id) => id.startsWith('product:'))

  /** Browses, picks the product, says 1 and opens the checkout: the conversation waits for the confirmation. */
  const toConfirmation = async (phone: string, productId: string): Promise<Record<string, string[]>> => ({
    browse: await turn(phone, { reply: 'menu:browse' }),
    choose: await turn(phone, { reply: `product:${productId}` }),
    quantity: await turn(phone, { text: '1' }),
    checkout: await turn(phone, { reply: 'cart:checkout' }),
  })

  it('two browsing turns within the bound reach the backend once at most, and the second not at all', async () => {
    const first = await linked()
    const second = await linked()
    const calls = [await turn(first, { reply: 'menu:browse' }), await turn(second, { reply: 'menu:browse' })]
    expect(calls[0]!.length).toBeLessThanOrEqual(1)
    expect(calls[1]).toEqual([])
    expect(await productRows(first)).toEqual(await productRows(second))
    expect((await productRows(second)).length).toBeGreaterThan(0)
  })

  it('a club\'s list asks the backend for that club\'s sales channel only, and shows none of another club\'s products', async () => {
    const before = proxy.calls.length
    // A fresh instance of the service, so that both clubs' catalogs are read in this test.
    const fresh = await buildTestApp({ store: 'redis', env: { COMMERCE_TENANTS_FILE: proxy.tenantsFile } })
    try {
      const shown: Record<string, string[]> = {}
      for (const tenantId of ['club-norte', 'club-sur']) {
        const token = await fresh.token('member', [tenantId], { sub: member.customerId, email: member.email })
        const actor = actorFrom(await verifyAccessToken(fresh.config.jwtSecret, token), (await fresh.app.tenants.get(tenantId))!)
        shown[tenantId] = (await fresh.app.storeFront.catalog(actor)).products.map((p) => p.id)
      }
      const lists = proxy.calls.slice(before).filter((c) => c.method === 'GET' && c.path === '/store/products')
      expect(lists.map((c) => c.query.get('sales_channel_id'))).toEqual(['sc_club_norte', 'sc_club_sur'])
      expect(shown['club-norte']!.length).toBeGreaterThan(0)
      expect(shown['club-norte']!.every((id) => id.startsWith('prod_norte_'))).toBe(true)
      expect(shown['club-sur']!.length).toBeGreaterThan(0)
      expect(shown['club-sur']!.every((id) => id.startsWith('prod_sur_'))).toBe(true)
    } finally {
      await fresh.close()
    }
    // And the bot, for a member of both clubs, lists each club's own products.
    const sur = await linked('club-sur')
    await say(t, sur, { reply: 'menu:browse' })
    const rows = await productRows(sur)
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.every((id) => id.startsWith('product:prod_sur_'))).toBe(true)
  })

  it('confirming an order makes each commerce call once: no cart read again', async () => {
    const phone = await linked()
    const before = await toConfirmation(phone, 'prod_norte_aceite_cbd')
    // A new cart is made with its line in one call; choosing and the checkout summary need no call.
    expect(before.choose).toEqual([])
    expect(before.quantity).toEqual(['POST /store/carts'])
    expect(before.checkout).toEqual([])
    let replies = ''
    const confirm = await proxy.during(async () => { replies = await answer(phone, { reply: 'order:confirm' }) })
    expect(replies).toMatch(/Pedido #\S+ realizado/)
    // The calls, each once: the cart (checked to be the member's and this club's), the shipping options, the
    // pickup method, a payment collection, the region's payment providers, a payment session, the completion,
    // then under the club's admin login (cached: POST /auth/user/emailpass only when it has none yet) the order
    // read once and its activity log written once.
    const cart = /^GET \/store\/carts\/(cart_\w+)$/.exec(confirm[0] ?? '')?.[1]
    expect(cart).toBeDefined()
    const order = confirm.find((c) => c.startsWith('GET /admin/orders/'))?.slice('GET /admin/orders/'.length)
    expect(confirm.filter((c) => c !== 'POST /auth/user/emailpass')).toEqual([
      `GET /store/carts/${cart!}`,
      'GET /store/shipping-options',
      `POST /store/carts/${cart!}/shipping-methods`,
      'POST /store/payment-collections',
      'GET /store/payment-providers',
      expect.stringMatching(/^POST \/store\/payment-collections\/pay_col_\w+\/payment-sessions$/),
      `POST /store/carts/${cart!}/complete`,
      `GET /admin/orders/${order!}`,
      `POST /admin/orders/${order!}`,
    ])
    expect(new Set(confirm).size).toBe(confirm.length)
  })

  it('stock is checked again at the confirmation: sold out after browsing, the member is told and no order is made', async () => {
    const phone = await linked()
    await toConfirmation(phone, 'prod_norte_picador')
    // The last units go (here: staff set the stock to what is already reserved) after the member saw them.
    const admin = await t.auth('admin', 'club-norte')
    const item = (await t.app.inject({ url: '/api/inventory?limit=100', headers: admin })).json().items.find((i: { sku: string }) => i.sku === 'NORTE-PICADOR')
    const upstream = (await backend('POST', '/auth/user/emailpass', undefined, { email: 'admin@club-norte.test', password: 'demo-password' })).token as string
    await backend('POST', `/admin/inventory-items/${item.id as string}/location-levels/${item.locationId as string}`, upstream, {
      stocked_quantity: item.reservedQuantity
    })
    const ordersBefore = await ordersOfAna()

    expect(await answer(phone, { reply: 'order:confirm' })).toContain('No pudimos confirmar el pedido: falta stock de algún producto.')
    expect(await ordersOfAna()).toEqual(ordersBefore)
  })

  it('the other shopping turns: a search adds in one call, a cart edit reads the cart once, a repeat order asks each thing once', async () => {
    const phone = await linked()
    await say(t, phone, { reply: 'menu:browse' })
    await say(t, phone, { text: 'menu' })
    // The search looks through the kept catalog; the new cart is made with its line.
    expect(await turn(phone, { text: 'quiero 3 aceite' })).toEqual(['POST /store/carts'])
    await say(t, phone, { text: 'menu' })
    const added = await turn(phone, { text: '2 sustrato' })
    const cart = /^GET \/store\/carts\/(cart_\w+)$/.exec(added[0] ?? '')?.[1]
    expect(added).toEqual([`GET /store/carts/${cart!}`, `POST /store/carts/${cart!}/line-items`])
    await say(t, phone, { reply: 'cart:edit' })
    await say(t, phone, { reply: choiceIds(await lastReply(phone))[0]! })
    // Fewer of a line: the cart read once, the line removed and added again at the new quantity.
    expect(await turn(phone, { text: 'uno' })).toEqual([
      `GET /store/carts/${cart!}`,
      expect.stringMatching(new RegExp(`^DELETE /store/carts/${cart!}/line-items/cali_\\w+$`)),
      `POST /store/carts/${cart!}/line-items`,
    ])
    await say(t, phone, { reply: 'cart:checkout' })
    await say(t, phone, { reply: 'order:confirm' })
    await say(t, phone, { text: 'hola' })
    // The member's customer ids, their orders, the latest order, then its two lines into a new cart.
    const repeat = await turn(phone, { text: 'repetir' })
    expect(repeat.slice(0, 3)).toEqual(['GET /admin/customers', 'GET /admin/orders', expect.stringMatching(/^GET \/admin\/orders\/order_\w+$/)])
    expect(new Set(repeat).size).toBe(repeat.length)
  })

  async function backend (method: string, path: string, token: string | undefined, body: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`${t.app.commerceUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    })
    expect(res.status).toBe(200)
    return await res.json() as Record<string, unknown>
  }

  async function ordersOfAna (): Promise<number> {
    const res = await t.app.inject({
      url: '/api/orders?limit=1', headers: await t.auth('member', 'club-norte', { sub: member.customerId, email: member.email })
    })
    return res.json().count
  }
})
