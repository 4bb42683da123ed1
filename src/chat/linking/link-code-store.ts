import type { RedisClient } from '../../stores/redis-client.ts'
import { defineScript } from '../../stores/define-script.ts'
import { keys } from '../../stores/keys.ts'
import { LINK_CODE_TTL_MS, parseStoredLink, type StoredLink } from './link-record.ts'
import { ExpiringMap, type Clock } from '../../stores/expiring-map.ts'

/** Pending link codes: created once, consumed at most once (atomically across instances), gone after the TTL. */
export interface LinkCodeStore {
  create (code: string, record: StoredLink): Promise<void>
  /**
   * The record, deleted in the same step; undefined when unknown, expired or already used, and when the code is
   * bound to a phone (a staff-made code) other than `phone` (no phone: the link route): such a code stays, so
   * that nobody but the member's phone can use or spend it.
   */
  consume (code: string, phone?: string): Promise<StoredLink | undefined>
}

/** Whether a code with this record may be consumed from `phone` (none: the link route). */
const consumableFrom = (record: StoredLink, phone: string | undefined): boolean => !('phone' in record) || record.phone === phone

export interface LinkCodeStoreOptions {
  ttlMs?: number
  now?: Clock
}

export class MemoryLinkCodeStore implements LinkCodeStore {
  private readonly codes: ExpiringMap<StoredLink>
  private readonly ttlMs: number

  constructor (options: LinkCodeStoreOptions = {}) {
    this.codes = new ExpiringMap(options.now)
    this.ttlMs = options.ttlMs ?? LINK_CODE_TTL_MS
  }

  async create (code: string, record: StoredLink) { this.codes.set(code, structuredClone(record), this.ttlMs) }
  async consume (code: string, phone?: string) {
    const record = this.codes.get(code)
    return record && consumableFrom(record, phone) ? this.codes.take(code) : undefined
  }
}

/** KEYS: the code. ARGV: the consuming phone ('' for the link route). GETDEL unless bound to another phone. */
const consumeCode = defineScript<[phone: string], StoredLink | undefined>({
  name: 'linkCodeConsume',
  keys: 1,
  lua: `
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local bound = cjson.decode(raw).phone
if type(bound) == 'string' and bound ~= ARGV[1] then return false end
redis.call('DEL', KEYS[1])
return raw`,
  decode: (raw) => typeof raw === 'string' ? parseStoredLink(raw) : undefined,
})

export class RedisLinkCodeStore implements LinkCodeStore {
  private readonly ttlMs: number

  constructor (private readonly redis: RedisClient, options: Pick<LinkCodeStoreOptions, 'ttlMs'> = {}) {
    this.ttlMs = options.ttlMs ?? LINK_CODE_TTL_MS
  }

  async create (code: string, record: StoredLink) {
    await this.redis.set(keys.chat.linking.code(code), JSON.stringify(record), 'PX', this.ttlMs)
  }

  // One script: of many concurrent consumers on any instance, exactly one gets the record.
  async consume (code: string, phone?: string) {
    return await consumeCode(this.redis, [keys.chat.linking.code(code)], phone ?? '')
  }
}

export function createLinkCodeStore (redis: RedisClient | null, options: LinkCodeStoreOptions = {}): LinkCodeStore {
  return redis ? new RedisLinkCodeStore(redis, options) : new MemoryLinkCodeStore(options)
}
