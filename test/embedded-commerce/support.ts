import { MemoryCommerceStore } from '../../src/embedded-commerce/store/memory.ts'
import type { CommerceStore } from '../../src/embedded-commerce/store/port.ts'
import { RedisCommerceStore } from '../../src/embedded-commerce/store/redis.ts'
import { testRedis } from '../helper.ts'

// What the embedded backend's store properties share (docs.ts: the documents they write, which bench/growth.ts writes too).

/** The store on memory, or on a Redis of the test's own (`cleanup` drops it). */
export async function storeOn (kind: 'redis' | 'memory'): Promise<{ store: CommerceStore, cleanup: () => Promise<void> }> {
  if (kind === 'memory') return { store: new MemoryCommerceStore(), cleanup: async () => {} }
  const r = await testRedis()
  return { store: new RedisCommerceStore(r.redis), cleanup: r.cleanup }
}

/** A store that counts the records of `kind` it is asked for. */
export function counting (store: CommerceStore, kind: string): { store: CommerceStore, reads: () => number } {
  let reads = 0
  const counted = Object.create(store) as CommerceStore
  counted.getMany = async (k, ids) => {
    if (k === kind) reads += ids.length
    return await store.getMany(k, ids)
  }
  return { store: counted, reads: () => reads }
}
