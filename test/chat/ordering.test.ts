import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inject } from 'vitest'
import { buildApp, type BuiltApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { buildTestApp, TEST_SECRETS, type TestApp } from '../helper.ts'
import { messageBody, newPhone, postWebhook, savedRecord, startFakeProvider, textOf, type FakeProvider } from './support.ts'

// Two instances share one Redis: the messages of one phone are all applied, one at a time, in arrival order,
// whichever instance accepted them.

describe('two instances, one phone', () => {
  let provider: FakeProvider
  let a: TestApp
  let b: BuiltApp
  let redisB: Redis
  beforeAll(async () => {
    provider = await startFakeProvider()
    const env = { CHAT_API_BASE_URL: provider.url }
    a = await buildTestApp({ store: 'redis', env })
    const prefix = a.redis!.options.keyPrefix!
    redisB = new Redis(inject('redisUrl'), { keyPrefix: prefix, maxRetriesPerRequest: 2 })
    const config = loadConfig({
      NODE_ENV: 'test', LOG_LEVEL: 'silent', ...TEST_SECRETS, REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: prefix, SEED: 'none', ...env
    })
    b = await buildApp(config, { redis: redisB, logger: false })
    await b.ready()
  })
  afterAll(async () => {
    await b.close()
    redisB.disconnect()
    await a.close()
    await provider.close()
  })

  it('20 messages accepted by either instance are all applied, in order', async () => {
    const phone = newPhone()
    // link:code then cancel, ten times: in order this alternates "send the code" and the welcome
    const inputs = Array.from({ length: 20 }, (_, i) => i % 2 === 0 ? { reply: 'link:code' } : { text: 'cancelar' })
    for (const [i, input] of inputs.entries()) {
      const res = await postWebhook(i % 2 === 0 ? a.app : b, messageBody(phone, input), { key: randomUUID() })
      expect(res.statusCode).toBe(200)
    }
    await a.app.chatWorker.idle(phone)
    await b.chatWorker.idle(phone)
    const replies = provider.to(phone).map(textOf)
    expect(replies).toHaveLength(20)
    replies.forEach((text, i) => expect(text).toMatch(i % 2 === 0 ? /Enviá el código/ : /vinculá tu cuenta/))
    const record = await savedRecord(a.app, phone)
    expect(JSON.parse(record.d).state).toBe('UNLINKED')
    expect(record.v).toBe(20)
  })

  it('concurrent duplicates sent to both instances give one turn', async () => {
    const phone = newPhone()
    const body = messageBody(phone, { text: 'hola' })
    await Promise.all(Array.from({ length: 6 }, (_, i) => postWebhook(i % 2 ? a.app : b, body, { key: randomUUID() })))
    await a.app.chatWorker.idle(phone)
    expect(provider.to(phone)).toHaveLength(1)
  })
})
