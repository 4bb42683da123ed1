import { randomBytes, randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signWebhookBody } from '../../src/chat/signature.ts'
import { buildTestApp, TEST_SECRETS, type TestApp } from '../helper.ts'
import { choiceIds, linkCode, postWebhook, startFakeProvider, textOf, type FakeProvider, type Input } from './support.ts'

// A member without a phone number (the messaging app's usernames): their messages name only the business-scoped
// user id. Through the signed webhook and a loopback provider, such a member is a conversation like any other:
// the bot answers them (the send names them in `recipient`, never `to`), they link by code or by the login form,
// staff see the history, take it over and write, and the delivery receipts of those replies reach staff.

const bsuid = (): string => `AR.${randomBytes(12).toString('hex')}`

/** A message as the provider sends one from a member without a phone: no `from`, no `conversation.phone_number`. */
function phonelessBody (userId: string, input: Input): Record<string, unknown> {
  const base = { id: `wamid.${randomUUID()}`, from_user_id: userId }
  const message = 'text' in input
    ? { ...base, type: 'text', text: { body: input.text } }
    : 'reply' in input
      ? { ...base, type: 'interactive', interactive: { type: 'button_reply', button_reply: { id: input.reply, title: input.reply } } }
      : { ...base, type: 'image', image: { id: 'm1' } }
  return { message, conversation: { id: `conv-${userId}`, business_scoped_user_id: userId, username: '@bo' }, phone_number_id: '100000000000001' }
}

