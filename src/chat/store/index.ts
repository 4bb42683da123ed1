import type { RedisClient } from '../../stores/redis-client.ts'
import { MemoryChatStore } from './memory.ts'
import type { ChatStore, HistorySink, InboxLimits, PhoneViewReader, ReceiptsOf } from './port.ts'
import { RedisChatStore } from './redis.ts'

export * from './port.ts'

/** Where a chat store's commits record turns: the inbox store's limits, and on memory the inbox store itself. */
export interface HistoryOf { limits: InboxLimits, append?: HistorySink['append'] }

/**
 * The chat store whose commits record turns in the conversation history of `inbox` (the inbox store), and whose
 * deliveries start their receipts (on memory through the receipts store's `record`).
 */
export function createChatStore (redis: RedisClient | null, shards: number, inbox: HistoryOf, receipts: ReceiptsOf, readView?: PhoneViewReader): ChatStore {
  if (redis) return new RedisChatStore(redis, shards, inbox.limits, readView, receipts.ttlMs)
  const append = inbox.append?.bind(inbox)
  return new MemoryChatStore(shards, Date.now, append ? { append } : undefined, receipts.record)
}
