import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import type { Redis } from 'ioredis'
import pino from 'pino'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { encodeMail } from '../../src/chat/mail.ts'
import { chatMetrics } from '../../src/chat/metrics.ts'
import { RedisPace, type Pace } from '../../src/chat/outbound/pace.ts'
import type { OutboxEntry } from '../../src/chat/outbound/transport.ts'
import { Sender } from '../../src/chat/sender.ts'
import { RedisChatStore } from '../../src/chat/store/redis.ts'
import { createRedis } from '../../src/plugins/redis.ts'
import { deleteKeysWithPrefix } from '../../scripts/lib/redis-server.ts'
import { newPhone } from './support.ts'

// A turn's commit that queues a reply for this instance's sender asks for the reply's turn in the provider's pace
// beside it, on the service's own client: the ask goes to Redis in the commit's write, and the send that follows
// takes that turn instead of a round trip of its own (docs/chat.md, The provider's pace).

describe('the pace of a committed reply', () => {
  const url = inject('redisUrl')
  const prefix = `test:${randomUUID()}:`
  let redis: Redis
  beforeAll(async () => {
    redis = createRedis(url, prefix)
    await redis.connect()
  })
  afterAll(async () => {
    redis.disconnect()
    await deleteKeysWithPrefix(url, prefix)
  })

  it('is asked for in the commit\'s write, and the send asks no more', async () => {
    const store = new RedisChatStore(redis, 16)
    const inner = new RedisPace(redis, 1_000)
    const asked: number[] = []
    const pace: Pace = {
      take: async (number, want, horizonMs) => { asked.push(want); return await inner.take(number, want, horizonMs) },
      hold: async (number, ms) => { await inner.hold(number, ms) },
    }
    const delivered: string[] = []
    const sender = new Sender(store, { deliver: async (entry) => { delivered.push(entry.id); return { kind: 'ok' } } }, {
      owner: 'sender',
      leaseMs: 30_000,
      concurrency: 4,
      shards: 16,
      horizonMs: 60_000,
      pace,
      businessNumber: `54911${randomUUID().slice(0, 8)}`,
      log: pino({ level: 'silent' }),
      metrics: chatMetrics(new Registry(), async () => 0),
      clock: Date.now,
      crashPoint: () => {},
      handedBack: () => {},
      receiptOf: (entry, messageId) => ({ address: entry.phone, messageId, replyId: entry.id, tenantId: entry.tenantId, kind: 'reply', at: Date.now() }),
      windowClosed: async () => {},
    })
    sender.runner.start()
    const phone = newPhone()
    const id = `wamid.${randomUUID()}`
    await store.accept([{ phone, id, body: encodeMail({ id, phone, receivedAt: Date.now(), input: { kind: 'text', text: 'hola' } }) }])
    const taken = await store.takeTurn(phone, 'worker', 30_000)
    if (taken.kind !== 'ok') throw new Error('the turn was not taken')
    const reply: OutboxEntry = {
      id: `${id}:0`,
      phone,
      tenantId: undefined,
      at: Date.now(),
      body: { messaging_product: 'whatsapp', recipient_type: 'individual', to: phone, type: 'text', text: { body: 'hola' } },
    }
    // the socket writes while the commit is out (a corked batch is one writev)
    const socket = redis.stream as Socket & { _write: (...args: unknown[]) => void, _writev?: (...args: unknown[]) => void }
    let writes = 0
    const [write, writev] = [socket._write, socket._writev]
    socket._write = function (...args: unknown[]) { writes++; write.apply(this, args) }
    if (writev) socket._writev = function (...args: unknown[]) { writes++; writev.apply(this, args) }
    const at = performance.now()
    let committed
    try {
      const { version } = taken.work.session
      committed = await store.commitTurn(phone, 'worker', {
        expected: version, doc: '{}', applied: [id], message: taken.work.message, replies: [JSON.stringify(reply)], sender: sender.leaseOwner(1),
      }, 30_000)
    } finally {
      socket._write = write
      if (writev) socket._writev = writev
    }
    expect(asked).toEqual([1])
    expect(writes).toBe(1)
    if (!committed.send) throw new Error(`the outbox was not leased to the sender: ${JSON.stringify(committed)}`)
    sender.handOver(phone, committed.send, at)
    const deadline = Date.now() + 3_000
    while (delivered.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
    expect(delivered).toEqual([reply.id])
    expect(asked).toEqual([1])
    // a commit queuing nothing asks for nothing
    sender.leaseOwner(0)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(asked).toEqual([1])
    await sender.stop(1_000)
  })
})
