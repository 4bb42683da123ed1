import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLocks, type Locks } from '../../src/stores/locks.ts'
import { keys } from '../../src/stores/keys.ts'
import type { RedisClient } from '../../src/stores/redis-client.ts'
import { createUnsettledStore, type Unsettled, type UnsettledStore } from '../../src/orders/unsettled.ts'
import { testRedis, testRedisCluster } from '../helper.ts'

// The unsettled completions and the completion lock taken and given back with them (src/orders/unsettled.ts), on
// memory, one Redis and a cluster: what the request (completing) and the sweep (settling) see, whichever store.

const CLUB = 'club-norte'
const entry = (cartId: string, at = 1_000): Unsettled => ({
  cartId, memberId: 'cus_ana', holdId: cartId, by: { sub: 'cus_ana', email: 'ana@example.com', name: 'Ana', role: 'member' }, at
})
const lock = (cartId: string): string => keys.orders.completionLock(CLUB, cartId)
const TTL = { ttlMs: 5_000, waitMs: 0 }

type Backend = () => Promise<{ redis: RedisClient | null, cleanup: () => Promise<void> }>
const backends: Array<[string, Backend]> = [
  ['redis', testRedis],
  ['cluster', testRedisCluster],
  ['memory', async () => ({ redis: null, cleanup: async () => {} })],
]

describe.each(backends)('unsettled completions (%s)', (_name, make) => {
  let store: UnsettledStore
  let locks: Locks
  let cleanup: () => Promise<void>
  beforeAll(async () => {
    const made = await make()
    store = createUnsettledStore(made.redis)
    locks = createLocks(made.redis)
    cleanup = made.cleanup
  })
  afterAll(async () => { await cleanup() })

  it('notes a completion with its lock, keeps an earlier attempt\'s note, and forgets it with the lock once settled', async () => {
    const first = await locks.withHold(lock('cart_1'), TTL, store.completing(CLUB, entry('cart_1'), () => false), async (taken) => taken)
    expect(first).toEqual({ earlier: false })
    expect(await store.olderThan(CLUB, 2_000)).toEqual([entry('cart_1')])
    // a second attempt finds the first one's note (it was interrupted) and keeps it as it was
    const second = await locks.withHold(lock('cart_1'), TTL, store.completing(CLUB, entry('cart_1', 1_500), () => true), async (taken) => taken)
    expect(second).toEqual({ earlier: true })
    expect(await store.olderThan(CLUB, 2_000)).toEqual([])
    // the lock was given back: the next one takes it at once
    expect(await locks.tryHold(lock('cart_1'), 5_000, store.settling(CLUB, 'cart_1', () => false), async (taken) => taken))
      .toEqual({ ran: true, result: { entry: undefined } })
  })

  it('hands the sweep the note with the lock, and forgets it only when the sweep settled it', async () => {
    await store.note(CLUB, entry('cart_2'))
    const kept = await locks.tryHold(lock('cart_2'), 5_000, store.settling(CLUB, 'cart_2', () => false), async (taken) => taken)
    expect(kept).toEqual({ ran: true, result: { entry: entry('cart_2') } })
    expect(await store.olderThan(CLUB, 2_000)).toEqual([entry('cart_2')])
    await locks.tryHold(lock('cart_2'), 5_000, store.settling(CLUB, 'cart_2', () => true), async () => 'settled')
    expect(await store.olderThan(CLUB, 2_000)).toEqual([])
  })

  it('lists only the notes older than asked', async () => {
    await store.note(CLUB, entry('cart_3', 1_000))
    await store.note(CLUB, entry('cart_4', 3_000))
    expect((await store.olderThan(CLUB, 2_000)).map((e) => e.cartId)).toEqual(['cart_3'])
    await Promise.all(['cart_3', 'cart_4'].map(async (cartId) => { await store.forget(CLUB, cartId) }))
  })
})

describe('unsettled completions on one Redis', () => {
  let redis: Redis
  let cleanup: () => Promise<void>
  beforeAll(async () => { ({ redis, cleanup } = await testRedis()) })
  afterAll(async () => { await cleanup() })

  it('takes the lock and notes the cart in one round trip, gives it back and forgets in another', async () => {
    const store = createUnsettledStore(redis)
    // connected first: its ready check is not the store's
    await redis.ping()
    const sent: string[] = []
    let taking: string[] = []
    const send = redis.sendCommand.bind(redis)
    redis.sendCommand = (command, stream) => { sent.push(command.name); return send(command, stream) }
    try {
      await createLocks(redis).withHold(lock('cart_5'), TTL, store.completing(CLUB, entry('cart_5'), () => true), async () => {
        taking = sent.splice(0)
        expect(await redis.hget(keys.orders.unsettled(CLUB), 'cart_5')).toBe(JSON.stringify(entry('cart_5')))
        expect(await redis.pttl(lock('cart_5'))).toBeGreaterThan(4_000)
        sent.length = 0
      })
    } finally {
      redis.sendCommand = send
    }
    expect([taking, sent].map((commands) => commands.length)).toEqual([1, 1])
    expect(['eval', 'evalsha']).toEqual(expect.arrayContaining([...taking, ...sent]))
    expect([await redis.exists(lock('cart_5')), await redis.hlen(keys.orders.unsettled(CLUB))]).toEqual([0, 0])
  })

  it('is refused while another holder has the lock, and gives back only its own: the note still forgotten', async () => {
    const store = createUnsettledStore(redis)
    await redis.set(lock('cart_6'), 'another', 'PX', 5_000)
    const hold = store.completing(CLUB, entry('cart_6'), () => true)
    expect(await hold.take('mine', 5_000)).toBeUndefined()
    expect(await redis.hexists(keys.orders.unsettled(CLUB), 'cart_6')).toBe(0)
    await redis.hset(keys.orders.unsettled(CLUB), 'cart_6', JSON.stringify(entry('cart_6')))
    await hold.give('mine')
    expect([await redis.get(lock('cart_6')), await redis.hexists(keys.orders.unsettled(CLUB), 'cart_6')]).toEqual(['another', 0])
  })

  it('moves the notes of the hash of before (no tag) into the tagged one as the sweep reads, a newer note kept', async () => {
    const store = createUnsettledStore(redis)
    const legacy = keys.orders.legacyUnsettled(CLUB)
    await redis.hset(legacy, 'cart_7', JSON.stringify(entry('cart_7')), 'cart_8', JSON.stringify(entry('cart_8', 900)))
    await store.note(CLUB, entry('cart_8', 1_100))
    expect(await store.olderThan(CLUB, 2_000)).toEqual(expect.arrayContaining([entry('cart_7'), entry('cart_8', 1_100)]))
    expect([await redis.exists(legacy), await redis.hlen(keys.orders.unsettled(CLUB))]).toEqual([0, 2])
  })
})
