import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { loadConfig } from '../../src/config.ts'
import { RedisPace, type Pace } from '../../src/chat/outbound/pace.ts'
import { Sender } from '../../src/chat/sender.ts'
import { RedisChatStore } from '../../src/chat/store/redis.ts'
import { createRedis } from '../../src/plugins/redis.ts'
import { deleteKeysWithPrefix } from '../../scripts/lib/redis-server.ts'
import type { Taken, SendWork } from '../../src/chat/store/index.ts'
import { senderOptions, takenWithReplies } from './support.ts'

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

  it.each([1, 2])('is asked for in the commit\'s write for each of its %i replies, and the sends ask no more', async (n) => {
    const store = new RedisChatStore(redis, 16)
    const inner = new RedisPace(redis, 1_000)
    const asked: number[] = []
    const pace: Pace = {
      take: async (number, want, horizonMs) => { asked.push(want); return await inner.take(number, want, horizonMs) },
      hold: async (number, ms) => { await inner.hold(number, ms) },
    }
    const delivered: string[] = []
    const sender = new Sender(store, { deliver: async (entry) => { delivered.push(entry.id); return { kind: 'ok' } } }, senderOptions({
      owner: 'sender', pace, businessNumber: `54911${randomUUID().slice(0, 8)}`,
    }))
    sender.runner.start()
    const { phone, id, work, replies } = await takenWithReplies(store, n)
    // the socket writes while the commit is out (a corked batch is one writev)
    const socket = redis.stream as Socket & { _write: (...args: unknown[]) => void, _writev?: (...args: unknown[]) => void }
    let writes = 0
    const [write, writev] = [socket._write, socket._writev]
    socket._write = function (...args: unknown[]) { writes++; write.apply(this, args) }
    if (writev) socket._writev = function (...args: unknown[]) { writes++; writev.apply(this, args) }
    const at = performance.now()
    let committed
    try {
      committed = await store.commitTurn(phone, 'worker', {
        expected: work.session.version,
        doc: '{}',
        applied: [id],
        message: work.message,
        replies: replies.map((r) => JSON.stringify(r)),
        sender: sender.leaseOwner(n),
      }, 30_000)
    } finally {
      socket._write = write
      if (writev) socket._writev = writev
    }
    expect(asked).toEqual([n])
    expect(writes).toBe(1)
    if (!committed.send) throw new Error(`the outbox was not leased to the sender: ${JSON.stringify(committed)}`)
    sender.handOver(phone, committed.send, at)
    const deadline = Date.now() + 3_000
    while (delivered.length < n && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
    expect(delivered).toEqual(replies.map((r) => r.id))
    expect(asked).toEqual([n])
    // a commit queuing nothing asks for nothing
    sender.leaseOwner(0)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(asked).toEqual([n])
    await sender.stop(1_000)
  })

  it('leases the outbox to the sender at each commit of a burst with two asks of the pace in hand, with the default lane', async () => {
    // a send is in hand while it waits for its turn; a commit finding the lane full would leave its reply to a take
    // and a pace ask of their own once a send ends (two more Redis writes): as many as two asks of the pace take
    // (PaceGate's 64) must fit
    const { chat } = loadConfig({ COMMERCE_URL: 'http://127.0.0.1:9' })
    const store = new RedisChatStore(redis, 16)
    const takes: string[] = []
    const takeSend = store.takeSend.bind(store)
    store.takeSend = async (phone, owner, leaseMs, spareMs): Promise<Taken<SendWork>> => {
      takes.push(phone)
      return await takeSend(phone, owner, leaseMs, spareMs)
    }
    // the provider holds every send until the burst is committed: each is in hand meanwhile
    let open: () => void = () => {}
    const opened = new Promise<void>((resolve) => { open = resolve })
    const delivered: string[] = []
    const sender = new Sender(store, { deliver: async (entry) => { await opened; delivered.push(entry.id); return { kind: 'ok' } } }, senderOptions({
      owner: 'sender', concurrency: chat.sendConcurrency, pace: new RedisPace(redis, 1_000), businessNumber: `54911${randomUUID().slice(0, 8)}`,
    }))
    sender.runner.start()
    const burst = 128
    const turns = await Promise.all(Array.from({ length: burst }, async () => await takenWithReplies(store)))
    let leased = 0
    for (const { phone, id, work, replies } of turns) {
      const at = performance.now()
      const committed = await store.commitTurn(phone, 'worker', {
        expected: work.session.version,
        doc: '{}',
        applied: [id],
        message: work.message,
        replies: replies.map((r) => JSON.stringify(r)),
        sender: sender.leaseOwner(1),
      }, 30_000)
      if (committed.send) leased++
      sender.handOver(phone, committed.send, at)
    }
    open()
    const deadline = Date.now() + 10_000
    while (delivered.length < burst && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(leased).toBe(burst)
    expect(takes).toEqual([])
    expect(new Set(delivered)).toEqual(new Set(turns.map((t) => t.replies[0]?.id)))
    await sender.stop(1_000)
  })
})
