import { randomInt, randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WakeChannel } from '../../src/chat/wake.ts'
import { RedisChatStore } from '../../src/chat/store/redis.ts'
import { keys } from '../../src/stores/keys.ts'
import { buildTestApp, signedPost, type TestApp } from '../helper.ts'

// An instance whose own runner is saturated tells the others of the phones it accepted (wake.ts), but only when
// another instance beats: alone (the single process of most clubs) it would publish to its own subscription only.
// A listener of the test's own on the wake channels (it does not beat) hears nothing while the app is alone, and
// the phones once another instance beats.

const sleep = async (ms: number) => { await new Promise((resolve) => setTimeout(resolve, ms)) }
const greeting = (phone: string) => signedPost('/api/chat/webhook', {
  message: { id: `wamid.${randomUUID()}`, from: phone, type: 'text', text: { body: 'hola' } },
  conversation: { phone_number: phone },
})

describe('wake-ups of a saturated instance', () => {
  let t: TestApp
  let listener: WakeChannel
  const heard: string[] = []
  beforeAll(async () => {
    // one turn at a time: every accepted phone finds the runner saturated
    t = await buildTestApp({ store: 'redis', env: { CHAT_TURN_CONCURRENCY: '1' } })
    listener = new WakeChannel(t.redis!, t.config.redisKeyPrefix, t.config.chat.shards, 'listener')
    await listener.listen((lane, phones) => { if (lane === 'turn') heard.push(...phones) })
  })
  afterAll(async () => {
    await listener.close()
    await t.close()
  })

  it('are not published while no other instance beats, and are once one does', async () => {
    const redis = t.redis!
    // the app's first beat has answered (nobody else listed)
    const deadline = Date.now() + 5_000
    while (await redis.hlen(keys.chat.instances()) < 1) {
      if (Date.now() > deadline) throw new Error('the app never beat')
      await sleep(20)
    }
    await sleep(200)
    const alone = Array.from({ length: 6 }, () => `549${randomInt(1e9, 1e10 - 1)}`)
    for (const phone of alone) expect((await t.app.inject(greeting(phone))).statusCode).toBe(200)
    await sleep(300)
    expect(heard).toEqual([])

    // another instance beats: the app sees it at its next beat, and publishes the phones its runner cannot take
    const store = new RedisChatStore(redis, t.config.chat.shards)
    await store.heartbeat('other-instance', 60_000)
    const more: string[] = []
    const until = Date.now() + 5_000
    while (heard.length === 0) {
      if (Date.now() > until) throw new Error('no wake-up published with another instance beating')
      const phone = `549${randomInt(1e9, 1e10 - 1)}`
      more.push(phone)
      expect((await t.app.inject(greeting(phone))).statusCode).toBe(200)
      await sleep(100)
    }
    expect(heard.every((phone) => more.includes(phone))).toBe(true)
    await store.leave('other-instance')
  })
})
