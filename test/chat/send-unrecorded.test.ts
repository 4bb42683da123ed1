import { Writable } from 'node:stream'
import pino from 'pino'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatMetrics } from '../../src/chat/metrics.ts'
import type { Transport } from '../../src/chat/outbound/transport.ts'
import { createReceiptStore } from '../../src/chat/receipts/index.ts'
import { Sender } from '../../src/chat/sender.ts'
import type { SentReply } from '../../src/chat/store/index.ts'
import { RedisChatStore } from '../../src/chat/store/redis.ts'
import { testRedis } from '../helper.ts'
import { phoneWithReplies, senderOptions } from './support.ts'

// A reply the provider took while Redis could not record it is kept by the process and recorded once Redis answers
// again, never sent twice: the record (fault-injected here: the store's `delivered` fails for a while, as through a
// restart) outlives the send lease, the lane takes the phone again meanwhile, and still nothing is sent again.
// The real-process case (redis-server killed for 2 s under load) is in test/chat-faults/faults.test.ts.

const SHARDS = 16
const RECEIPT_TTL_MS = 60_000
const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

async function until (done: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!await done() && Date.now() < deadline) await sleep(10)
}

/** The Redis chat store whose records of deliveries fail while `down` (the connection gone, as ioredis answers then). */
class RecordFails extends RedisChatStore {
  down = false
  attempts = 0
  override async delivered (phone: string, owner: string, entry: string, leaseMs: number, receipt?: SentReply) {
    this.attempts++
    if (this.down) throw new Error('Connection is closed.')
    return await super.delivered(phone, owner, entry, leaseMs, receipt)
  }
}

describe('a reply the provider took while Redis could not record it', () => {
  let t: Awaited<ReturnType<typeof testRedis>>
  beforeAll(async () => { t = await testRedis() })
  afterAll(async () => { await t.cleanup() })

  function sender (store: RedisChatStore, delivered: string[], logged: string[], leaseMs: number, registry = new Registry()): Sender {
    const lines = new Writable({ write (chunk, _enc, done) { logged.push(String(chunk)); done() } })
    const transport: Transport = { deliver: async (entry) => { delivered.push(entry.id); return { kind: 'ok', messageId: `wamid.out.${entry.id}` } } }
    const log = pino({ level: 'info' }, lines)
    return new Sender(store, transport, senderOptions({ leaseMs, shards: SHARDS, log, metrics: chatMetrics(registry, async () => 0) }))
  }

  it('is kept through a record that fails past its lease, recorded once Redis answers, and never sent again; the next reply goes once', async () => {
    const store = new RecordFails(t.redis, SHARDS, undefined, undefined, RECEIPT_TTL_MS)
    const receipts = createReceiptStore(t.redis, { shards: SHARDS, ttlMs: RECEIPT_TTL_MS })
    const { phone, ids } = await phoneWithReplies(store, 2, 'club-norte')
    const delivered: string[] = []
    const logged: string[] = []
    const registry = new Registry()
    const leaseMs = 150
    const a = sender(store, delivered, logged, leaseMs, registry)
    store.down = true
    a.runner.start()
    try {
      a.handOver(phone, undefined)
      await until(() => delivered.length > 0)
      // the provider took the first reply; Redis cannot record it for four leases, in which the lane looks at the
      // phone again (its lease ran out) and the process keeps trying the record
      await sleep(leaseMs * 4)
      expect(a.unrecordedCount).toBe(1)
      const attemptsWhileDown = store.attempts
      expect(attemptsWhileDown).toBeGreaterThan(2)
      expect(delivered).toEqual([ids[0]])
      store.down = false
      await until(async () => delivered.length === 2 && !await store.pending(phone))
      expect(delivered).toEqual(ids)
      expect(a.unrecordedCount).toBe(0)
      expect(await store.pending(phone)).toBe(false)
      // its receipt starts as the provider named it, like any delivered reply's
      expect([...(await receipts.receiptsOfReplies(phone, ids)).keys()].sort()).toEqual([...ids].sort())
      expect(logged.filter((line) => line.includes('"outcome":"unrecorded"'))).toHaveLength(1)
      expect(logged.filter((line) => line.includes('"outcome":"recorded-late"'))).toHaveLength(1)
      expect(await registry.getSingleMetricAsString('club_chat_replies_recorded_late_total')).toContain('club_chat_replies_recorded_late_total 1')
    } finally {
      await a.stop(1_000)
    }
  })

  it(
    'kept at shutdown while Redis still cannot record it: one last try, then its reply id named in the log (whoever takes the phone re-sends it with that id)',
    async () => {
      const store = new RecordFails(t.redis, SHARDS, undefined, undefined, RECEIPT_TTL_MS)
      const { phone, ids } = await phoneWithReplies(store, 1, 'club-norte')
      const delivered: string[] = []
      const logged: string[] = []
      const a = sender(store, delivered, logged, 150)
      store.down = true
      a.runner.start()
      a.handOver(phone, undefined)
      await until(() => a.unrecordedCount > 0)
      await a.stop(300)
      const line = logged.find((l) => l.includes('not recorded before shutdown'))
      expect(line).toContain(ids[0])
      expect(line).not.toContain(phone)
      expect(delivered).toEqual(ids)
      expect(await store.pending(phone)).toBe(true)
    }
  )
})
