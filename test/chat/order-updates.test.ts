import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { addressOf, type SendBody } from '../../src/chat/outbound/messages.ts'
import { notifyMember } from '../../src/orders/notify.ts'
import { openSse } from '../notifications/sse-client.ts'
import { buildTestApp, TEST_SECRETS, type TestApp } from '../helper.ts'
import { choiceIds, linkCode, newPhone, postWebhook, say, startFakeProvider, textOf, type FakeProvider } from './support.ts'

// Order updates in the chat, end to end: an order placed through the bot, then the admin's steps through the
// orders API; what reaches the member's phone is what the loopback provider received.

const HOUR = 60 * 60_000
type Headers = Record<string, string>

describe('order updates in the chat (redis, provider stand-in)', () => {
  let provider: FakeProvider
  let t: TestApp
  let now = Date.now()
  let admin: Headers
  beforeAll(async () => {
    provider = await startFakeProvider()
    t = await buildTestApp({ store: 'redis', env: { CHAT_API_BASE_URL: provider.url }, chat: { clock: () => now } })
    admin = await t.auth('admin', 'club-norte', { sub: 'staff-admin-1' })
    await setClub({ locale: 'es', pickup: { address: 'Av. Siempreviva 742', hours: 'lun a vie 10 a 18' } })
  })
  afterAll(async () => {
    await t.close()
    await provider.close()
  })

  const setClub = async (
    change: { locale?: 'es' | 'en', pickup?: { address: string, hours: string }, chatTemplates?: Record<string, { name: string, language?: string }> }
  ) => {
    await t.app.tenants.update('club-norte', (c) => ({ ...c, ...change }))
  }

  /** A phone linked to Bruno at club-norte that has placed one order through the bot; the order's id and number. */
  // each test's phones are the only ones linked to Bruno while it runs: an update goes to every one of them
  const linked: string[] = []
  afterEach(async () => {
    for (const phone of linked.splice(0)) await t.app.linkedAccounts.remove(phone, 'club-norte')
  })

  const linkBruno = async (phone: string) => {
    linked.push(phone)
    const token = await t.token('member', ['club-norte'], { sub: 'cus_bruno', name: 'Bruno', email: 'bruno@example.com' })
    await say(t, phone, { text: 'hola' })
    await say(t, phone, {
      text: `LINK-${await linkCode(t, { customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', tenantId: 'club-norte', token })}`
    })
  }

  const orderInChat = async (phone: string) => {
    await linkBruno(phone)
    await say(t, phone, { reply: 'menu:browse' })
    await say(t, phone, { reply: 'product:prod_norte_aceite_cbd' })
    await say(t, phone, { text: '1' })
    await say(t, phone, { reply: 'cart:checkout' })
    const before = provider.to(phone).length
    await say(t, phone, { reply: 'order:confirm' })
    const answer = provider.to(phone).slice(before).map((b) => textOf(b)).join('\n')
    const displayId = /#(\d+)/.exec(answer)?.[1]
    const listed = (await t.app.inject({ url: '/api/orders?limit=100', headers: admin })).json().orders as Array<{ id: string, displayId: string }>
    const order = listed.find((o) => String(o.displayId) === displayId)
    if (!order || !displayId) throw new Error(`no order found after the bot's answer: ${answer}`)
    return { id: order.id, displayId }
  }

  const step = async (orderId: string, action: 'capture' | 'fulfill' | 'cancel' | 'ship', payload: object = {}) => {
    const res = await t.app.inject({ method: 'POST', url: `/api/orders/${orderId}/${action}`, headers: admin, payload })
    expect(res.statusCode, res.body).toBe(200)
    return res.json()
  }

  /** What the phone received after the given count, once its outbox is drained. */
  const since = async (phone: string, before: number): Promise<SendBody[]> => {
    await t.app.chatWorker.idle(phone)
    return provider.to(phone).slice(before)
  }

  const memberNotices = async (sub = 'cus_bruno') =>
    (await t.app.inject({
      url: '/api/notifications?domain=orders&limit=100', headers: await t.auth('member', 'club-norte', { sub })
    })).json().notifications as Array<{ event: string, resourceId: string, body: string }>

  it('pickup order fulfilled: "listo para retirar" once, in Spanish, with where and when; the admin got order.placed', async () => {
    const phone = newPhone()
    const order = await orderInChat(phone)
    const placed = (await t.app.inject({ url: '/api/notifications?domain=orders&limit=100', headers: admin })).json().notifications as Array<{
      event: string, resourceId: string
    }>
    expect(placed.filter((n) => n.resourceId === order.id).map((n) => n.event)).toEqual(['order.placed'])

    await step(order.id, 'capture')
    const before = provider.to(phone).length
    const { fulfillmentId } = await step(order.id, 'fulfill')
    await step(order.id, 'ship', { fulfillmentId })
    const got = await since(phone, before)
    expect(got.map((b) => textOf(b))).toEqual([`¡Tu pedido #${order.displayId} está listo para retirar! Retiralo en Av. Siempreviva 742 (lun a vie 10 a 18).`])
    expect(got[0]?.type).toBe('text')
    const notices = (await memberNotices()).filter((n) => n.resourceId === order.id && n.event === 'order.shipped')
    expect(notices).toHaveLength(1)
    expect(notices[0]?.body).toMatch(/listo para retirar.*Av\. Siempreviva 742/)
  })

  it('the same club in English: "ready for pickup"', async () => {
    await setClub({ locale: 'en' })
    try {
      const phone = newPhone()
      const order = await orderInChat(phone)
      await step(order.id, 'capture')
      const before = provider.to(phone).length
      await step(order.id, 'fulfill')
      expect((await since(phone, before)).map((b) =>
        textOf(b))).toEqual([`Your order #${order.displayId} is ready for pickup! Pick it up at Av. Siempreviva 742 (lun a vie 10 a 18).`])
    } finally {
      await setClub({ locale: 'es' })
    }
  })

  it('outside the 24-hour window: the template, with the club\'s name for it, instead of a text', async () => {
    const patched = await t.app.inject({
      method: 'PATCH', url: '/api/club', headers: admin, payload: { chatTemplates: { order_ready_pickup: { name: 'norte_listo', language: 'es_AR' } } }
    })
    expect(patched.json().club.chatTemplates, patched.body).toEqual({ order_ready_pickup: { name: 'norte_listo', language: 'es_AR' } })
    const refused = await t.app.inject({ method: 'PATCH', url: '/api/club', headers: admin, payload: { chatTemplates: { order_lost: { name: 'x' } } } })
    expect(refused.statusCode).toBe(400)
    expect(refused.json().error.code).toBe('VALIDATION_ERROR')
    const phone = newPhone()
    const order = await orderInChat(phone)
    await step(order.id, 'capture')
    now += 25 * HOUR
    try {
      const before = provider.to(phone).length
      await step(order.id, 'fulfill')
      const got = await since(phone, before)
      expect(got).toEqual([{
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: phone,
        type: 'template',
        template: {
          name: 'norte_listo',
          language: { code: 'es_AR' },
          components: [{
            type: 'body', parameters: [{ type: 'text', text: order.displayId }, { type: 'text', text: 'Retiralo en Av. Siempreviva 742 (lun a vie 10 a 18).' }]
          }],
        },
      }])
    } finally {
      now -= 25 * HOUR
      await setClub({ chatTemplates: {} })
    }
  })

  it('a provider failing twice: the update is retried and delivered once, under one idempotency key', async () => {
    const phone = newPhone()
    const order = await orderInChat(phone)
    await step(order.id, 'capture')
    const before = provider.to(phone).length
    const attempts = provider.attempts
    provider.plan.push({ status: 500 }, { status: 503 })
    await step(order.id, 'fulfill')
    const got = await since(phone, before)
    expect(got.map((b) => textOf(b))).toEqual([`¡Tu pedido #${order.displayId} está listo para retirar! Retiralo en Av. Siempreviva 742 (lun a vie 10 a 18).`])
    expect(provider.attempts - attempts).toBe(3)
    expect(provider.calls.at(-1)?.idempotencyKey).toBe(`system:order_ready_pickup:order.shipped:${order.id}`)
  })

  it('a template the provider rejects is a dead letter with the provider\'s reason, shown to the club\'s admin', async () => {
    const phone = newPhone()
    const order = await orderInChat(phone)
    now += 25 * HOUR
    try {
      provider.plan.push({ status: 400, body: '{"error":{"message":"Template name does not exist in the translation"}}' })
      await step(order.id, 'cancel')
      await t.app.chatWorker.idle(phone)
    } finally {
      now -= 25 * HOUR
    }
    const letters = (await t.app.inject({ url: '/api/chat/dead-letters', headers: admin })).json().deadLetters as Array<{
      phone: string, reason: string, content: SendBody
    }>
    const mine = letters.filter((l) => l.phone === phone)
    expect(mine).toHaveLength(1)
    expect(mine[0]?.reason).toMatch(/400.*Template name does not exist/)
    expect(mine[0]?.content).toMatchObject({ type: 'template', template: { name: 'order_canceled', language: { code: 'es' } } })
  })

  it('the provider says the window is closed (131047) although the service thought it open: the template goes instead', async () => {
    const phone = newPhone()
    const order = await orderInChat(phone)
    await step(order.id, 'capture')
    const before = provider.to(phone).length
    provider.plan.push({ status: 400, body: JSON.stringify({ error: { code: 131047, message: 'Re-engagement message' } }) })
    await step(order.id, 'fulfill')
    const got = await since(phone, before)
    expect(got.map((b) => b.type)).toEqual(['template'])
    expect(got[0]).toMatchObject({
      template: { name: 'order_ready_pickup', components: [{ parameters: [{ text: order.displayId }, { text: expect.stringContaining('Siempreviva') }] }] }
    })
    const letters = (await t.app.inject({ url: '/api/chat/dead-letters', headers: admin })).json().deadLetters as Array<{ phone: string }>
    expect(letters.filter((l) => l.phone === phone)).toEqual([])
  })

  const failedReady = async (closed: boolean) => {
    const phone = newPhone()
    const order = await orderInChat(phone)
    await step(order.id, 'capture')
    const before = provider.to(phone).length
    await step(order.id, 'fulfill')
    expect((await since(phone, before)).map((b) => b.type)).toEqual(['text'])
    const messageId = provider.calls.filter((c) => addressOf(c.body) === phone).at(-1)!.messageId
    const sent = provider.to(phone).length
    if (closed) now += 25 * HOUR
    try {
      const event = {
        message: { id: messageId, status: 'failed', timestamp: String(Math.floor(now / 1000)), errors: [{ code: 131026, title: 'Message undeliverable' }] },
        conversation: { phone_number: phone }
      }
      expect((await postWebhook(t.app, event, { event: 'chat.message.failed' })).statusCode).toBe(200)
      const messages = async () =>
        (await t.app.inject({ url: `/api/chat/conversations/${phone}/messages?limit=50`, headers: admin })).json().messages as Array<{
          delivery?: { status: string, failure?: { reason: string } }
        }>
      for (let i = 0; i < 100 && !(await messages()).some((m) => m.delivery?.status === 'failed'); i++) await new Promise((resolve) => setTimeout(resolve, 20))
      for (let i = 0; i < 25 && provider.to(phone).length === sent; i++) await new Promise((resolve) => setTimeout(resolve, 20))
      await t.app.chatWorker.idle(phone)
      return { phone, after: provider.to(phone).slice(sent), shown: (await messages()).find((m) => m.delivery?.status === 'failed')?.delivery }
    } finally {
      if (closed) now -= 25 * HOUR
    }
  }

  it('an update reported failed inside the window shows in the staff inbox as a failed delivery with the provider\'s reason', async () => {
    const { phone, after, shown } = await failedReady(false)
    expect(after).toEqual([])
    expect(shown?.failure?.reason).toBe('Message undeliverable')
    // the club's list shows the failure as the conversation's last message, and staff are told
    const listed = async () =>
      ((await t.app.inject({ url: '/api/chat/conversations?limit=100', headers: admin })).json().conversations as Array<{
        phone: string, lastMessage: { type: string } | null
      }>)
        .find((c) => c.phone === phone)
    await expect.poll(async () => (await listed())?.lastMessage?.type).toBe('delivery-failed')
    expect((await listed())?.lastMessage).toMatchObject({
      type: 'delivery-failed',
      author: 'system',
      text: 'Not delivered to the member (order_ready_pickup): Message undeliverable (131026)',
    })
    const notices = (await t.app.inject({ url: '/api/notifications?limit=100', headers: admin })).json().notifications as Array<{
      event: string, resourceId: string, body: string
    }>
    expect(notices.filter((n) => n.event === 'chat.delivery.failed' && n.resourceId === phone)).toEqual([
      expect.objectContaining({ body: `An update to the chat member ${phone} was not delivered: Message undeliverable (131026).` }),
    ])
  })

  it('an update reported failed once the window has closed is sent again as the club\'s template', async () => {
    const { after } = await failedReady(true)
    expect(after.map((b) => b.type)).toEqual(['template'])
    expect(after[0]).toMatchObject({ template: { name: 'order_ready_pickup' } })
  })

  it('canceled inside the window: a text saying so', async () => {
    const phone = newPhone()
    const order = await orderInChat(phone)
    const before = provider.to(phone).length
    await step(order.id, 'cancel')
    expect((await since(phone, before)).map((b) => textOf(b))).toEqual([`Tu pedido #${order.displayId} fue cancelado. Si tenés dudas, escribí *menu*.`])
  })

  it('the member\'s own language wins over the club\'s: chosen from the menu, the update comes in English', async () => {
    const phone = newPhone()
    const order = await orderInChat(phone)
    await say(t, phone, { reply: 'menu:language' })
    const before = provider.to(phone).length
    await step(order.id, 'cancel')
    expect((await since(phone, before)).map((b) => textOf(b))).toEqual([`Your order #${order.displayId} was canceled. Questions? Type *menu*.`])
  })

  it('a delivery order through the one-call route: "en camino", then completed; the same event told twice is sent once', async () => {
    const phone = newPhone()
    await orderInChat(phone)
    const products = (await t.app.inject({ url: '/store/products', headers: admin })).json().products
    const before = provider.to(phone).length
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/orders/create-and-process',
      headers: admin,
      payload: {
        customer: { id: 'cus_bruno', email: 'bruno@example.com', firstName: 'Bruno', lastName: 'Díaz' },
        items: [{ variantId: products[2].variants[0].id, quantity: 1 }],
        shippingMethod: 'delivery',
        paymentMethod: 'cash',
      },
    })
    expect(res.statusCode, res.body).toBe(200)
    const order = res.json().order
    // the ship step told again (a retried request): the chat message is not queued again
    await notifyMember(
      t.app.notifier, t.app.log, (await t.app.tenants.get('club-norte'))!, { ...order, customerId: 'cus_bruno', shippingMethod: 'delivery' }, 'order.shipped'
    )
    expect((await since(phone, before)).map((b) => textOf(b))).toEqual([
      `Tu pedido #${order.displayId} está en camino a tu dirección de entrega.`,
      `Tu pedido #${order.displayId} está completo. ¡Gracias!`,
    ])
    expect((await memberNotices()).filter((n) => n.resourceId === order.id && n.event === 'order.shipped')[0]?.body).toMatch(/en camino/)
  })

  it('updates turned off from the menu: nothing in the chat, the in-app notice still; on again: the next update comes', async () => {
    const phone = newPhone()
    const order = await orderInChat(phone)
    let before = provider.to(phone).length
    await say(t, phone, { reply: 'menu:updates-off' })
    const answer = provider.to(phone).slice(before)
    expect(textOf(answer[0]!)).toMatch(/no te mando más avisos/)
    expect(choiceIds(answer[1]!)).toContain('menu:updates-on')
    await step(order.id, 'capture')
    before = provider.to(phone).length
    await step(order.id, 'fulfill')
    expect(await since(phone, before)).toEqual([])
    expect((await memberNotices()).some((n) => n.resourceId === order.id && n.event === 'order.shipped')).toBe(true)

    await say(t, phone, { reply: 'menu:updates-on' })
    const second = await orderInChat(phone)
    before = provider.to(phone).length
    await step(second.id, 'cancel')
    expect((await since(phone, before)).map((b) => textOf(b))).toEqual([`Tu pedido #${second.displayId} fue cancelado. Si tenés dudas, escribí *menu*.`])
  })

  it('a member with no linked phone: in-app only, the step answers 200', async () => {
    const products = (await t.app.inject({ url: '/store/products', headers: admin })).json().products
    const calls = provider.calls.length
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/orders/create-and-process',
      headers: admin,
      payload: {
        customer: { id: 'cus_ana', email: 'ana@example.com', firstName: 'Ana', lastName: 'López' },
        items: [{ variantId: products[2].variants[0].id, quantity: 1 }],
        shippingMethod: 'pickup',
        paymentMethod: 'cash'
      },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(provider.calls.length).toBe(calls)
    expect((await memberNotices('cus_ana')).filter((n) =>
      n.resourceId === res.json().order.id).map((n) => n.event).sort()).toEqual(['order.completed', 'order.placed', 'order.shipped'])
    // the club's admins are told of the new order, whoever placed it
    const staff = (await t.app.inject({
      url: '/api/notifications?domain=orders&limit=100', headers: await t.auth('admin', 'club-norte', { sub: 'staff-admin-2' })
    })).json().notifications as Array<{ event: string, resourceId: string }>
    expect(staff.filter((n) => n.resourceId === res.json().order.id).map((n) => n.event)).toEqual(['order.placed'])
  })

  it('reminders reach the chat by the same rules: tomorrow\'s appointment, once however often the job runs', async () => {
    const phone = newPhone()
    await linkBruno(phone)
    const before = provider.to(phone).length
    for (let i = 0; i < 2; i++) {
      const res = await t.app.inject({
        method: 'POST', url: '/api/notifications/generate-reminders', headers: { authorization: `Bearer ${TEST_SECRETS.CRON_API_SECRET}` }
      })
      expect(res.statusCode).toBe(200)
    }
    const got = (await since(phone, before)).map((b) => textOf(b))
    expect(got).toHaveLength(1)
    expect(got[0]).toMatch(/^Recordatorio: .+/)
  })

  it('an admin watching the notification stream sees order.placed live when a member orders in the chat', async () => {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' })
    const stream = await openSse(`${base}/api/notifications/stream`, await t.auth('admin', 'club-norte', { sub: 'staff-admin-live' }))
    try {
      const order = await orderInChat(newPhone())
      const live = await stream.waitFor((e) => e.event === 'notification' && (e.data as { resourceId?: string }).resourceId === order.id)
      expect(live.data).toMatchObject({ event: 'order.placed', recipientRole: 'admin', title: 'Nuevo pedido', body: `Entró el pedido #${order.displayId}.` })
    } finally {
      stream.close()
    }
  })
})
