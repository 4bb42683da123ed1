import { randomUUID } from 'node:crypto'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chain, type EntryContent, type LedgerEntry } from '../../src/dispensing/ledger/chain.ts'
import { createLedgerStore, type LedgerStore } from '../../src/dispensing/ledger/store/index.ts'
import { keys } from '../../src/stores/keys.ts'
import type { RedisClient } from '../../src/stores/redis-client.ts'
import { storeRedis } from '../helper.ts'

// The record's list is filtered (member, product, time range) and paged by the store: the same answers on Redis,
// on the three-master cluster and in memory as a plain filter over every entry, also after retention removed the
// front; entries written before the member and product indexes existed are found once they are read.

const T0 = Date.parse('2026-03-01T10:00:00.000Z')
const HOUR = 3_600_000
const MEMBERS = ['cus_a', 'cus_b', 'cus_c']
const PRODUCTS = ['prod_x', 'prod_y', null]

const content = (memberId: string, productId: string | null, ms: number, n: number): EntryContent => ({
  kind: 'dispensation',
  at: new Date(ms).toISOString(),
  day: new Date(ms).toISOString().slice(0, 10),
  orderId: `order_${n}`,
  lineId: `line_${n}`,
  memberId,
  memberName: memberId,
  memberBirthYear: null,
  productId,
  variantId: null,
  product: productId ?? 'papers',
  quantity: 1,
  grams: 1,
  thcPercent: null,
  cbdPercent: null,
  batches: [],
  staff: { id: 'user_admin', name: 'Admin' },
  reverses: null,
  reason: null,
})

/** Appends each batch as one handover (one member, several lines), in order. */
async function write (store: LedgerStore, tenant: string, batches: Array<Array<{ member: number, product: number, hours: number }>>): Promise<LedgerEntry[]> {
  const all: LedgerEntry[] = []
  for (const [b, lines] of batches.entries()) {
    const head = await store.head(tenant)
    const member = MEMBERS[lines[0]?.member ?? 0] as string
    const entries = chain(head.seq, head.hash, lines.map((l, i) => content(member, PRODUCTS[l.product] ?? null, T0 + l.hours * HOUR, b * 100 + i)))
    expect(await store.append(tenant, head.seq, entries, { orderId: `order_${b}` })).toBe('ok')
    all.push(...entries)
  }
  return all
}

const batchesArb = fc.array(fc.array(fc.record({ member: fc.nat(2), product: fc.nat(2), hours: fc.nat(24 * 60) }), { minLength: 1, maxLength: 3 }), {
  maxLength: 12
})
const queryArb = fc.record({
  member: fc.option(fc.nat(2), { nil: undefined }),
  product: fc.option(fc.nat(1), { nil: undefined }),
  from: fc.option(fc.nat(24 * 60), { nil: undefined }),
  span: fc.option(fc.nat(24 * 60), { nil: undefined }),
  offset: fc.nat(10),
  limit: fc.integer({ min: 1, max: 10 }),
})

describe.each(['redis', 'cluster', 'memory'] as const)('dispensing record store: list filtered and paged by the store (%s)', (kind) => {
  let store: LedgerStore
  let cleanup = async (): Promise<void> => {}
  beforeAll(async () => {
    const r = await storeRedis(kind)
    store = createLedgerStore(r?.redis ?? null)
    if (r) cleanup = r.cleanup
  })
  afterAll(async () => { await cleanup() })

  it('answers what a filter over every entry answers, before and after retention removed the front', async () => {
    await fc.assert(fc.asyncProperty(batchesArb, fc.array(queryArb, { minLength: 1, maxLength: 4 }), fc.nat(24 * 60), async (batches, queries, cut) => {
      const tenant = `club-${randomUUID()}`
      let kept = await write(store, tenant, batches)
      const check = async () => {
        for (const q of queries) {
          const query = {
            memberId: q.member === undefined ? undefined : MEMBERS[q.member],
            productId: q.product === undefined ? undefined : PRODUCTS[q.product] ?? undefined,
            fromMs: q.from === undefined ? 0 : T0 + q.from * HOUR,
            toMs: q.span === undefined ? Number.MAX_SAFE_INTEGER : T0 + ((q.from ?? 0) + q.span) * HOUR,
            offset: q.offset,
            limit: q.limit,
          }
          const all = kept.filter((e) => (!query.memberId || e.memberId === query.memberId) && (!query.productId || e.productId === query.productId) &&
            Date.parse(e.at) >= query.fromMs && Date.parse(e.at) < query.toMs)
          const page = await store.page(tenant, query)
          expect(page.count).toBe(all.length)
          expect(page.entries.map((e) => e.seq)).toEqual(all.slice(query.offset, query.offset + query.limit).map((e) => e.seq))
        }
      }
      await check()
      // retention removes from the front while entries are older than the cut
      const beforeMs = T0 + cut * HOUR
      const removed = await store.removeBefore(tenant, beforeMs, 1000)
      const front = kept.findIndex((e) => Date.parse(e.at) >= beforeMs)
      expect(removed).toBe(front < 0 ? kept.length : front)
      kept = kept.slice(removed)
      await check()
    }), { numRuns: kind === 'memory' ? 100 : 25 })
  })
})

describe.each(['redis', 'cluster'] as const)('dispensing record store: entries from before the indexes (%s)', (kind) => {
  let store: LedgerStore
  let redis: RedisClient | undefined
  let cleanup = async (): Promise<void> => {}
  beforeAll(async () => {
    const r = await storeRedis(kind)
    redis = r?.redis
    store = createLedgerStore(r?.redis ?? null)
    if (r) cleanup = r.cleanup
  })
  afterAll(async () => { await cleanup() })

  it('finds entries written before the member and product indexes existed', async () => {
    const tenant = `club-${randomUUID()}`
    const written = await write(store, tenant, [
      [{ member: 0, product: 0, hours: 1 }], [{ member: 1, product: 1, hours: 2 }, { member: 1, product: 0, hours: 2 }]
    ])
    // as an older release left them: no index, no `indexed` mark
    for (const id of ['cus_a', 'cus_b']) await redis?.del(keys.dispensing.ledgerIndex(tenant, 'member', id))
    for (const id of ['prod_x', 'prod_y']) await redis?.del(keys.dispensing.ledgerIndex(tenant, 'product', id))
    const page = await store.page(tenant, { productId: 'prod_x', fromMs: 0, toMs: Number.MAX_SAFE_INTEGER, offset: 0, limit: 10 })
    expect(page).toEqual({ entries: [written[0], written[2]], count: 2 })
    expect((await store.page(tenant, { memberId: 'cus_b', fromMs: 0, toMs: Number.MAX_SAFE_INTEGER, offset: 1, limit: 10 })).entries).toEqual([written[2]])
  })
})
