import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createIdempotencyStore } from '../../src/orders/idempotency.ts'
import { contractStore } from '../helper.ts'

describe.each(['redis', 'cluster', 'memory'] as const)('idempotency store contract (%s)', (kind) => {
  const opened = contractStore(kind, createIdempotencyStore)

  it('claims a key once, per club; a finished call answers its record; a released key is claimed again', async () => {
    const store = opened()
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
    const store = opened()
    const key = randomUUID()
    const claims = await Promise.all(Array.from({ length: 10 }, async (_, i) => await store.claim('club-norte', key, `f${i}`)))
    expect(claims.filter((c) => c === undefined)).toHaveLength(1)
  })
})
