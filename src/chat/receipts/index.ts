import type { RedisClient } from '../../stores/redis-client.ts'
import type { Clock } from '../../stores/expiring-map.ts'
import { MemoryReceiptStore } from './memory.ts'
import type { ReceiptStore } from './port.ts'
import { RedisReceiptStore } from './redis.ts'

export type { ReceiptStore, SentReply } from './port.ts'
export { receiptTtlMs } from './port.ts'

export function createReceiptStore (redis: RedisClient | null, options: { shards: number, ttlMs: number, now?: Clock }): ReceiptStore {
  const now = options.now ?? Date.now
  return redis ? new RedisReceiptStore(redis, options.shards, options.ttlMs, now) : new MemoryReceiptStore(options.ttlMs, now)
}
