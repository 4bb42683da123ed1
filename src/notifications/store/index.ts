import type { RedisClient } from '../../stores/redis-client.ts'
import { MemoryNotificationStore } from './memory.ts'
import type { NotificationStore } from './port.ts'
import { RedisNotificationStore } from './redis.ts'

export type { NotificationStore } from './port.ts'

export function createNotificationStore (redis: RedisClient | null): NotificationStore {
  return redis ? new RedisNotificationStore(redis) : new MemoryNotificationStore()
}
