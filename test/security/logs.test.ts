import { randomInt, randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signWebhookBody } from '../../src/chat/signature.ts'
import { keys } from '../../src/stores/keys.ts'
import { buildTestApp, signedPost, TEST_SECRETS, type TestApp } from '../helper.ts'
import { captureLog } from './support.ts'

// Review item 4: a whole run at trace level, then the log is searched for every credential the run used:
// passwords, our tokens, the upstream token, link codes (used, unused, unknown), tokens put in query strings
// and paths, the signature header and every configured secret.

describe('no credential reaches the log', () => {
  const log = captureLog()
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ logTo: log.stream }) })
  afterAll(async () => { await t.close() })

  it('a run through logins, link codes, the login form, the webhook and URLs carrying tokens', async () => {
    const used: string[] = [...Object.values(TEST_SECRETS), 'demo-password', 'a-wrong-password-42']
    const login = async (actor: 'customer' | 'user', email: string, password = 'demo-password') =>
      await t.app.inject({ method: 'POST', url: `/auth/${actor}/emailpass`, payload: { email, password } })

    const member = (await login('customer', 'ana@example.com')).json().token as string
    const staff = (await login('user', 'admin@club-norte.test')).json().token as string
    expect((await login('customer', 'ana@example.com', 'a-wrong-password-42')).statusCode).toBe(401)
    const upstream = JSON.parse(await t.redis?.get(keys.orders.upstreamToken('club-norte', 'cus_ana')) ?? '{}').token as string
    used.push(member, staff, upstream)

    // link codes: one consumed, one left unused, one never issued, and a code in an unknown route's path
    const link = async () =>
      (await t.app.inject({
        method: 'POST', url: '/api/chat/link', payload: { customerId: 'cus_ana', tenantId: 'club-norte', email: 'ana@example.com', name: 'Ana', token: member }
      })).json().code as string
    const consumed = await link()
    const unused = await link()
    const unknown = randomUUID()
    used.push(consumed, unused, unknown)
    expect((await t.app.inject(`/api/chat/link/${consumed}`)).statusCode).toBe(200)
    expect((await t.app.inject(`/api/chat/link/${consumed}`)).statusCode).toBe(404)
    expect((await t.app.inject(`/api/chat/link/${unknown}`)).statusCode).toBe(404)
    expect((await t.app.inject(`/api/chat/link/${unused}/extra`)).statusCode).toBe(404)
    expect((await t.app.inject(`/api/chat/link/${unused.slice(0, 8)}`)).statusCode).toBe(400)
    used.push(unused.slice(0, 8))

    // credentials where a careless client puts them: query strings and paths, on known and unknown routes
    const resetToken = `reset-${randomUUID()}`
    const inviteToken = `invite-${randomUUID()}`
    used.push(resetToken, inviteToken)
    for (const url of [
      `/api/notifications?token=${member}&limit=5`,
      `/api/notifications?access_token=${staff}&code=${unused}`,
      `/auth/customer/emailpass/reset?token=${resetToken}`,
      `/invite/${inviteToken}`,
      `/api/nowhere/${member}?x=${inviteToken}`,
      `/docs?${resetToken}`,
    ]) await t.app.inject({ url, headers: { authorization: `Bearer ${staff}`, 'tenant-id': 'club-norte' } })

    // the login form and the webhook, signed
    const phone = `549${randomInt(1e9, 1e10 - 1)}`
    await t.app.loginFormInvites.markSent(phone)
    const form = signedPost('/api/chat/flow-endpoint', {
      source: 'chat',
      data_exchange: {
        version: '3.0', screen: 'LOGIN', flow_token: phone, data: { club_id: 'club-norte', email: 'ana@example.com', password: 'demo-password' }
      },
      signature_valid: true
    })
    expect((await t.app.inject(form)).json().screen).toBe('SUCCESS')
    used.push(form.headers['x-webhook-signature'], (await t.app.linkedAccounts.list(phone))[0]?.token ?? 'missing linked token')
    const webhookBody = JSON.stringify({
      message: { id: randomUUID(), from: phone, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: 'hola' } }
    })
    const signature = signWebhookBody(TEST_SECRETS.CHAT_WEBHOOK_SECRET, webhookBody)
    used.push(signature)
    await t.app.inject({
      method: 'POST', url: '/api/chat/webhook', headers: { 'content-type': 'application/json', 'x-webhook-signature': signature }, payload: webhookBody
    })
    await t.app.inject({ method: 'POST', url: '/api/notifications/generate-reminders', headers: { authorization: `Bearer ${TEST_SECRETS.CRON_API_SECRET}` } })

    const text = log.text()
    // the log is there and shows where requests went, by route pattern
    expect(text).toContain('"url":"/api/chat/link/:code"')
    expect(text).toContain('"url":"/api/notifications?token=[redacted]&limit=5"')
    for (const secret of used) expect(text, `log holds ${secret.slice(0, 12)}…`).not.toContain(secret)
  })
})
