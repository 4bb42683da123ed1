import type { RedisClient } from '../../stores/redis-client.ts'
import { keys } from '../../stores/keys.ts'
import { LINK_CODE_TTL_MS, linkRecordSchema, type LinkRecord } from './link-record.ts'
import { ExpiringMap, type Clock } from '../../stores/expiring-map.ts'

/** Pending link codes: created once, consumed at most once (atomically across instances), gone after the TTL. */
export interface LinkCodeStore {
  create (code: string, record: LinkRecord): Promise<void>
  /** The record, deleted in the same step; undefined when unknown, expired or already used. */
  consume (code: string): Promise<LinkRecord | undefined>
}

export interface LinkCodeStoreOptions {
  ttlMs?: number
  now?: Clock
}

export class MemoryLinkCodeStore implements LinkCodeStore {
  private readonly codes: ExpiringMap<LinkRecord>
  private readonly ttlMs: number

  constructor (options: LinkCodeStoreOptions = {}) {
    this.codes = new ExpiringMap(options.now)
    this.ttlMs = options.ttlMs ?? LINK_CODE_TTL_MS
  }

  async create (code: string, record: LinkRecord) { this.codes.set(code, structuredClone(record), this.ttlMs) }
  async consume (code: string) { return this.codes.take(code) }
}

export class RedisLinkCodeStore implements LinkCodeStore {
  private readonly ttlMs: number

  constructor (private readonly redis: RedisClient, options: Pick<LinkCodeStoreOptions, 'ttlMs'> = {}) {
    this.ttlMs = options.ttlMs ?? LINK_CODE_TTL_MS
  }

  async create (code: string, record: LinkRecord) {
    await this.redis.set(keys.chat.linking.code(code), JSON.stringify(record), 'PX', this.ttlMs)
  }

  // GETDEL: of many concurrent consumers on any instance, exactly one gets the record.
  async consume (code: string) {
    const raw = await this.redis.getdel(keys.chat.linking.code(code))
    return raw === null ? undefined : linkRecordSchema.parse(JSON.parse(raw))
  }
}

export function createLinkCodeStore (redis: RedisClient | null, options: LinkCodeStoreOptions = {}): LinkCodeStore {
  return redis ? new RedisLinkCodeStore(redis, options) : new MemoryLinkCodeStore(options)
}
