import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryPace, PaceGate, RedisPace, type Pace, type Slot } from '../../src/chat/outbound/pace.ts'
import type { RedisClient } from '../../src/stores/redis-client.ts'
import { keys } from '../../src/stores/keys.ts'
import { storeRedis } from '../helper.ts'

// The provider's pace: the same rule in memory and in the Redis script (fed the same fake clock through ARGV);
// never more than `rate` + 1 sends in any second (the one-interval tolerance), nothing before a hold ends, a
// wait that is exact (asking again after it succeeds) and no wait when nothing stands in front; one schedule per
// number. The gate: one instance's waiters ask one at a time, in order, and a far turn gives the phone back.

const NUMBERS = ['100000000000001', '100000000000002'] as const

type Op = { kind: 'take', number: number } | { kind: 'hold', number: number, ms: number } | { kind: 'wait', ms: number }
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('take' as const), number: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('hold' as const), number: fc.nat(1), ms: fc.integer({ min: 0, max: 5_000 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 3_000 })) }) }
)
const rateArb = fc.oneof(fc.integer({ min: 1, max: 1_000 }), fc.constantFrom(3, 20, 80, 128))

interface Seen { sends: number[], heldUntil: number, promised: number | undefined }

describe('the provider\'s pace', () => {
  let redis: RedisClient
  let cleanup: () => Promise<void>
  beforeAll(async () => { ({ redis, cleanup } = await storeRedis('redis') as { redis: RedisClient, cleanup: () => Promise<void> }) })
  afterAll(async () => { await cleanup() })

  it('follows one rule in memory and in Redis: at most `rate` + 1 a second, holds kept, waits exact and never needless', async () => {
    let run = 0
    await fc.assert(fc.asyncProperty(rateArb, fc.integer({ min: 1e12, max: 2e12 }), fc.array(opArb, { maxLength: 80 }), async (rate, start, ops) => {
      let now = start
      const clock = () => now
      // numbers of their own per run: the runs share the Redis
      const numbers = NUMBERS.map((n) => `${n}-${++run}`)
      const paces: Pace[] = [new MemoryPace(rate, clock), new RedisPace(redis, rate, clock)]
      const seen: Seen[] = numbers.map(() => ({ sends: [], heldUntil: 0, promised: undefined }))
      for (const op of ops) {
        if (op.kind === 'wait') {
          now += op.ms
          continue
        }
        const number = numbers[op.number] as string
        const mine = seen[op.number] as Seen
        if (op.kind === 'hold') {
          for (const pace of paces) await pace.hold(number, op.ms)
          mine.heldUntil = Math.max(mine.heldUntil, now + op.ms)
          mine.promised = undefined
          continue
        }
        const [memory, onRedis] = await Promise.all(paces.map(async (pace) => await pace.take(number))) as [Slot, Slot]
        expect(onRedis).toEqual(memory)
        const last = mine.sends.at(-1)
        // nothing in front of it (the last send two intervals ago, no hold): it goes at once
        const free = (last === undefined || last + 2000 / rate <= now) && mine.heldUntil <= now
        // told to wait, it gets its turn by asking again after that long
        const due = mine.promised !== undefined && mine.promised <= now
        if (free || due) expect(memory).toEqual({ kind: 'now' })
        if (memory.kind === 'wait') {
          expect(memory.inMs).toBeGreaterThanOrEqual(1)
          mine.promised = now + memory.inMs
          continue
        }
        expect(now).toBeGreaterThanOrEqual(mine.heldUntil)
        mine.sends.push(now)
        mine.promised = undefined
      }
      for (const { sends } of seen) {
        for (const from of sends) expect(sends.filter((t) => t >= from && t < from + 1000).length).toBeLessThanOrEqual(rate + 1)
      }
    }), { numRuns: 500 })
  })

  it('lets one instance\'s waiters ask one at a time, in order; a far turn (a hold) gives the phone back', async () => {
    const number = `${NUMBERS[0]}-gate`
    const pace = new RedisPace(redis, 10)
    const asked: number[] = []
    const counting: Pace = { take: async (n) => { asked.push(Date.now()); return await pace.take(n) }, hold: async (n, ms) => { await pace.hold(n, ms) } }
    const gate = new PaceGate(counting, 1_000)
    const stopping = new AbortController()
    const order: number[] = []
    await Promise.all(Array.from({ length: 5 }, async (_, i) => { expect(await gate.turn(number, stopping.signal)).toEqual({ kind: 'go' }); order.push(i) }))
    expect(order).toEqual([0, 1, 2, 3, 4])
    // each waiter asked, slept as told, and asked once more: no crowd asking together
    expect(asked.length).toBeLessThanOrEqual(2 * 5)
    await pace.hold(number, 60_000)
    expect(await gate.turn(number, stopping.signal)).toMatchObject({ kind: 'later', inMs: expect.any(Number) })
    const other = `${NUMBERS[1]}-gate`
    expect(await gate.turn(other, stopping.signal)).toEqual({ kind: 'go' })
    stopping.abort()
    await expect(gate.turn(other, stopping.signal)).rejects.toThrow()
  })

  it('keeps one schedule per business number: a held or busy number does not slow another', async () => {
    const [busy, other] = [`${NUMBERS[0]}-busy`, `${NUMBERS[1]}-free`]
    const pace = new RedisPace(redis, 2)
    expect(await pace.take(busy)).toEqual({ kind: 'now' })
    expect(await pace.take(busy)).toEqual({ kind: 'now' })
    expect(await pace.take(busy)).toMatchObject({ kind: 'wait' })
    await pace.hold(busy, 60_000)
    const held = await pace.take(busy)
    expect(held.kind === 'wait' && held.inMs > 59_000).toBe(true)
    expect(await pace.take(other)).toEqual({ kind: 'now' })
    // each number is one key under its own hash tag, gone a minute after its schedule is past
    const ttl = await redis.pttl(keys.chat.pace(busy))
    expect(ttl).toBeGreaterThan(110_000)
    expect(ttl).toBeLessThanOrEqual(121_000)
    expect(keys.chat.pace(busy)).toMatch(/^\{chat-pace:[^}]+\}$/)
  })

  it('runs on Redis\' clock when given none, shared by every instance', async () => {
    const number = `${NUMBERS[0]}-clock`
    const other = redis.duplicate()
    try {
      const [a, b] = [new RedisPace(redis, 1), new RedisPace(other, 1)]
      expect(await a.take(number)).toEqual({ kind: 'now' })
      const second = await b.take(number)
      // one a second, one interval of tolerance: the second goes at once, the third in about a second
      expect(second).toEqual({ kind: 'now' })
      const third = await a.take(number)
      expect(third.kind === 'wait' && third.inMs > 800 && third.inMs <= 1000).toBe(true)
    } finally {
      other.disconnect()
    }
  })
})
