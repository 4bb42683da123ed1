import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createReceiptStore, type SentReply } from '../../../src/chat/receipts/index.ts'
import { mergeReceipt, type StatusUpdate } from '../../../src/chat/provider/receipts.ts'
import { contractStore } from '../../helper.ts'

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
