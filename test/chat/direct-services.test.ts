import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { actorFrom } from '../../src/auth/actor.ts'
import { verifyAccessToken } from '../../src/auth/tokens.ts'
import { chatProduct } from '../../src/chat/bot-services.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { messageBody, newPhone, outbox, postWebhook, rewriteSession, savedSession, say, textOf } from './support.ts'

// The bot calls the club's services in process as the linked member, not the HTTP routes: the rate limit of
// outside clients does not count its calls, and the services themselves keep one member out of another's
// carts, orders and (for members) the crops.

const RATE_LIMIT_MAX = 20
const PHONES = 700

describe('the bot is not one rate-limited client (redis)', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store: 'redis', env: { RATE_LIMIT_MAX: String(RATE_LIMIT_MAX) } }) })
  afterAll(async () => { await t.close() })

  /** A code made after each member's own web login: one client each, as the club's website serves many. */
  async function codeFor (n: number): Promise<string> {
    const sub = `cus_many_${n}`
    const email = `many${n}@example.com`
    const token = await t.token('member', ['club-norte'], { sub, email, name: `Member ${n}` })
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/chat/link',
      remoteAddress: `10.1.${n >> 8}.${n & 255}`,
      payload: { customerId: sub, email, name: `Member ${n}`, tenantId: 'club-norte', token },
    })
    expect(res.statusCode).toBe(201)
    return res.json().code
  }

  it(`${PHONES} phones typing their link codes at once are all linked, while one outside client is limited at ${RATE_LIMIT_MAX}`, async () => {
    const phones = Array.from({ length: PHONES }, () => newPhone())
    const codes = await Promise.all(phones.map(async (_, n) => await codeFor(n)))
    const accepted = await Promise.all(phones.map(async (phone, n) =>
      await postWebhook(t.app, messageBody(phone, { text: `LINK-${codes[n]!}` }), { key: randomUUID() })))
    expect(accepted.every((res) => res.statusCode === 200)).toBe(true)
    await Promise.all(phones.map(async (phone) => { await t.app.chatWorker.idle(phone, 60_000) }))

    const linked = await Promise.all(phones.map(async (phone) => (await t.app.linkedAccounts.list(phone)).length))
    expect(linked.filter((n) => n === 1)).toHaveLength(PHONES)
    const greetings = await Promise.all(
      phones.map(async (phone, n) => textOf((await outbox(t, phone))[0]!.body) === `¡Hola, Member ${n}! Tu cuenta quedó vinculada.`)
    )
    expect(greetings.filter(Boolean)).toHaveLength(PHONES)

    // The link route itself still limits an outside client from one address.
    const statuses: number[] = []
    for (let i = 0; i < RATE_LIMIT_MAX + 5; i++) {
      statuses.push((await t.app.inject({ url: `/api/chat/link/${randomUUID()}`, remoteAddress: '203.0.113.7' })).statusCode)
    }
    expect(statuses.slice(0, RATE_LIMIT_MAX).every((s) => s === 404)).toBe(true)
    expect(statuses.slice(RATE_LIMIT_MAX)).toEqual(Array(5).fill(429))
  }, 120_000)
})

