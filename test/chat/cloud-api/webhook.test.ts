import { generateKeyPairSync } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signWebhookBody } from '../../../src/chat/signature.ts'
import { buildTestApp, type TestApp } from '../../helper.ts'
import { startFakeProvider, type FakeProvider } from '../support.ts'
import { buttonReply, severalEntries, statuses, textMessage, withoutPhone } from './meta-payloads.ts'

// The webhook with Meta directly, through the real app: the handshake, the app secret's signature before parsing,
// recorded payloads taken like the partner's events (the bot answers; statuses go to the receipts' path).

const APP_SECRET = 'meta-app-secret-0123456789'
const VERIFY = 'verify-token-0123456789'
const env = (providerUrl: string) => ({
  CHAT_PROVIDER: 'cloud-api',
  CHAT_APP_SECRET: APP_SECRET,
  CHAT_VERIFY_TOKEN: VERIFY,
  CHAT_FLOWS_PRIVATE_KEY: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  CHAT_API_BASE_URL: providerUrl,
  CHAT_PHONE_NUMBER_ID: '106540352242922',
})

describe('Cloud API webhook', () => {
  let provider: FakeProvider
  let t: TestApp
  beforeAll(async () => {
    provider = await startFakeProvider()
    t = await buildTestApp({ store: 'redis', env: env(provider.url) })
  })
  afterAll(async () => {
    await t.close()
    await provider.close()
  })
  const post = async (body: unknown, signature?: string) => {
    const raw = typeof body === 'string' ? body : JSON.stringify(body)
    return await t.app.inject({
      method: 'POST',
      url: '/api/chat/webhook',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature ?? `sha256=${signWebhookBody(APP_SECRET, raw)}` },
      payload: raw
    })
  }

  it('answers the verification handshake with the challenge, and 403 to a wrong token', async () => {
    const ok = await t.app.inject({ url: `/api/chat/webhook?hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=1158201444` })
    expect(ok.statusCode).toBe(200)
    expect(ok.body).toBe('1158201444')
    const wrong = await t.app.inject({ url: '/api/chat/webhook?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1' })
    expect(wrong.statusCode).toBe(403)
    expect(wrong.json().error.code).toBe('FORBIDDEN')
  })

  it('a wrong signature is 401 before parsing, even on a body that is not JSON', async () => {
    expect((await post(textMessage, `sha256=${signWebhookBody('another-secret-0123456789', JSON.stringify(textMessage))}`)).statusCode).toBe(401)
    expect((await post('not json', 'sha256=00')).statusCode).toBe(401)
    expect((await post({ object: 'page', entry: [] })).statusCode).toBe(400)
  })

  it('takes Meta\'s messages like the partner\'s: the bot answers each sender, a sender without a phone by its user id', async () => {
    expect((await post(textMessage)).statusCode).toBe(200)
    await t.app.chatWorker.idle('5491100000001')
    expect(provider.to('5491100000001').length).toBeGreaterThan(0)
    expect((await post(buttonReply)).statusCode).toBe(200)
    expect((await post(statuses)).statusCode).toBe(200)
    expect((await post(severalEntries)).statusCode).toBe(200)
    await t.app.chatWorker.idle('5491100000003')
    expect(provider.to('5491100000003').length).toBeGreaterThan(0)
    expect((await post(withoutPhone)).statusCode).toBe(200)
    await t.app.chatWorker.idle('AR.1502576394655843')
  })
})
