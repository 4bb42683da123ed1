import type { RedisClient } from '../stores/redis-client.ts'
import { defineScript } from '../stores/define-script.ts'
import { ExpiringMap } from '../stores/expiring-map.ts'
import { keys } from '../stores/keys.ts'

// Idempotency-Key records of the one-call routes, per tenant and key: a first call claims the key while it runs;
// its final answer is then kept for a day so a retry gets it back instead of a second order.

type IdempotencyRecord =
  | { state: 'running', fingerprint: string }
  | { state: 'done', fingerprint: string, status: number, body: unknown }

const RUNNING_TTL_MS = 10 * 60_000
const DONE_TTL_MS = 24 * 3600_000

export interface IdempotencyStore {
  /** Claims the key; answers undefined when claimed, else the record already there. */
  claim (tenantId: string, key: string, fingerprint: string): Promise<IdempotencyRecord | undefined>
  finish (tenantId: string, key: string, record: Extract<IdempotencyRecord, { state: 'done' }>): Promise<void>
  /** Frees the key (a failure before anything was made upstream), so a retry runs again. */
  release (tenantId: string, key: string): Promise<void>
}

class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly records = new ExpiringMap<IdempotencyRecord>()

  async claim (tenantId: string, key: string, fingerprint: string) {
    const k = keys.orders.idempotency(tenantId, key)
    const found = this.records.get(k)
    if (found) return structuredClone(found)
    this.records.set(k, { state: 'running', fingerprint }, RUNNING_TTL_MS)
    return undefined
  }

  async finish (tenantId: string, key: string, record: Extract<IdempotencyRecord, { state: 'done' }>) {
    this.records.set(keys.orders.idempotency(tenantId, key), structuredClone(record), DONE_TTL_MS)
  }

  async release (tenantId: string, key: string) {
    this.records.delete(keys.orders.idempotency(tenantId, key))
  }
}

// The record already there, or (nil) the claim written with its TTL.
const claim = defineScript<[record: string, ttlMs: number], IdempotencyRecord | undefined>({
  name: 'idempotencyClaim',
  keys: 1,
  lua: `
local current = redis.call('GET', KEYS[1])
if current then return current end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`,
  decode: (raw) => typeof raw === 'string' ? JSON.parse(raw) as IdempotencyRecord : undefined,
})

class RedisIdempotencyStore implements IdempotencyStore {
  constructor (private readonly redis: RedisClient) {}

  async claim (tenantId: string, key: string, fingerprint: string) {
    const record: IdempotencyRecord = { state: 'running', fingerprint }
    return await claim(this.redis, [keys.orders.idempotency(tenantId, key)], JSON.stringify(record), RUNNING_TTL_MS)
  }

  async finish (tenantId: string, key: string, record: Extract<IdempotencyRecord, { state: 'done' }>) {
    await this.redis.set(keys.orders.idempotency(tenantId, key), JSON.stringify(record), 'PX', DONE_TTL_MS)
  }

  async release (tenantId: string, key: string) {
    await this.redis.del(keys.orders.idempotency(tenantId, key))
  }
}

export function createIdempotencyStore (redis: RedisClient | null): IdempotencyStore {
  return redis ? new RedisIdempotencyStore(redis) : new MemoryIdempotencyStore()
}