describe('the services keep one member out of another\'s things (redis)', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store: 'redis' }) })
  afterAll(async () => { await t.close() })

  const bruno = { customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', tenantId: 'club-norte' }
  const ana = { customerId: 'cus_ana', email: 'ana@example.com', name: 'Ana', tenantId: 'club-norte' }

  async function linkedPhone (member: typeof bruno): Promise<{ phone: string, token: string }> {
    const phone = newPhone()
    const token = await t.token('member', ['club-norte'], { sub: member.customerId, email: member.email, name: member.name })
    const res = await t.app.inject({ method: 'POST', url: '/api/chat/link', payload: { ...member, token } })
    await say(t, phone, { text: `LINK-${res.json().code as string}` })
    return { phone, token }
  }

  /** Browses, adds one unit and asks for the checkout: the conversation waits for the confirmation. */
  async function toConfirmation (phone: string): Promise<string> {
    await say(t, phone, { reply: 'menu:browse' })
    await say(t, phone, { reply: 'product:prod_norte_aceite_cbd' })
    await say(t, phone, { text: '1' })
    await say(t, phone, { reply: 'cart:checkout' })
    return (await savedSession(t.app, phone)).cartId
  }

  /** What the bot answered to one input. */
  async function answer (phone: string, input: Parameters<typeof say>[2]): Promise<string[]> {
    const seen = (await outbox(t, phone)).at(-1)?.seq ?? 0
    await say(t, phone, input)
    return (await outbox(t, phone, seen)).map((m) => textOf(m.body))
  }

  it('a conversation pointed at another member\'s cart cannot order it, and that cart stays as it was', async () => {
    const owner = await linkedPhone(bruno)
    const brunoCart = await toConfirmation(owner.phone)

    const intruder = await linkedPhone(ana)
    await toConfirmation(intruder.phone)
    await rewriteSession(t.app, intruder.phone, JSON.stringify({ ...await savedSession(t.app, intruder.phone), cartId: brunoCart }))

    expect((await answer(intruder.phone, { reply: 'order:confirm' }))[0]).toMatch(/^No pudimos confirmar el pedido ahora/)
    const cart = await t.app.inject({ url: `/store/carts/${brunoCart}`, headers: { authorization: `Bearer ${owner.token}`, 'tenant-id': 'club-norte' } })
    expect(cart.statusCode).toBe(200)
    expect(cart.json().cart).toMatchObject({ completedAt: null, items: [{ quantity: 1 }] })
  })

  it('the orders report shows the member their own orders only', async () => {
    const owner = await linkedPhone(bruno)
    await toConfirmation(owner.phone)
    const displayId = /Pedido #(\S+) realizado/.exec((await answer(owner.phone, { reply: 'order:confirm' }))[0]!)?.[1]
    expect(displayId).toBeDefined()

    const other = await linkedPhone(ana)
    expect((await answer(other.phone, { reply: 'menu:orders' }))[0]).toBe('Todavía no tenés pedidos.')
    expect((await answer(owner.phone, { reply: 'menu:orders' }))[0]).toContain(`#${displayId}`)
  })

  it('a link whose token no longer verifies (expired, or signed by another key) asks the member to log in again', async () => {
    for (const token of [await t.token('member', ['club-norte'], { sub: bruno.customerId, expiresIn: -60 }), `${(await t.token('member'))}x`]) {
      const { phone } = await linkedPhone(bruno)
      const [account] = await t.app.linkedAccounts.list(phone)
      await t.app.linkedAccounts.put(phone, { ...account!, token })
      const replies = await answer(phone, { reply: 'menu:browse' })
      expect(replies[0]).toMatch(/sesión venció/)
    }
  })

  it('a token verified on an earlier turn is refused once it expires: the bot keeps it verified only until its exp', async () => {
    const { phone } = await linkedPhone(bruno)
    const [account] = await t.app.linkedAccounts.list(phone)
    const token = await t.token('member', ['club-norte'], { sub: bruno.customerId, email: bruno.email, name: bruno.name, expiresIn: 2 })
    await t.app.linkedAccounts.put(phone, { ...account!, token })
    expect((await answer(phone, { reply: 'menu:browse' }))[0]).not.toMatch(/sesión venció/)
    // the token's exp is in whole seconds: past it within three
    await new Promise((resolve) => setTimeout(resolve, 3000))
    await say(t, phone, { text: 'menu' })
    expect((await answer(phone, { reply: 'menu:browse' }))[0]).toMatch(/sesión venció/)
  })

  it('the services refuse an actor what the routes refuse: another\'s order and cart, the crops for a member', async () => {
    const owner = await linkedPhone(bruno)
    const cartId = await toConfirmation(owner.phone)
    await say(t, owner.phone, { reply: 'order:confirm' })
    const [order] = (await t.app.orders.list(await actorOf(bruno), { limit: 1, offset: 0 })).orders

    const intruder = await actorOf(ana)
    await expect(t.app.orders.get(intruder, order!.id)).rejects.toMatchObject({ code: 'NOT_FOUND' })
    await expect(t.app.storeFront.getCart(await t.app.storeFront.shopper(intruder, undefined), cartId)).rejects.toMatchObject({ code: 'NOT_FOUND' })
    await expect(t.app.crops.list(intruder, {}, { limit: 10, offset: 0 })).rejects.toMatchObject({ code: 'INSUFFICIENT_PERMISSIONS' })
    await expect(t.app.orders.cancel(intruder, order!.id)).rejects.toMatchObject({ code: 'INSUFFICIENT_PERMISSIONS' })
  })

  async function actorOf (member: typeof bruno) {
    const token = await t.token('member', ['club-norte'], { sub: member.customerId, email: member.email, name: member.name })
    return actorFrom(await verifyAccessToken(t.config.jwtSecret, token), (await t.app.tenants.get('club-norte'))!)
  }
})

describe('products as the bot offers them', () => {
  const product = (inventoryQuantity: number | null) => ({
    id: 'prod_1',
    title: 'Aceite',
    description: '',
    thumbnail: null,
    variants: [{
      id: 'var_1',
      title: '',
      sku: null,
      prices: [{ amount: 900, currencyCode: 'usd' }, { amount: 32000, currencyCode: 'ars' }],
      inventoryQuantity,
      grams: null,
      thcPercent: null,
      cbdPercent: null
    }],
  })

  it('a variant whose inventory is not managed (no quantity upstream) has no stock figure (orderable, not "stock 0"); a negative stock is none', () => {
    expect(chatProduct(product(null), 'ARS').variants).toEqual([{ id: 'var_1', title: 'Aceite', price: 32000, stock: null }])
    expect(chatProduct(product(-3), 'ARS').variants[0]!.stock).toBe(0)
    expect(chatProduct(product(7), 'EUR').variants[0]).toMatchObject({ price: 900, stock: 7 })
  })
})
