import fc from 'fast-check'
import pino from 'pino'
import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { ReceiptPath, receiptMetrics } from '../../../src/chat/receipts/path.ts'
import { createReceiptStore, type ReceiptStore, type SentReply } from '../../../src/chat/receipts/index.ts'
import type { Failure, StatusUpdate } from '../../../src/chat/provider/receipts.ts'

// The receipts' own path: counts by status and club, unknown ids counted and dropped, one follow-up per reply
// that turns failed, a bound on what waits, and a retry when the store fails.

const A = '5491100000001'
const reply = (messageId: string, tenantId = 'club-norte'): SentReply => ({
  address: A, messageId, replyId: `r.${messageId}`, tenantId, kind: 'update', update: 'order_ready_pickup', at: 1
})
const u = (messageId: string, status: StatusUpdate['status'], at: number, code?: number): StatusUpdate =>
  ({ messageId, status, at, errors: status === 'failed' ? [{ code, title: 'Message undeliverable' }] : [] })

function setup (store: ReceiptStore = createReceiptStore(null, { shards: 4, ttlMs: 60_000 }), maxPending = 100) {
  const registry = new Registry()
  const failed: Array<[SentReply, Failure]> = []
  const path = new ReceiptPath(store, {
    concurrency: 2,
    maxPending,
    metrics: receiptMetrics(registry),
    log: pino({ level: 'silent' }),
    failed: async (sent, failure) => { failed.push([sent, failure]) },
    retryMs: 10,
  })
  const metric = async (name: string) => (await registry.getMetricsAsJSON()).find((m) => m.name === name)?.values.map((v) => [v.labels, v.value])
  return { store, path, failed, metric }
}

describe('receipt path', () => {
  it('counts shown statuses by club, drops unknown ids, and follows up a failure once even when delivered comes after', async () => {
    const { store, path, failed, metric } = setup()
    await store.recordSent(reply('w1'))
    await store.recordSent(reply('w2', 'club-sur'))
    expect(path.offer(A, [u('w1', 'sent', 1), u('w1', 'failed', 2, 131026), u('nope', 'read', 3)])).toBe(true)
    expect(path.offer(A, [u('w1', 'failed', 2, 131026), u('w2', 'read', 4)])).toBe(true)
    await path.drained()
    expect(path.offer(A, [u('w1', 'delivered', 5)])).toBe(true)
    await path.drained()
    expect(failed).toEqual([[reply('w1'), { at: 2, code: 131026, title: 'Message undeliverable' }]])
    expect(await metric('club_chat_reply_statuses_unknown_total')).toEqual([[{}, 1]])
    expect(await metric('club_chat_reply_statuses_total')).toEqual(expect.arrayContaining([
      [{ status: 'failed', club: 'club-norte' }, 1],
      [{ status: 'delivered', club: 'club-norte' }, 1],
      [{ status: 'read', club: 'club-sur' }, 1],
    ]))
    expect(await store.receiptsOfReplies(A, ['r.w1'])).toEqual(
      new Map([['r.w1', { progress: 'delivered', progressAt: 5, failure: { at: 2, code: 131026, title: 'Message undeliverable' } }]])
    )
  })

  it('refuses beyond its bound, so that the webhook can answer 503', async () => {
    const { path } = setup(undefined, 3)
    expect(path.offer(A, [u('x', 'sent', 1), u('x', 'sent', 1), u('x', 'sent', 1), u('x', 'sent', 1)])).toBe(false)
    expect(path.offer(A, [u('x', 'sent', 1), u('x', 'sent', 1), u('x', 'sent', 1)])).toBe(true)
    await path.drained()
  })

  it('tries a batch again when the store fails, and applies it once the store answers', async () => {
    const inner = createReceiptStore(null, { shards: 4, ttlMs: 60_000 })
    let failures = 2
    const flaky: ReceiptStore = {
      recordSent: async (r) => { await inner.recordSent(r) },
      receiptsOfReplies: async (a, ids) => await inner.receiptsOfReplies(a, ids),
      apply: async (a, list) => {
        if (failures-- > 0) throw new Error('Connection is closed.')
        return await inner.apply(a, list)
      },
    }
    const { path } = setup(flaky)
    await inner.recordSent(reply('w9'))
    path.offer(A, [u('w9', 'read', 7)])
    await path.drained()
    expect(await inner.receiptsOfReplies(A, ['r.w9'])).toEqual(new Map([['r.w9', { progress: 'read', progressAt: 7 }]]))
  })

  it('statuses in any order and split into any offers end in the one result, none lost', async () => {
    const ids = ['p1', 'p2', 'p3']
    const update = fc.record({
      id: fc.constantFrom(...ids),
      status: fc.constantFrom('sent', 'delivered', 'read', 'failed') as fc.Arbitrary<StatusUpdate['status']>,
      at: fc.integer({ min: 2, max: 50 })
    })
      .map(({ id, status, at }) => u(id, status, at, 131026))
    await fc.assert(
      fc.asyncProperty(fc.array(update, { minLength: 1, maxLength: 12 }), fc.array(fc.nat(3), { minLength: 12, maxLength: 12 }), async (updates, cuts) => {
        const expected = createReceiptStore(null, { shards: 4, ttlMs: 60_000 })
        for (const id of ids) await expected.recordSent(reply(id))
        for (const x of [...updates].sort((a, b) => a.at - b.at)) await expected.apply(A, [x])
        const { store, path } = setup()
        for (const id of ids) await store.recordSent(reply(id))
        const reversed = [...updates].reverse()
        for (let i = 0, c = 0; i < reversed.length; c++) {
          const size = 1 + (cuts[c] ?? 0)
          expect(path.offer(A, reversed.slice(i, i + size))).toBe(true)
          i += size
        }
        await path.drained()
        const replyIds = ids.map((id) => `r.${id}`)
        expect(await store.receiptsOfReplies(A, replyIds)).toEqual(await expected.receiptsOfReplies(A, replyIds))
      }),
      { numRuns: 40 }
    )
  })
})
