import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Actor } from '../../src/auth/actor.ts'
import { AppError } from '../../src/errors.ts'
import { entryId } from '../../src/dispensing/ledger/chain.ts'
import { LedgerService } from '../../src/dispensing/ledger/service.ts'
import { MemoryLedgerStore } from '../../src/dispensing/ledger/store/memory.ts'
import { DispensingService } from '../../src/dispensing/service.ts'
import { MemoryMemberStore } from '../../src/dispensing/store/memory.ts'
import { demoTenants } from '../../src/tenants/demo.ts'
import { PRESETS } from '../../src/tenants/rules.ts'
import { MemoryTenantStore } from '../../src/tenants/store.ts'
import { zonedDay } from '../../src/tenants/time.ts'

// Any sequence of orders placed, cancelled, handed over and reversed, for several members over several months of
// a Berlin club under de-kcang: no member's day or month ever holds more than its cap, what the quota counts as
// used is what the record holds, and the record always verifies; an edited or removed entry fails at that entry.

const tenant = { ...(demoTenants[1] as (typeof demoTenants)[number]), timeZone: 'Europe/Berlin', rules: PRESETS['de-kcang'] }
const admin: Actor = { sub: 'user_admin_sur', email: undefined, name: 'Admin Sur', role: 'admin', tenant }
const MEMBERS = ['cus_a', 'cus_b', 'cus_young']
const START = Date.parse('2026-01-30T21:00:00Z')

type Op =
  | { op: 'place', member: number, grams: number }
  | { op: 'cancel', order: number }
  | { op: 'handover', order: number }
  | { op: 'reverse', entry: number }
  | { op: 'wait', hours: number }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('place' as const), member: fc.integer({ min: 0, max: 2 }), grams: fc.constantFrom(1, 2.5, 5, 10, 20) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('cancel' as const), order: fc.nat(40) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('handover' as const), order: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('reverse' as const), entry: fc.nat(40) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('wait' as const), hours: fc.constantFrom(1, 5, 20, 24 * 9) }) }
)

function setUp () {
  let now = START
  const members = new MemoryMemberStore()
  const store = new MemoryLedgerStore()
  const dispensing = new DispensingService({ tenants: new MemoryTenantStore(), members, now: () => now })
  const ledger = new LedgerService(store, dispensing, () => now)
  return { dispensing, ledger, store, members, clock: { get: () => now, add: (ms: number) => { now += ms } } }
}

/** Refusals are the rules at work; anything else fails the property. */
async function refusedOr<T> (run: () => Promise<T>): Promise<T | undefined> {
  try {
    return await run()
  } catch (err) {
    if (err instanceof AppError && [403, 409, 404].includes(err.statusCode)) return undefined
    throw err
  }
}

