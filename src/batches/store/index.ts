import type { RedisClient } from '../../stores/redis-client.ts'
import { MemoryBatchStore } from './memory.ts'
import type { BatchStore } from './port.ts'
import { RedisBatchStore } from './redis.ts'

export type { BatchFilters, BatchStore } from './port.ts'

export function createBatchStore (redis: RedisClient | null): BatchStore {
  return redis ? new RedisBatchStore(redis) : new MemoryBatchStore()
}
