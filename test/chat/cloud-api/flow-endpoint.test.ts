import { constants, createCipheriv, createDecipheriv, generateKeyPairSync, publicEncrypt, randomBytes, randomInt } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChatBot } from '../../../src/chat/linking/types.ts'
import { signWebhookBody } from '../../../src/chat/signature.ts'
import { buildTestApp, type TestApp } from '../../helper.ts'

// The login form's data endpoint with Meta directly: signed with the app secret, encrypted with the Flows
// encryption both ways, 432 for a bad signature and 421 for a body that does not decrypt, nothing stored then.

const APP_SECRET = 'meta-app-secret-0123456789'
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
const env = {
  CHAT_PROVIDER: 'cloud-api',
  CHAT_APP_SECRET: APP_SECRET,
  CHAT_VERIFY_TOKEN: 'verify-token-0123456789',
  CHAT_FLOWS_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
}

// The app's side: a fresh key and IV per request; the answer read back with the flipped IV.
function encrypt (payload: unknown) {
  const aesKey = randomBytes(16)
  const iv = randomBytes(16)
  const cipher = createCipheriv('aes-128-gcm', aesKey, iv)
  const data = Buffer.concat([cipher.update(JSON.stringify(payload)), cipher.final(), cipher.getAuthTag()])
  const body = {
    encrypted_flow_data: data.toString('base64'),
    encrypted_aes_key: publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, aesKey).toString('base64'),
    initial_vector: iv.toString('base64'),
  }
  const open = (answer: string): unknown => {
    const raw = Buffer.from(answer, 'base64')
    const decipher = createDecipheriv('aes-128-gcm', aesKey, Buffer.from(iv.map((b) => b ^ 0xff)))
    decipher.setAuthTag(raw.subarray(-16))
    return JSON.parse(Buffer.concat([decipher.update(raw.subarray(0, -16)), decipher.final()]).toString('utf8'))
  }
  return { body, open }
}

describe('login form data endpoint with Meta directly', () => {
  let t: TestApp
  const linked: string[] = []
  beforeAll(async () => {
    t = await buildTestApp({ store: 'redis', env, ready: false })
    const recorder: ChatBot = { accountLinked: async (phone) => { linked.push(phone) } }
    if (t.app.hasDecorator('chatBot')) t.app.chatBot.accountLinked = recorder.accountLinked
    else t.app.decorate('chatBot', recorder)
    await t.app.ready()
  })
  afterAll(async () => { await t.close() })

  const post = async (raw: string, signature = `sha256=${signWebhookBody(APP_SECRET, raw)}`) =>
    await t.app.inject({
      method: 'POST', url: '/api/chat/flow-endpoint', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, payload: raw
    })

  it('answers a ping, encrypted', async () => {
    const { body, open } = encrypt({ version: '3.0', action: 'ping' })
    const res = await post(JSON.stringify(body))
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/plain/)
    expect(open(res.body)).toEqual({ data: { status: 'active' } })
  })

  it('logs a member in through the same form, and the answer decrypts back', async () => {
    const phone = `549${randomInt(1e9, 1e10 - 1)}`
    await t.app.loginFormInvites.markSent(phone)
    const { body, open } = encrypt({
      version: '3.0',
      action: 'data_exchange',
      screen: 'LOGIN',
      flow_token: phone,
      data: { club_id: 'club-norte', email: 'ana@example.com', password: 'demo-password' }
    })
    const res = await post(JSON.stringify(body))
    expect(res.statusCode).toBe(200)
    expect(open(res.body)).toMatchObject({ version: '3.0', screen: 'SUCCESS', data: { member_name: 'Ana Pereyra', club_name: 'Club Norte' } })
    expect((await t.app.linkedAccounts.links(phone)).accounts.map((a) => a.tenantId)).toEqual(['club-norte'])
    expect(linked).toContain(phone)
  })

  it('a wrong or missing signature is 432 before the body is read', async () => {
    const { body } = encrypt({ version: '3.0', action: 'ping' })
    const raw = JSON.stringify(body)
    for (const signature of ['', 'sha256=00', `sha256=${signWebhookBody('another-app-secret-0123', raw)}`]) {
      const res = await post(raw, signature)
      expect(res.statusCode).toBe(432)
      expect(res.json().error.code).toBe('UNAUTHORIZED')
    }
    expect((await post('not json at all', 'sha256=ab')).statusCode).toBe(432)
  })

  it('a body that does not decrypt is 421, and nothing is stored', async () => {
    const phone = `549${randomInt(1e9, 1e10 - 1)}`
    await t.app.loginFormInvites.markSent(phone)
    const { body } = encrypt({
      version: '3.0',
      action: 'data_exchange',
      screen: 'LOGIN',
      flow_token: phone,
      data: { club_id: 'club-norte', email: 'ana@example.com', password: 'demo-password' }
    })
    const data = Buffer.from(body.encrypted_flow_data, 'base64')
    data[0] = (data[0] ?? 0) ^ 1
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey
    const foreignKey = publicEncrypt({ key: other, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, randomBytes(16)).toString('base64')
    for (const bad of [
      { ...body, encrypted_flow_data: data.toString('base64') }, { ...body, encrypted_aes_key: foreignKey }, { encrypted_flow_data: body.encrypted_flow_data },
      'plain text'
    ]) {
      const res = await post(typeof bad === 'string' ? bad : JSON.stringify(bad))
      expect(res.statusCode).toBe(421)
      expect(res.json().error.message).toMatch(/^The request cannot be decrypted/)
    }
    expect((await t.app.linkedAccounts.links(phone)).accounts).toEqual([])
  })
})
