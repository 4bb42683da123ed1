import { generateKeyPairSync, publicEncrypt, randomBytes, constants, createCipheriv, createDecipheriv, type KeyObject } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cloudEvents, cloudWebhookBody } from '../../../src/chat/cloud-api/webhook-body.ts'
import { decryptFlowRequest, encryptFlowResponse, FlowDecryptionError } from '../../../src/chat/cloud-api/flows-crypto.ts'
import { verificationChallenge } from '../../../src/chat/cloud-api/verification.ts'
import { buttonReply, listReply, severalEntries, statuses, textMessage, withoutPhone } from './meta-payloads.ts'

// The Cloud API adapter's pure parts against recorded Meta payloads, and the Flows encryption against a test
// vector made here with node:crypto the way Meta's app makes it.

const events = (body: unknown) => cloudEvents(cloudWebhookBody.parse(body))

describe('Cloud API webhook body', () => {
  it('turns a text, a button reply and a list reply into the provider\'s received events', () => {
    expect(events(textMessage)).toEqual({
      skipped: 0,
      events: [{
        type: 'chat.message.received',
        message: { from: '5491100000001', id: 'wamid.HBgNNTQ5MTEwMDAwMDAwMRUCABIYFjNFQjA1', timestamp: '1700000000', text: { body: 'hola' }, type: 'text' },
        conversation: { phone_number: '5491100000001' },
        phone_number_id: '106540352242922',
      }],
    })
    expect(events(buttonReply).events[0]).toMatchObject({ message: { type: 'interactive', interactive: { button_reply: { id: 'menu:browse' } } } })
    expect(events(listReply).events[0]).toMatchObject({
      message: { interactive: { type: 'list_reply', list_reply: { id: 'product:prod_1', title: 'Aceite CBD' } } }
    })
  })

  it('turns statuses into the provider\'s status events, errors included', () => {
    expect(events(statuses).events).toEqual([
      {
        type: 'chat.message.delivered',
        message: expect.objectContaining({ id: 'wamid.sent.1', status: 'delivered', timestamp: '1700000010' }),
        phone_number_id: '106540352242922'
      },
      {
        type: 'chat.message.failed',
        message: expect.objectContaining({ id: 'wamid.sent.2', errors: [expect.objectContaining({ code: 131047, title: 'Re-engagement message' })] }),
        phone_number_id: '106540352242922',
      },
    ])
  })

  it('keeps a sender without a phone by the business-scoped user id and the username', () => {
    expect(events(withoutPhone).events[0]).toMatchObject({ conversation: { business_scoped_user_id: 'AR.1502576394655843', username: '@bo' } })
    expect(events(withoutPhone).events[0]?.conversation).not.toHaveProperty('phone_number')
  })

  it('reads a batch of several entries in order, and counts a change of another field as skipped', () => {
    const read = events(severalEntries)
    expect(read.events.map((e) => [e.type, (e.message as { id: string }).id])).toEqual([
      ['chat.message.received', 'wamid.HBgNNTQ5MTEwMDAwMDAwMRUCABIYFjNFQjA1'],
      ['chat.message.received', 'wamid.img.1'],
      ['chat.message.read', 'wamid.sent.3'],
    ])
    expect(read.skipped).toBe(1)
  })

  it('refuses what is not Meta\'s body, and never throws on the inside of one', () => {
    expect(cloudWebhookBody.safeParse({ object: 'page', entry: [] }).success).toBe(false)
    expect(cloudWebhookBody.safeParse({ message: { id: 'x' } }).success).toBe(false)
    fc.assert(
      fc.property(fc.array(fc.record({ id: fc.string(), changes: fc.array(fc.record({ field: fc.constantFrom('messages', 'x'), value: fc.anything() })) })), (
        entry
      ) => {
        const read = cloudEvents(cloudWebhookBody.parse({ object: 'whatsapp_business_account', entry }))
        for (const e of read.events) {
          expect(e.type).toMatch(/^chat\.message\./)
          expect(typeof (e.message as { id: unknown }).id).toBe('string')
        }
      })
    )
  })
})

