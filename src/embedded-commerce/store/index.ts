import { Cluster } from 'ioredis'
import type { RedisClient } from '../../stores/redis-client.ts'
import { MemoryCommerceStore } from './memory.ts'
import { RedisCommerceStore } from './redis.ts'
import type { CommerceStore } from './port.ts'

export type { CommerceStore } from './port.ts'

export function createCommerceStore (redis: RedisClient | null): CommerceStore {
  // Its scripts touch keys of many records at once, which a cluster spreads over its nodes (config refuses it too).
  if (redis instanceof Cluster) throw new Error('The embedded commerce backend does not run on a Redis Cluster: set COMMERCE_URL to a Medusa backend')
  return redis ? new RedisCommerceStore(redis) : new MemoryCommerceStore()
}
