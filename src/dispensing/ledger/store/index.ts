import type { RedisClient } from '../../../stores/redis-client.ts'
import { MemoryLedgerStore } from './memory.ts'
import type { LedgerStore } from './port.ts'
import { RedisLedgerStore } from './redis.ts'

export type { AppendGuard, LedgerStore } from './port.ts'

export function createLedgerStore (redis: RedisClient | null): LedgerStore {
  return redis ? new RedisLedgerStore(redis) : new MemoryLedgerStore()
}
