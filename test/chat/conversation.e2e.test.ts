import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MACHINE_VERSION } from '../../machines/conversation.types.ts'
import { startFakeUpstream, type FakeUpstream } from '../orders/fake-upstream.ts'
import { buildTestApp, signedPost, type TestApp } from '../helper.ts'
import { choiceIds, linkCode, newPhone, savedSession, say as sayTo, sessionKey, startFakeProvider, textOf, type FakeProvider, type Input } from './support.ts'

// End to end: signed webhook in, the real runtime and routes in process, replies out to a loopback stand-in
// for the provider's send API.

const MINUTE = 60_000

describe('chat bot end to end (redis, provider stand-in)', () => {
  let provider: FakeProvider
  let t: TestApp
  let now = Date.now()
  beforeAll(async () => {
    provider = await startFakeProvider()
    t = await buildTestApp({ store: 'redis', env: { CHAT_API_BASE_URL: provider.url }, chat: { clock: () => now } })
  })
  afterAll(async () => {
    await t.close()
    await provider.close()
  })

  /** Sends one input; the replies it produced. */
  const say = async (phone: string, input: Input) => {
    const before = provider.to(phone).length
    await sayTo(t, phone, input)
    return provider.to(phone).slice(before)
  }
  const member = async (sub: string, name: string, email: string, tenants: string[]) => {
    const token = await t.token('member', tenants, { sub, name, email })
    return async (tenantId: string) => await linkCode(t, { customerId: sub, email, name, tenantId, token })
  }
  const linked = async (phone: string) => {
    const codeFor = await member('cus_bruno', 'Bruno', 'bruno@example.com', ['club-norte'])
    return await say(phone, { text: `LINK-${await codeFor('club-norte')}` })
  }

  it('links by code, browses, adds to the cart and places an order that the orders API then lists', async () => {
    const phone = newPhone()
    const welcome = await say(phone, { text: 'hola' })
    expect(choiceIds(welcome[0]!)).toEqual(['link:login', 'link:code'])

    const greeting = await linked(phone)
    expect(textOf(greeting[0]!)).toBe('¡Hola, Bruno! Tu cuenta quedó vinculada.')
    expect(choiceIds(greeting[1]!)).toEqual([
      'menu:browse', 'menu:cart', 'menu:repeat', 'menu:orders', 'menu:notifications', 'menu:updates-off', 'menu:person', 'menu:language', 'menu:unlink'
    ])
    expect(provider.calls.at(-1)).toMatchObject({ url: '/100000000000001/messages', authorization: 'Bearer dev-chat-api-key' })

    const products = await say(phone, { text: '1' })
    const rows = choiceIds(products[0]!)
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.length).toBeLessThanOrEqual(10)
    const ask = await say(phone, { reply: 'product:prod_norte_aceite_cbd' })
    expect(textOf(ask[0]!)).toMatch(/¿Cuántas unidades/)
    expect(textOf(ask[0]!)).toMatch(/\$\s?32\.000,00/)

    const bad = await say(phone, { text: 'muchas' })
    expect(textOf(bad[0]!)).toMatch(/del 1 al/)
    const cart = await say(phone, { text: '2' })
    expect(textOf(cart[0]!)).toMatch(/Agregado: 2 ×/)
    expect(choiceIds(cart[1]!)).toEqual(['cart:checkout', 'cart:edit', 'cart:browse'])
    expect(textOf(cart[1]!)).toMatch(/Total: \$\s?64\.000,00/)

    const summary = await say(phone, { reply: 'cart:checkout' })
    expect(choiceIds(summary[0]!)).toEqual(['order:confirm', 'order:cancel'])
    const placed = await say(phone, { reply: 'order:confirm' })
    const displayId = /Pedido #(\S+) realizado/.exec(textOf(placed[0]!))?.[1]
    expect(displayId).toBeDefined()

    const orders = await t.app.inject({
      url: '/api/orders', headers: { authorization: `Bearer ${await t.token('member', ['club-norte'], { sub: 'cus_bruno' })}`, 'tenant-id': 'club-norte' }
    })
    expect(orders.statusCode).toBe(200)
    expect(orders.json().orders.map((o: { displayId: unknown }) => String(o.displayId))).toContain(displayId)

    const report = await say(phone, { reply: 'menu:orders' })
    expect(textOf(report[0]!)).toContain(`#${displayId}`)
  })

  it('a second club brings the club choice, and the menu of the club chosen', async () => {
    const phone = newPhone()
    const codeFor = await member('cus_ana', 'Ana', 'ana@example.com', ['club-norte', 'club-sur'])
    await say(phone, { text: `LINK-${await codeFor('club-norte')}` })
    const choice = await say(phone, { text: `LINK-${await codeFor('club-sur')}` })
    expect(choiceIds(choice[1]!)).toEqual(['tenant:club-norte', 'tenant:club-sur'])
    // Club Sur runs de-kcang in the demo: the grams left come first, then the club's menu
    const [left, menu] = await say(phone, { reply: 'tenant:club-sur' })
    expect(textOf(left!)).toBe('Te quedan 25 g hoy.')
    expect(textOf(menu!)).toMatch(/^Club Sur/)
    expect(choiceIds(menu!)).toContain('menu:switch-club')
  })

  it('goes back to the menu after 30 minutes of silence, cart kept', async () => {
    const phone = newPhone()
    await linked(phone)
    await say(phone, { reply: 'menu:browse' })
    await say(phone, { reply: 'product:prod_norte_aceite_cbd' })
    await say(phone, { text: '1' })
    now += 31 * MINUTE
    const back = await say(phone, { reply: 'cart:checkout' })
    expect(textOf(back[0]!)).toMatch(/volvimos al menú/)
    expect(choiceIds(back[1]!)).toContain('menu:browse')
    const cart = await say(phone, { reply: 'menu:cart' })
    expect(textOf(cart[0]!)).toMatch(/1 × Aceite/)
  })

  it('an expired link asks the member to log in again', async () => {
    const phone = newPhone()
    await linked(phone)
    const [account] = await t.app.linkedAccounts.list(phone)
    await t.app.linkedAccounts.put(phone, { ...account!, expiresAt: now - 1 })
    const replies = await say(phone, { reply: 'menu:browse' })
    expect(textOf(replies[0]!)).toMatch(/sesión venció/)
    expect(choiceIds(replies[0]!)).toEqual(['link:login'])
  })

  it('a wrong code is refused with the reason, three times at most; text not shaped like a code uses no attempt', async () => {
    const phone = newPhone()
    await say(phone, { reply: 'link:code' })
    const first = await say(phone, { text: '123e4567-e89b-12d3-a456-426614174000' })
    expect(textOf(first[0]!)).toMatch(/no existe.*2 intento/)
    for (const text of ['hola', 'otra cosa', '🙂']) {
      const notACode = await say(phone, { text })
      expect(textOf(notACode[0]!)).toMatch(/no parece un código/)
      expect(textOf(notACode[1]!)).toMatch(/Enviá el código/)
    }
    await say(phone, { text: '123e4567-e89b-12d3-a456-426614174001' })
    const third = await say(phone, { text: '123e4567-e89b-12d3-a456-426614174002' })
    expect(textOf(third[0]!)).toMatch(/Empecemos de nuevo/)
    expect(choiceIds(third[1]!)).toEqual(['link:login', 'link:code'])
  })

  it('keeps sessions under the phone with a TTL and a machine version', async () => {
    const phone = newPhone()
    await say(phone, { text: 'hola' })
    const key = sessionKey(t.app, phone)
    expect(await t.redis!.pttl(key)).toBeGreaterThan(29 * 24 * 60 * MINUTE)
    expect(await savedSession(t.app, phone)).toMatchObject({ machineVersion: MACHINE_VERSION, state: 'UNLINKED', phone })
  })
})