describe('dispensing sequences (memory stores, the Berlin calendar)', () => {
  it('never lets a member\'s day or month hold more than its cap; used is what the record holds; the record verifies', async () => {
    await fc.assert(fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 60 }), async (ops) => {
      const { dispensing, ledger, members, clock } = setUp()
      await members.putStanding(tenant.id, 'cus_young', { ...await members.getStanding(tenant.id, 'cus_young'), birthDate: '2006-02-15', updatedAt: 'x' }, null)
      const orders: Array<{ id: string, member: string, grams: number, state: 'placed' | 'cancelled' | 'handed' }> = []
      for (const [n, op] of ops.entries()) {
        if (op.op === 'wait') clock.add(op.hours * 3_600_000)
        else if (op.op === 'place') {
          const member = MEMBERS[op.member] as string
          const id = `cart_${n}`
          let ok = true
          try {
            await dispensing.reserve(tenant, member, id, [{ quantity: 1, grams: op.grams, thcPercent: 8 }])
          } catch (err) {
            if (!(err instanceof AppError) || err.code !== 'LIMIT_EXCEEDED') throw err
            ok = false
          }
          if (ok) orders.push({ id, member, grams: op.grams, state: 'placed' })
        } else if (op.op === 'cancel') {
          const o = orders.filter((x) => x.state === 'placed')[op.order % Math.max(1, orders.length)]
          if (o) {
            await dispensing.release(tenant, o.member, o.id)
            o.state = 'cancelled'
          }
        } else if (op.op === 'handover') {
          const o = orders.filter((x) => x.state === 'placed')[op.order % Math.max(1, orders.length)]
          if (o) {
            const line = {
              orderId: o.id, lineId: 'l1', productId: 'prod_1', variantId: 'v1', product: 'Kush', quantity: 1, grams: o.grams, thcPercent: 8, cbdPercent: 1
            }
            const done = await refusedOr(async () =>
              await dispensing.finalize(tenant, o.member, o.id, [{ quantity: 1, grams: o.grams, thcPercent: 8 }], clock.get()))
            if (done) {
              await ledger.recordHandover(tenant, {
                orderId: o.id, at: clock.get(), memberId: o.member, memberName: o.member, memberBirthYear: null, staff: { id: 's', name: 'S' }, lines: [line]
              })
              o.state = 'handed'
            }
          }
        } else {
          const head = await ledger.verify(admin)
          if (head.entries > 0) await refusedOr(async () => await ledger.reverse(admin, entryId(1 + op.entry % head.entries), 'a mistake'))
        }
        // the invariants, after every step
        const today = zonedDay(clock.get(), tenant.timeZone)
        const { entries } = await ledger.list(admin, { limit: 10_000, offset: 0 })
        for (const member of MEMBERS) {
          const q = await dispensing.quotaOf(tenant, member)
          for (const p of q.periods) expect(p.used + p.reserved).toBeLessThanOrEqual(p.limit + 1e-9)
          const mine = entries.filter((e) => e.memberId === member)
          // grams still dispensed on a day: the day's entries (reversals count where their original counted)
          const originalDay = new Map(mine.filter((e) => e.kind === 'dispensation').map((e) => [e.id, e.day]))
          const dayOf = (e: (typeof mine)[number]): string => e.reverses ? originalDay.get(e.reverses) ?? e.day : e.day
          const onDay = mine.filter((e) => dayOf(e) === today).reduce((s, e) => s + e.grams, 0)
          const inMonth = mine.filter((e) => dayOf(e).slice(0, 7) === today.slice(0, 7)).reduce((s, e) => s + e.grams, 0)
          expect(onDay).toBeLessThanOrEqual(25 + 1e-9)
          expect(inMonth).toBeLessThanOrEqual((member === 'cus_young' && today < '2027-02-15' ? 30 : 50) + 1e-9)
          const used = (period: string) => q.periods.find((p) => p.period === period)?.used ?? 0
          expect(used('day')).toBeCloseTo(onDay, 6)
          expect(used('month')).toBeCloseTo(inMonth, 6)
        }
        expect((await ledger.verify(admin)).ok).toBe(true)
      }
    }), { numRuns: 60 })
  })

  it('an entry edited or removed afterwards makes verify fail at that entry', async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 2, max: 12 }), fc.nat(), fc.boolean(), async (count, pick, remove) => {
      const { ledger, store, clock } = setUp()
      for (let i = 0; i < count; i++) {
        clock.add(3_600_000)
        await ledger.recordHandover(tenant, {
          orderId: `order_${i}`,
          at: clock.get(),
          memberId: 'cus_a',
          memberName: 'A',
          memberBirthYear: 1990,
          staff: { id: 's', name: 'S' },
          lines: [{
            orderId: `order_${i}`, lineId: 'l1', productId: 'p', variantId: 'v', product: 'Kush', quantity: 1, grams: 1, thcPercent: 10, cbdPercent: 1
          }],
        })
      }
      expect(await ledger.verify(admin)).toMatchObject({ ok: true, entries: count })
      const seq = 1 + pick % count
      const [text] = await store.raw(tenant.id, seq, seq)
      store.tamper(tenant.id, seq, remove ? null : (text as string).replace('"grams":1,', '"grams":0.5,'))
      expect(await ledger.verify(admin)).toMatchObject({ ok: false, broken: { id: entryId(seq), problem: remove ? 'missing' : 'content' } })
    }))
  })
})
