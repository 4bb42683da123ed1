import type { RedisClient } from '../../stores/redis-client.ts'
import { MemoryCatalogStore, MemoryCropStore } from './memory.ts'
import type { CatalogStore, CropStore } from './port.ts'
import { RedisCatalogStore, RedisCropStore } from './redis.ts'

export type { CatalogStore, CropFilters, CropStore } from './port.ts'

export function createCropStore (redis: RedisClient | null): CropStore {
  return redis ? new RedisCropStore(redis) : new MemoryCropStore()
}

export function createCatalogStore (redis: RedisClient | null): CatalogStore {
  return redis ? new RedisCatalogStore(redis) : new MemoryCatalogStore()
}