describe('a member without a phone number (redis, provider stand-in)', () => {
  let provider: FakeProvider
  let t: TestApp
  beforeAll(async () => {
    provider = await startFakeProvider()
    t = await buildTestApp({ store: 'redis', env: { CHAT_API_BASE_URL: provider.url, CHAT_HANDOFF_TIMEOUT_MS: '600000' } })
  })
  afterAll(async () => {
    await t.close()
    await provider.close()
  })

  const say = async (userId: string, input: Input) => {
    const before = provider.to(userId).length
    const res = await postWebhook(t.app, phonelessBody(userId, input), { key: randomUUID() })
    expect(res.statusCode).toBe(200)
    await t.app.chatWorker.idle(userId)
    return provider.to(userId).slice(before)
  }
  const staff = async (method: 'GET' | 'POST', url: string, body?: object) =>
    await t.app.inject({ method, url, headers: await t.auth('admin', 'club-norte', { sub: 'user_admin_norte' }), ...(body ? { payload: body } : {}) })
  const callsTo = (userId: string) => provider.calls.filter((c) => JSON.stringify(c.body).includes(userId))

  it('is answered at the business-scoped user id, in `recipient` and without `to`', async () => {
    const userId = bsuid()
    const welcome = await say(userId, { text: 'hola' })
    expect(choiceIds(welcome.at(-1)!)).toEqual(['link:login', 'link:code'])
    const calls = callsTo(userId)
    expect(calls.length).toBe(welcome.length)
    for (const call of calls) {
      expect(call.body).toMatchObject({ messaging_product: 'whatsapp', recipient_type: 'individual', recipient: userId })
      expect(call.body).not.toHaveProperty('to')
    }
  })

  it('links through the login form, its flow token being the business-scoped user id', async () => {
    const userId = bsuid()
    await say(userId, { text: 'hola' })
    const [form] = await say(userId, { reply: 'link:login' })
    expect(form).toMatchObject({ recipient: userId, interactive: { type: 'flow', action: { parameters: { flow_token: userId } } } })

    const raw = JSON.stringify({
      source: 'chat',
      data_exchange: {
        version: '3.0', screen: 'LOGIN', flow_token: userId, data: { club_id: 'club-norte', email: 'ana@example.com', password: 'demo-password' }
      },
      signature_valid: true,
    })
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/chat/flow-endpoint',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(TEST_SECRETS.CHAT_WEBHOOK_SECRET, raw) },
      payload: raw,
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ screen: 'SUCCESS', data: { member_name: 'Ana Pereyra' } })
    expect(await t.app.linkedAccounts.list(userId)).toEqual([expect.objectContaining({ tenantId: 'club-norte', email: 'ana@example.com' })])
    await expect.poll(() => provider.to(userId).map(textOf)).toContain('¡Hola, Ana Pereyra! Tu cuenta quedó vinculada.')
    expect(callsTo(userId).every((c) => !('to' in c.body))).toBe(true)
  })

  it('links by code, and staff see, take over, write to and hand back the conversation; receipts reach staff', async () => {
    const userId = bsuid()
    const token = await t.token('member', ['club-norte'], { sub: 'cus_bruno', name: 'Bruno', email: 'bruno@example.com' })
    const linked = await say(userId, {
      text: `LINK-${await linkCode(t, { customerId: 'cus_bruno', email: 'bruno@example.com', name: 'Bruno', tenantId: 'club-norte', token })}`
    })
    expect(textOf(linked[0]!)).toBe('¡Hola, Bruno! Tu cuenta quedó vinculada.')

    const asked = await say(userId, { text: 'quiero hablar con una persona' })
    expect(textOf(asked[0]!)).toMatch(/^Listo, le avisamos a Club Norte/)
    const list = await staff('GET', '/api/chat/conversations?needsPerson=true')
    expect(list.json().conversations).toContainEqual(
      expect.objectContaining({ phone: userId, needsPerson: true, handoff: expect.objectContaining({ status: 'requested' }) })
    )

    expect((await staff('POST', `/api/chat/conversations/${userId}/takeover`)).statusCode).toBe(200)
    expect((await staff('POST', `/api/chat/conversations/${userId}/messages`, { text: 'Hola Bruno, soy Ana del club.' })).statusCode).toBe(201)
    await t.app.chatWorker.idle(userId)
    const staffCall = provider.calls.at(-1)!
    expect(staffCall.body).toMatchObject({ recipient: userId, type: 'text', text: { body: 'Hola Bruno, soy Ana del club.' } })
    expect(await say(userId, { text: 'gracias' })).toEqual([])
    expect((await staff('POST', `/api/chat/conversations/${userId}/handback`)).statusCode).toBe(200)
    await t.app.chatWorker.idle(userId)
    expect(textOf(provider.to(userId).at(-1)!)).toMatch(/^Volvés a hablar con el bot/)
    expect(choiceIds((await say(userId, { text: 'menu' })).at(-1)!)).toContain('menu:browse')

    // the staff reply's receipt, addressed to the business-scoped user id as the provider sends it
    const receipt = {
      message: { id: staffCall.messageId, status: 'delivered', timestamp: String(Math.floor(Date.now() / 1000)) },
      conversation: { business_scoped_user_id: userId }
    }
    expect((await postWebhook(t.app, receipt, { event: 'chat.message.delivered' })).statusCode).toBe(200)
    await expect.poll(async () => {
      const history = await staff('GET', `/api/chat/conversations/${userId}/messages?limit=100`)
      return (history.json().messages as Array<{ text: string, delivery?: { status: string } }>).find((m) =>
        m.text === 'Hola Bruno, soy Ana del club.')?.delivery?.status
    }).toBe('delivered')

    const history = await staff('GET', `/api/chat/conversations/${userId}/messages?limit=100`)
    const transcript = (history.json().messages as Array<{ direction: string, author: string, text: string }>).reverse()
      .map((m) => `${m.direction} ${m.author.replace(/^staff:.*/, 'staff')}: ${m.text.split('\n')[0]}`)
    expect(transcript.slice(-7)).toEqual([
      'in member: quiero hablar con una persona',
      expect.stringMatching(/^out bot: Listo, le avisamos/),
      'out staff: Hola Bruno, soy Ana del club.',
      'in member: gracias',
      expect.stringMatching(/^out bot: Volvés a hablar con el bot/),
      'in member: menu',
      'out bot: Club Norte: ¿qué querés hacer?',
    ])
  })
})
