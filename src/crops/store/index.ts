import type { Redis } from 'ioredis'
import { MemoryCatalogStore, MemoryCropStore } from './memory.ts'
import type { CatalogStore, CropStore } from './port.ts'
import { RedisCatalogStore, RedisCropStore } from './redis.ts'

export type { AddPlantsResult, CatalogStore, CreateCropResult, CropChange, CropStore } from './port.ts'

export function createCropStore (redis: Redis | null): CropStore {
  return redis ? new RedisCropStore(redis) : new MemoryCropStore()
}

export function createCatalogStore (redis: Redis | null): CatalogStore {
  return redis ? new RedisCatalogStore(redis) : new MemoryCatalogStore()
}
