import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_STANDING, type Standing, type Status } from '../../src/dispensing/standing.ts'
import { createMemberStore } from '../../src/dispensing/store/index.ts'
import { contractStore, type StoreKind } from '../helper.ts'

// The club's index of members by validUntil, kept by every standing write: the same answers on Redis, a cluster
// and memory; a member is in it while they have a validUntil and are pending or active.

const DAYS = ['1999-12-31', '2026-02-28', '2026-03-01', '2026-03-10', '2026-03-11', '2030-01-01']
const STATUS: Status[] = ['active', 'pending', 'lapsed', 'suspended', 'ended']

describe.each(['redis', 'cluster', 'memory'] as StoreKind[])('index by validUntil on %s', (kind) => {
  const store = contractStore(kind, createMemberStore)
  let club = 0

  const put = async (tenant: string, member: string, s: Partial<Standing>) => {
    const current = await store().getStanding(tenant, member)
    expect(
      await store().putStanding(tenant, member, { ...DEFAULT_STANDING, ...s, updatedAt: `${Number(current.updatedAt ?? 0) + 1}` }, current.updatedAt)
    ).toBe(true)
  }

  it('finds members between two days, both included, earliest first; a change moves them, no validUntil or a lapse drops them', async () => {
    const tenant = `club-index-${kind}`
    await put(tenant, 'cus_b', { validUntil: '2026-03-10' })
    await put(tenant, 'cus_a', { validUntil: '2026-03-01' })
    await put(tenant, 'cus_c', { validUntil: '2026-03-11' })
    await put(`${tenant}-other`, 'cus_a', { validUntil: '2026-03-05' })
    expect(await store().validUntilBetween(tenant, '2026-03-01', '2026-03-10')).toEqual([
      { memberId: 'cus_a', validUntil: '2026-03-01' }, { memberId: 'cus_b', validUntil: '2026-03-10' },
    ])
    await put(tenant, 'cus_a', { validUntil: '2027-01-01' })
    await put(tenant, 'cus_b', { validUntil: null })
    await put(tenant, 'cus_c', { validUntil: '2026-03-11', status: 'lapsed' })
    expect(await store().validUntilBetween(tenant, '0001-01-01', '2026-12-31')).toEqual([])
    expect(await store().validUntilBetween(tenant, '2027-01-01', '2027-01-01')).toEqual([{ memberId: 'cus_a', validUntil: '2027-01-01' }])
    // a refused write (stale version) changes nothing
    expect(await store().putStanding(tenant, 'cus_a', { ...DEFAULT_STANDING, validUntil: '2026-03-01', updatedAt: 'x' }, 'stale')).toBe(false)
    expect(await store().validUntilBetween(tenant, '2026-03-01', '2026-03-01')).toEqual([])
  })

  it('after any sequence of writes, a range answers exactly the last standings with a validUntil in it that await expiry', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(
        fc.record({ member: fc.integer({ min: 0, max: 3 }), day: fc.option(fc.constantFrom(...DAYS), { nil: null }), status: fc.constantFrom(...STATUS) }),
        { maxLength: 12 }
      ),
      fc.constantFrom(...DAYS), fc.constantFrom(...DAYS),
      async (writes, a, b) => {
        const tenant = `club-prop-${kind}-${club++}`
        const last = new Map<string, { day: string | null, status: Status }>()
        for (const w of writes) {
          await put(tenant, `cus_${w.member}`, { validUntil: w.day, status: w.status })
          last.set(`cus_${w.member}`, { day: w.day, status: w.status })
        }
        const [from, to] = a <= b ? [a, b] : [b, a]
        const expected = [...last].filter(([, s]) => s.day !== null && s.day >= from && s.day <= to && (s.status === 'active' || s.status === 'pending'))
          .map(([memberId, s]) => ({ memberId, validUntil: s.day as string }))
          .sort((x, y) => x.validUntil < y.validUntil ? -1 : x.validUntil > y.validUntil ? 1 : x.memberId < y.memberId ? -1 : 1)
        expect(await store().validUntilBetween(tenant, from, to)).toEqual(expected)
      }), { numRuns: 25 })
  })
})