describe('webhook verification handshake', () => {
  it('answers the challenge exactly when the mode is subscribe and the token is the configured one', () => {
    expect(verificationChallenge({ 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-me-please', 'hub.challenge': '1158201444' }, 'verify-me-please')).toBe(
      '1158201444'
    )
    fc.assert(fc.property(fc.constantFrom('subscribe', 'unsubscribe', undefined), fc.string(), fc.string({ minLength: 1 }), (mode, token, challenge) => {
      const answer = verificationChallenge({ 'hub.mode': mode, 'hub.verify_token': token, 'hub.challenge': challenge }, 'verify-me-please')
      expect(answer).toBe(mode === 'subscribe' && token === 'verify-me-please' ? challenge : undefined)
    }))
  })
})

// The app's side of the exchange: a fresh AES-128 key wrapped with the business's public key, the payload in
// AES-128-GCM with the tag appended; it reads the answer with the flipped IV.
function encryptRequest (publicKey: KeyObject, payload: unknown) {
  const aesKey = randomBytes(16)
  const iv = randomBytes(16)
  const cipher = createCipheriv('aes-128-gcm', aesKey, iv)
  const data = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final(), cipher.getAuthTag()])
  const body = {
    encrypted_flow_data: data.toString('base64'),
    encrypted_aes_key: publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, aesKey).toString('base64'),
    initial_vector: iv.toString('base64'),
  }
  return { body, aesKey, iv }
}
function decryptAnswer (answer: string, aesKey: Buffer, iv: Buffer): unknown {
  const raw = Buffer.from(answer, 'base64')
  const decipher = createDecipheriv('aes-128-gcm', aesKey, Buffer.from(iv.map((b) => b ^ 0xff)))
  decipher.setAuthTag(raw.subarray(raw.length - 16))
  return JSON.parse(Buffer.concat([decipher.update(raw.subarray(0, raw.length - 16)), decipher.final()]).toString('utf8'))
}

describe('Flows data endpoint encryption', () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 })

  it('decrypts what the app encrypted with the public key, and its answer decrypts back with the flipped IV', () => {
    const payload = { version: '3.0', action: 'data_exchange', screen: 'LOGIN', flow_token: '5491100000001', data: { email: 'ana@example.com' } }
    const { body, aesKey, iv } = encryptRequest(publicKey, payload)
    const request = decryptFlowRequest(body, privateKey)
    expect(request.payload).toEqual(payload)
    expect(request.aesKey.equals(aesKey)).toBe(true)
    const answer = { version: '3.0', screen: 'SUCCESS', data: { extension_message_response: { params: { flow_token: '5491100000001' } } } }
    expect(decryptAnswer(encryptFlowResponse(answer, request.aesKey, request.iv), aesKey, iv)).toEqual(answer)
  })

  it('round-trips any JSON payload and answer', () => {
    fc.assert(fc.property(fc.jsonValue(), fc.jsonValue(), (payload, answer) => {
      const { body, aesKey, iv } = encryptRequest(publicKey, payload)
      const request = decryptFlowRequest(body, privateKey)
      expect(request.payload).toEqual(JSON.parse(JSON.stringify(payload)))
      expect(decryptAnswer(encryptFlowResponse(answer, request.aesKey, request.iv), aesKey, iv)).toEqual(JSON.parse(JSON.stringify(answer)))
    }), { numRuns: 30 })
  })

  it('refuses with 421 another key, an altered byte, a missing field or a body that is not base64', () => {
    const { body } = encryptRequest(publicKey, { action: 'ping' })
    const refused = (b: unknown, key = privateKey) => {
      try {
        decryptFlowRequest(b, key)
      } catch (err) {
        return err instanceof FlowDecryptionError ? err.statusCode : 'other'
      }
      return 'accepted'
    }
    expect(refused(body, other.privateKey)).toBe(421)
    fc.assert(fc.property(fc.nat(), fc.integer({ min: 1, max: 255 }), (at, flip) => {
      const data = Buffer.from(body.encrypted_flow_data, 'base64')
      const i = at % data.length
      data[i] = (data[i] ?? 0) ^ flip
      expect(refused({ ...body, encrypted_flow_data: data.toString('base64') })).toBe(421)
    }), { numRuns: 50 })
    expect(refused({ ...body, initial_vector: undefined })).toBe(421)
    expect(refused({ ...body, encrypted_aes_key: 'not base64!' })).toBe(421)
    expect(refused([body])).toBe(421)
    expect(refused(null)).toBe(421)
  })
})
