import { randomUUID } from 'node:crypto'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeMail } from '../../src/chat/mail.ts'
import { Recovery } from '../../src/chat/recovery.ts'
import { MemoryChatStore } from '../../src/chat/store/memory.ts'
import { RedisChatStore } from '../../src/chat/store/redis.ts'
import { keys } from '../../src/stores/keys.ts'
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
    expect((await store.heartbeat(`probe-${randomUUID()}`, 60_000)).gone).not.toContain(dead)
  })

  it('an instance reported gone while only slow, which takes a phone and stops before its next beat: the phone is taken over', async () => {
    const store = new RedisChatStore(t.app.redis!, t.app.config.chat.shards)
    const phone = newPhone()
    const id = `wamid.${randomUUID()}`
    const slow = `slow-${randomUUID()}`
    await store.heartbeat(slow, 300)
    // the app's heartbeat reports it (no longer listed as alive) and sweeps: it holds nothing yet
    const deadline = Date.now() + 10_000
    while (Number(await t.app.redis!.hget(keys.chat.instances(), slow) ?? -1) > 0) {
      if (Date.now() > deadline) throw new Error('the slow instance was never reported')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    // then it takes a phone, and stops before its next beat would have put it back
    const accepted = await store.accept([{ phone, id, body: encodeMail({ id, phone, receivedAt: Date.now(), input: { kind: 'text', text: 'hola' } }) }])
    expect(accepted.due).toEqual([phone])
    expect((await store.takeTurn(phone, slow, 1_000)).kind).toBe('ok')
    // still silent a beat time later, it is reported again: the phone is found and taken once its lease ends
    await t.app.chatWorker.idle(phone, 15_000)
    expect((await outbox(t, phone)).length).toBeGreaterThan(0)
  })
})

describe('chat recovery at start', () => {
  it('an instance is listed as beating as soon as it joins, before it takes anything, not a beat later', async () => {
    const store = new MemoryChatStore(4)
    const idle = { offer: () => {}, later: () => {} }
    const recovery = new Recovery({ store, owner: 'new', shards: 4, leaseMs: 1_000, runners: { turn: idle, send: idle }, log: pino({ level: 'silent' }) })
    expect(await store.gone(['new'])).toEqual(['new'])
    recovery.join()
    try {
      expect(await store.gone(['new'])).toEqual([])
    } finally {
      await recovery.stop()
    }
  })
})
