import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryPace, RedisPace, type Pace, type PaceRule, type Slot } from '../../src/chat/outbound/pace.ts'
import type { RedisClient } from '../../src/plugins/redis.ts'
import { keys } from '../../src/stores/keys.ts'
import { storeRedis } from '../helper.ts'

// The provider's pace: the same rule in memory and in the Redis script (fed the same fake clock through ARGV),
// never more than `rate` sends in any second, never a slot before a hold ends, never waiting longer than
// `maxWaitMs` in hand, never holding back a send that nothing stands in front of, and one schedule per number.

const NUMBERS = ['100000000000001', '100000000000002'] as const

type Op = { kind: 'take', number: number } | { kind: 'hold', number: number, ms: number } | { kind: 'wait', ms: number }
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('take' as const), number: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('hold' as const), number: fc.nat(1), ms: fc.integer({ min: 0, max: 5_000 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 3_000 })) }) }
)
const ruleArb: fc.Arbitrary<PaceRule> = fc.record({ rate: fc.oneof(fc.integer({ min: 1, max: 1_000 }), fc.constantFrom(3, 20, 80, 128)), maxWaitMs: fc.integer({ min: 0, max: 2_000 }) })

describe('the provider\'s pace', () => {
  let redis: RedisClient
  let cleanup: () => Promise<void>
  beforeAll(async () => { ({ redis, cleanup } = await storeRedis('redis') as { redis: RedisClient, cleanup: () => Promise<void> }) })
  afterAll(async () => { await cleanup() })

  it('follows one rule in memory and in Redis: at most `rate` a second, holds kept, no needless wait', async () => {
    let run = 0
    await fc.assert(fc.asyncProperty(ruleArb, fc.integer({ min: 1e12, max: 2e12 }), fc.array(opArb, { maxLength: 80 }), async (rule, start, ops) => {
      let now = start
      const clock = () => now
      // a number of its own per run: the runs share the Redis
      const numbers = NUMBERS.map((n) => `${n}-${++run}`)
      const paces: Pace[] = [new MemoryPace(rule, clock), new RedisPace(redis, rule, clock)]
      const sends: number[][] = numbers.map(() => [])
      const heldUntil = numbers.map(() => 0)
      for (const op of ops) {
        if (op.kind === 'wait') {
          now += op.ms
          continue
        }
        const number = numbers[op.number] as string
        if (op.kind === 'hold') {
          for (const pace of paces) await pace.hold(number, op.ms)
          heldUntil[op.number] = Math.max(heldUntil[op.number] as number, now + op.ms)
          continue
        }
        const [memory, onRedis] = await Promise.all(paces.map(async (pace) => await pace.take(number))) as [Slot, Slot]
        expect(onRedis).toEqual(memory)
        const mine = sends[op.number] as number[]
        const last = mine.at(-1)
        // nothing in front of it (the number's last send a slot ago, no hold): it goes at once
        if ((last === undefined || last + 1000 / rule.rate <= now) && (heldUntil[op.number] as number) <= now) expect(memory).toEqual({ kind: 'reserved', inMs: 0 })
        if (memory.kind === 'later') {
          expect(memory.inMs).toBeGreaterThanOrEqual(1)
          continue
        }
        expect(memory.inMs).toBeLessThanOrEqual(rule.maxWaitMs)
        expect(now + memory.inMs).toBeGreaterThanOrEqual(heldUntil[op.number] as number)
        mine.push(now + memory.inMs)
      }
      for (const mine of sends) {
        const sorted = [...mine].sort((x, y) => x - y)
        for (let i = 0; i < sorted.length; i++) {
          const from = sorted[i] as number
          expect(sorted.filter((t) => t >= from && t < from + 1000).length).toBeLessThanOrEqual(rule.rate)
        }
      }
    }), { numRuns: 500 })
  })

  it('keeps one schedule per business number: a held or busy number does not slow another', async () => {
    const rule = { rate: 2, maxWaitMs: 1_000 }
    const [busy, other] = [`${NUMBERS[0]}-busy`, `${NUMBERS[1]}-free`]
    const pace = new RedisPace(redis, rule)
    expect(await pace.take(busy)).toEqual({ kind: 'reserved', inMs: 0 })
    expect(await pace.take(busy)).toMatchObject({ kind: 'reserved', inMs: expect.any(Number) })
    await pace.hold(busy, 60_000)
    expect(await pace.take(busy)).toMatchObject({ kind: 'later', inMs: expect.any(Number) })
    expect((await pace.take(busy)).inMs).toBeGreaterThan(50_000)
    expect(await pace.take(other)).toEqual({ kind: 'reserved', inMs: 0 })
    // each number is one key under its own hash tag, gone once its schedule is past
    const ttl = await redis.pttl(keys.chat.pace(busy))
    expect(ttl).toBeGreaterThan(50_000)
    expect(ttl).toBeLessThanOrEqual(121_000)
    expect(keys.chat.pace(busy)).toMatch(/^\{chat-pace:[^}]+\}$/)
  })

  it('runs on Redis\' clock when given none, shared by every instance', async () => {
    const number = `${NUMBERS[0]}-clock`
    const [a, b] = [new RedisPace(redis, { rate: 1, maxWaitMs: 1_500 }), new RedisPace(redis.duplicate(), { rate: 1, maxWaitMs: 1_500 })]
    expect(await a.take(number)).toEqual({ kind: 'reserved', inMs: 0 })
    const second = await b.take(number)
    expect(second.kind).toBe('reserved')
    expect(second.inMs).toBeGreaterThan(900)
    expect(await a.take(number)).toMatchObject({ kind: 'later' })
  })
})
