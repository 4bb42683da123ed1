import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { mergeReceipt, shownStatus, type Receipt, type StatusUpdate } from '../../../src/chat/provider/receipts.ts'

// A receipt is the same whatever order the provider's events came in, and never goes back.

const update: fc.Arbitrary<StatusUpdate> = fc.record({
  messageId: fc.constant('wamid.1'),
  status: fc.constantFrom('sent' as const, 'delivered' as const, 'read' as const, 'failed' as const),
  at: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_100_000 }),
  errors: fc.array(fc.record({ code: fc.option(fc.constantFrom(131026, 131047, 131056, 131000), { nil: undefined }), title: fc.string({ maxLength: 20 }) }), {
    maxLength: 2
  }),
})
const fold = (updates: StatusUpdate[]): Receipt => updates.reduce(mergeReceipt, {})
const RANK = { accepted: 0, sent: 1, failed: 1, delivered: 2, read: 3 }

describe('receipts', () => {
  it('any order of the same events, and each event twice, give the same receipt', () => {
    fc.assert(
      fc.property(
        fc.array(update, { maxLength: 12 }).chain((u) => fc.tuple(fc.constant(u), fc.shuffledSubarray(u, { minLength: u.length, maxLength: u.length }))),
        ([updates, shuffled]) => {
          expect(fold(shuffled)).toEqual(fold(updates))
          expect(fold([...updates, ...shuffled])).toEqual(fold(updates))
        }
      )
    )
  })

  it('progress never goes back, a failure once seen stays, and delivered or read win over it', () => {
    fc.assert(fc.property(fc.array(update, { maxLength: 12 }), (updates) => {
      let receipt: Receipt = {}
      for (const u of updates) {
        const next = mergeReceipt(receipt, u)
        expect(RANK[next.progress ?? 'accepted']).toBeGreaterThanOrEqual(RANK[receipt.progress ?? 'accepted'])
        if (receipt.failure) expect(next.failure).toBeDefined()
        receipt = next
      }
      const furthest = updates.filter((u) => u.status !== 'failed').map((u) => RANK[u.status]).reduce((a, b) => Math.max(a, b), 0)
      expect(RANK[receipt.progress ?? 'accepted']).toBe(furthest)
      const failed = updates.some((u) => u.status === 'failed')
      expect(shownStatus(receipt)).toBe(furthest >= 2 ? receipt.progress : failed ? 'failed' : (receipt.progress ?? 'accepted'))
    }))
  })

  it('delivered after failed keeps the failure beside it; read before delivered stays read', () => {
    const failed: StatusUpdate = { messageId: 'm', status: 'failed', at: 2000, errors: [{ code: 131026, title: 'Message undeliverable' }] }
    const delivered: StatusUpdate = { messageId: 'm', status: 'delivered', at: 3000, errors: [] }
    const receipt = fold([failed, delivered])
    expect(receipt).toEqual({ progress: 'delivered', progressAt: 3000, failure: { at: 2000, code: 131026, title: 'Message undeliverable' } })
    expect(shownStatus(receipt)).toBe('delivered')
    expect(shownStatus(fold([{ ...delivered, status: 'read', at: 4000 }, delivered]))).toBe('read')
    expect(shownStatus(fold([{ ...delivered, status: 'sent' }, failed]))).toBe('failed')
    expect(shownStatus({})).toBe('accepted')
  })
})
