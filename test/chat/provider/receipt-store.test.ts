import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createReceiptStore, type SentReply } from '../../../src/chat/receipts/index.ts'
import { mergeReceipt, type StatusUpdate } from '../../../src/chat/provider/receipts.ts'
import { contractStore } from '../../helper.ts'
import { SENT_PERIOD_MS, sentPeriod } from '../../../src/chat/receipts/port.ts'
import { keys } from '../../../src/stores/keys.ts'
import { shardOf } from '../../../src/stores/shards.ts'
import type { RedisClient } from '../../../src/stores/redis-client.ts'

// The receipt store on Redis, on the test cluster and in memory: each keeps what the merge says, whatever the
// order and the batching of the events, and tells unknown message ids apart without writing anything for them.

const sent = (address: string, messageId: string): SentReply => ({
  address, messageId, replyId: `in.${messageId}:0`, tenantId: 'club-norte', kind: 'reply', at: 1
})
const update: fc.Arbitrary<StatusUpdate> = fc.record({
  messageId: fc.constantFrom('wamid.a', 'wamid.b', 'wamid.unknown'),
  status: fc.constantFrom('sent' as const, 'delivered' as const, 'read' as const, 'failed' as const),
  at: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_050 }),
  errors: fc.array(fc.record({ code: fc.option(fc.constantFrom(131026, 131047), { nil: undefined }), title: fc.constantFrom('a', 'b') }), { maxLength: 1 }),
})

describe.each(['redis', 'cluster', 'memory'] as const)('receipt store (%s)', (kind) => {
  const store = contractStore(kind, (redis) => createReceiptStore(redis, { shards: 8, ttlMs: 60_000 }))

  it('records a sent reply once, and answers its receipt as accepted until a status comes', async () => {
    await store().recordSent(sent('5491100000001', 'wamid.1'))
    await store().recordSent({ ...sent('5491100000001', 'wamid.1'), replyId: 'other' })
    expect(await store().receiptsOfReplies('5491100000001', ['in.wamid.1:0', 'in.none:0'])).toEqual(new Map([['in.wamid.1:0', {}]]))
    const [applied] = await store().apply('5491100000001', [{ messageId: 'wamid.1', status: 'delivered', at: 5, errors: [] }])
    expect(applied).toEqual({
      messageId: 'wamid.1', known: true, sent: sent('5491100000001', 'wamid.1'), before: {}, after: { progress: 'delivered', progressAt: 5 }
    })
  })

  it('keeps what the merge keeps for any events in any batches; unknown ids are answered unknown and never stored', async () => {
    let n = 0
    await fc.assert(fc.asyncProperty(fc.array(fc.array(update, { maxLength: 5 }), { maxLength: 5 }), async (batches) => {
      const address = `AR.receipts${kind}${n++}`
      await store().recordSent(sent(address, 'wamid.a'))
      await store().recordSent(sent(address, 'wamid.b'))
      const expected = new Map([['wamid.a', {}], ['wamid.b', {}]])
      for (const batch of batches) {
        const applied = await store().apply(address, batch)
        expect(applied.map((a) => a.messageId)).toEqual([...new Set(batch.map((u) => u.messageId))])
        for (const a of applied) {
          if (a.messageId === 'wamid.unknown') {
            expect(a.known).toBe(false)
            continue
          }
          const before = expected.get(a.messageId) ?? {}
          const after = batch.filter((u) => u.messageId === a.messageId).reduce(mergeReceipt, before)
          expect(a).toMatchObject({ known: true, before, after })
          expected.set(a.messageId, after)
        }
      }
      expect(await store().receiptsOfReplies(address, ['in.wamid.a:0', 'in.wamid.b:0', 'in.wamid.unknown:0'])).toEqual(
        new Map([...expected].map(([id, r]) => [`in.${id}:0`, r]))
      )
    }), { numRuns: 25 })
  })
})

// A reply's id is kept under the period it was written in (a key per 30 days, each gone as long after its last
// reply as a receipt is kept), so that a phone that writes every day does not keep every reply id it was ever sent.
const DAY = 24 * 60 * 60_000
const TTL = 90 * DAY
const START = SENT_PERIOD_MS * 700
const DAYS = [0, 31, 62]

function periodsStore (kind: 'redis' | 'cluster' | 'memory') {
  const at = { clock: START, redis: null as RedisClient | null }
  const store = contractStore(kind, (r) => {
    at.redis = r
    return createReceiptStore(r, { shards: 8, ttlMs: TTL, now: () => at.clock })
  })
  /** Replies recorded on each of DAYS, asked on day 80. */
  const sendOnDays = async (address: string): Promise<Map<string, unknown>> => {
    for (const d of DAYS) {
      at.clock = START + d * DAY
      await store().recordSent({ ...sent(address, `wamid.d${d}`), at: at.clock })
    }
    at.clock = START + 80 * DAY
    return await store().receiptsOfReplies(address, [...DAYS.map((d) => `in.wamid.d${d}:0`), 'in.wamid.none:0'])
  }
  return { at, store, sendOnDays }
}

describe.each(['redis', 'cluster', 'memory'] as const)('reply ids by period (%s)', (kind) => {
  const { sendOnDays } = periodsStore(kind)
  it('answers the receipts of replies written in different periods, asked in a later one', async () => {
    expect(await sendOnDays(`AR.periods.${kind}`)).toEqual(new Map(DAYS.map((d) => [`in.wamid.d${d}:0`, {}])))
  })
})

describe.each(['redis', 'cluster'] as const)('reply ids by period, their keys (%s)', (kind) => {
  const { at, store, sendOnDays } = periodsStore(kind)
  it('keeps each period\'s ids under a key of its own, going as long after its last reply as the receipt does', async () => {
    const address = `AR.keys.${kind}`
    await sendOnDays(address)
    const r = at.redis as RedisClient
    const shard = shardOf(address, 8)
    for (const d of DAYS) {
      const key = keys.chat.bot.sentIds(shard, address, sentPeriod(START + d * DAY))
      expect(await r.hgetall(key)).toEqual({ [`in.wamid.d${d}:0`]: `wamid.d${d}` })
      expect(await r.pttl(key)).toBeGreaterThan(TTL - 60_000)
    }
  })

  it('still reads the reply ids kept before the periods, until they expire', async () => {
    const address = `AR.legacy.${kind}`
    at.clock = START
    await store().recordSent({ ...sent(address, 'wamid.old'), at: at.clock })
    const r = at.redis as RedisClient
    const shard = shardOf(address, 8)
    // the id moved to the one key of before, as an instance of the last version left it
    await r.del(keys.chat.bot.sentIds(shard, address, sentPeriod(START)))
    await r.hset(keys.chat.bot.legacySentIds(shard, address), 'in.wamid.old:0', 'wamid.old')
    expect(await store().receiptsOfReplies(address, ['in.wamid.old:0'])).toEqual(new Map([['in.wamid.old:0', {}]]))
  })
})
