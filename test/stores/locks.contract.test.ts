import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AppError } from '../../src/errors.ts'
import { MemoryLocks, RedisLocks, type LockHold, type Locks } from '../../src/stores/locks.ts'
import { testRedis, testRedisCluster } from '../helper.ts'

// Two "instances": on Redis, two clients of one server; in memory, one process, so the same object twice.
type Backend = () => Promise<{ a: Locks, b: Locks, cleanup: () => Promise<void> }>
const onRedis = (open: typeof testRedis | typeof testRedisCluster): Backend => async () => {
  const r = await open()
  const other = r.redis.duplicate()
  return { a: new RedisLocks(r.redis), b: new RedisLocks(other), cleanup: async () => { other.disconnect(); await r.cleanup() } }
}
const backends: Array<[string, Backend]> = [
  ['redis', onRedis(testRedis)],
  ['cluster', onRedis(testRedisCluster)],
  ['memory', async () => {
    const locks = new MemoryLocks()
    return { a: locks, b: locks, cleanup: async () => {} }
  }],
]

describe.each(backends)('locks (%s)', (_name, make) => {
  let a: Locks
  let b: Locks
  let cleanup: () => Promise<void>
  beforeAll(async () => { ({ a, b, cleanup } = await make()) })
  afterAll(async () => { await cleanup() })

  it('runs read-change-write jobs on one key one at a time, whichever instance they come from', async () => {
    let value = 0
    const bump = async () => {
      const read = value
      await sleep(2)
      value = read + 1
    }
    await Promise.all(Array.from({ length: 20 }, async (_, i) => await (i % 2 ? a : b).withLock('counter', { ttlMs: 5_000, waitMs: 10_000 }, bump)))
    expect(value).toBe(20)
  })

  it('does not hold other keys back', async () => {
    const order: string[] = []
    await Promise.all([
      a.withLock('slow', { ttlMs: 5_000, waitMs: 5_000 }, async () => { await sleep(100); order.push('slow') }),
      b.withLock('fast', { ttlMs: 5_000, waitMs: 5_000 }, async () => { order.push('fast') }),
    ])
    expect(order).toEqual(['fast', 'slow'])
  })

  it('tryLock skips a job while the key is held, and runs it once free', async () => {
    let release!: () => void
    let started!: () => void
    const running = new Promise<void>((resolve) => { started = resolve })
    const held = a.withLock('job', { ttlMs: 5_000 }, async () => {
      started()
      await new Promise<void>((resolve) => { release = resolve })
    })
    await running
    expect(await b.tryLock('job', 5_000, async () => 'ran')).toEqual({ ran: false })
    release()
    await held
    expect(await b.tryLock('job', 5_000, async () => 'ran')).toEqual({ ran: true, result: 'ran' })
  })

  it('frees the key when the job throws', async () => {
    await expect(a.withLock('boom', { ttlMs: 5_000 }, async () => { throw new Error('boom') })).rejects.toThrow('boom')
    expect(await b.tryLock('boom', 5_000, async () => 1)).toEqual({ ran: true, result: 1 })
  })

  it('runs a job between a hold\'s take and its give of the same token, handing it what was taken, given back when it throws', async () => {
    const calls: string[] = []
    const tokens: string[] = []
    const hold: LockHold<string> = {
      take: async (token, ttlMs) => { calls.push(`take ${ttlMs}`); tokens.push(token); return 'taken' },
      give: async (token) => { calls.push('give'); tokens.push(token) },
    }
    expect(await a.withHold('hold', { ttlMs: 5_000 }, hold, async (taken) => { calls.push(`job ${taken}`); return 1 })).toBe(1)
    await expect(b.tryHold('hold', 4_000, hold, async () => { calls.push('job'); throw new Error('boom') })).rejects.toThrow('boom')
    expect(calls).toEqual(['take 5000', 'job taken', 'give', 'take 4000', 'job', 'give'])
    expect([tokens[0] === tokens[1], tokens[2] === tokens[3], tokens[0] === tokens[2]]).toEqual([true, true, false])
  })
})

describe('locks across instances (redis)', () => {
  it('gives up with 409 CONFLICT when the key stays taken past the wait, and a dead holder\'s lock expires', async () => {
    const r = await testRedis()
    try {
      // a holder that died: its key stays until the expiry
      await r.redis.set('dead-holder', 'someone', 'PX', 300)
      const locks = new RedisLocks(r.redis)
      const err = await locks.withLock('dead-holder', { ttlMs: 5_000, waitMs: 50 }, async () => 'never').catch((e: unknown) => e)
      expect(err).toBeInstanceOf(AppError)
      expect((err as AppError).statusCode).toBe(409)
      expect(await locks.withLock('dead-holder', { ttlMs: 5_000, waitMs: 2_000 }, async () => 'after expiry')).toBe('after expiry')
      // released: only the holder's own token is deleted
      expect(await r.redis.exists('dead-holder')).toBe(0)
    } finally {
      await r.cleanup()
    }
  })

  it('waits on a hold refused as on a taken key, gives up with 409 past the wait, and tryHold skips it without giving back', async () => {
    const r = await testRedis()
    try {
      const locks = new RedisLocks(r.redis)
      let refusals = 2
      const given: string[] = []
      const hold: LockHold<number> = {
        take: async () => refusals-- > 0 ? undefined : 7,
        give: async (token) => { given.push(token) },
      }
      expect(await locks.withHold('held', { ttlMs: 5_000, waitMs: 2_000 }, hold, async (taken) => taken)).toBe(7)
      expect([refusals, given.length]).toEqual([-1, 1])
      const refused: LockHold<number> = { take: async () => undefined, give: async (token) => { given.push(token) } }
      const err = await locks.withHold('held', { ttlMs: 5_000, waitMs: 50 }, refused, async () => 'never').catch((e: unknown) => e)
      expect((err as AppError).statusCode).toBe(409)
      expect(await locks.tryHold('held', 5_000, refused, async () => 'never')).toEqual({ ran: false })
      expect(given.length).toBe(1)
    } finally {
      await r.cleanup()
    }
  })
})
