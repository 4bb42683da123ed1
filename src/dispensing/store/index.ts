import type { RedisClient } from '../../stores/redis-client.ts'
import { MemoryMemberStore } from './memory.ts'
import type { MemberStore } from './port.ts'
import { RedisMemberStore } from './redis.ts'

export type { MemberStore, } from './port.ts'

export function createMemberStore (redis: RedisClient | null): MemberStore {
  return redis ? new RedisMemberStore(redis) : new MemoryMemberStore()
}
