import type { Redis } from 'ioredis'
import { MemoryCommerceStore } from './memory.ts'
import { RedisCommerceStore } from './redis.ts'
import type { CommerceStore } from './port.ts'

export type { CommerceStore } from './port.ts'

export function createCommerceStore (redis: Redis | null): CommerceStore {
  return redis ? new RedisCommerceStore(redis) : new MemoryCommerceStore()
}
