import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeMail } from '../../src/chat/mail.ts'
import { RedisChatStore } from '../../src/chat/store/redis.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { newPhone, outbox, textOf } from './support.ts'

// Nothing polls the shards: a phone whose instance died is found because that instance stops beating. The dead
// instance here is real state in Redis: its heartbeat, the phone's mail nobody was told about, and its lease.

describe('chat recovery (redis)', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store: 'redis' }) })
  afterAll(async () => { await t.close() })

  it('an instance that stops beating while it holds a phone: another takes the phone once the lease ends', async () => {
    const store = new RedisChatStore(t.app.redis!, t.app.config.chat.shards)
    const phone = newPhone()
    const id = `wamid.${randomUUID()}`
    const dead = `dead-${randomUUID()}`
    await store.heartbeat(dead, 300)
    const accepted = await store.accept([{ phone, id, body: encodeMail({ id, phone, receivedAt: Date.now(), input: { kind: 'text', text: 'hola' } }) }])
    expect(accepted.due).toEqual([phone])
    expect((await store.takeTurn(phone, dead, 1_000)).kind).toBe('ok')
    // the running app was never told: only the silence of the dead instance leads it there
    await t.app.chatWorker.idle(phone, 10_000)
    const replies = (await outbox(t, phone)).map((m) => textOf(m.body))
    expect(replies.length).toBeGreaterThan(0)
    expect(await store.heartbeat(`probe-${randomUUID()}`, 60_000)).not.toContain(dead)
  })
})