describe('chat bot and the login form (commerce stand-in for the login)', () => {
  let provider: FakeProvider
  let upstream: FakeUpstream
  let t: TestApp
  beforeAll(async () => {
    provider = await startFakeProvider()
    upstream = await startFakeUpstream()
    t = await buildTestApp({ store: 'memory', env: { CHAT_API_BASE_URL: provider.url, COMMERCE_URL: upstream.url } })
  })
  afterAll(async () => {
    await t.close()
    await provider.close()
    await upstream.close()
  })

  it('sends the form with the club list, and a successful login moves the conversation to the menu', async () => {
    const phone = newPhone()
    await sayTo(t, phone, { reply: 'link:login' })
    const [form] = provider.to(phone)
    expect(form).toMatchObject({ type: 'interactive', interactive: { type: 'flow' } })
    const params = form!.type === 'interactive' && form!.interactive.type === 'flow' ? form!.interactive.action.parameters : undefined
    expect(params).toMatchObject({ flow_token: phone, flow_id: t.config.chat.flowId, flow_action_payload: { screen: 'CLUB_SELECT' } })
    expect(params?.flow_action_payload.data.clubs).toEqual([{ id: 'club-norte', title: 'Club Norte' }, { id: 'club-sur', title: 'Club Sur' }])
    expect(await t.app.loginFormInvites.wasSent(phone)).toBe(true)

    const res = await t.app.inject(signedPost('/api/chat/flow-endpoint', {
      source: 'chat',
      data_exchange: {
        version: '3.0', screen: 'LOGIN', flow_token: phone, data: { club_id: 'club-norte', email: 'bruno@example.com', password: 'demo-password' }
      },
      signature_valid: true,
    }))
    expect(res.json().screen).toBe('SUCCESS')
    await t.app.chatWorker.idle(phone)
    const [greeting, menu] = provider.to(phone).slice(1)
    expect(textOf(greeting!)).toMatch(/^¡Hola, Bruno/)
    expect(choiceIds(menu!)).toContain('menu:browse')
  })
})
