import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIdempotencyStore, type IdempotencyStore } from '../../src/orders/idempotency.ts'
import { storeRedis } from '../helper.ts'

describe.each(['redis', 'cluster', 'memory'] as const)('idempotency store contract (%s)', (kind) => {
  let store: IdempotencyStore
  let cleanup = async (): Promise<void> => {}
  beforeAll(async () => {
    const r = await storeRedis(kind)
    store = createIdempotencyStore(r?.redis ?? null)
    if (r) cleanup = r.cleanup
  })
  afterAll(async () => { await cleanup() })

  it('claims a key once, per club; a finished call answers its record; a released key is claimed again', async () => {
    const key = randomUUID()
    expect(await store.claim('club-norte', key, 'f1')).toBeUndefined()
    expect(await store.claim('club-norte', key, 'f2')).toEqual({ state: 'running', fingerprint: 'f1' })
    expect(await store.claim('club-sur', key, 'f2')).toBeUndefined()
    const done = { state: 'done' as const, fingerprint: 'f1', status: 201, body: { order: { id: 'order_1' } } }
    await store.finish('club-norte', key, done)
    expect(await store.claim('club-norte', key, 'f1')).toEqual(done)
    await store.release('club-norte', key)
    expect(await store.claim('club-norte', key, 'f3')).toBeUndefined()
  })

  it('of concurrent claims of one key exactly one wins', async () => {
    const key = randomUUID()
    const claims = await Promise.all(Array.from({ length: 10 }, async (_, i) => await store.claim('club-norte', key, `f${i}`)))
    expect(claims.filter((c) => c === undefined)).toHaveLength(1)
  })
})
