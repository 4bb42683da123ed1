import type { RedisClient } from '../../stores/redis-client.ts'
import { keys } from '../../stores/keys.ts'
import { ExpiringMap, type Clock } from '../../stores/expiring-map.ts'
import type { LoginFormInvites } from './types.ts'

// The form may be answered only within an hour of the bot sending it.
const LOGIN_FORM_INVITE_TTL_MS = 60 * 60 * 1000

export interface InviteOptions {
  ttlMs?: number
  now?: Clock
}

export class MemoryLoginFormInvites implements LoginFormInvites {
  private readonly sent: ExpiringMap<true>
  private readonly ttlMs: number

  constructor (options: InviteOptions = {}) {
    this.sent = new ExpiringMap(options.now)
    this.ttlMs = options.ttlMs ?? LOGIN_FORM_INVITE_TTL_MS
  }

  async markSent (phone: string) { this.sent.set(phone, true, this.ttlMs) }
  async wasSent (phone: string) { return this.sent.get(phone) === true }
}

export class RedisLoginFormInvites implements LoginFormInvites {
  private readonly ttlMs: number

  constructor (private readonly redis: RedisClient, options: Pick<InviteOptions, 'ttlMs'> = {}) {
    this.ttlMs = options.ttlMs ?? LOGIN_FORM_INVITE_TTL_MS
  }

  async markSent (phone: string) { await this.redis.set(keys.chat.linking.invite(phone), '1', 'PX', this.ttlMs) }
  async wasSent (phone: string) { return await this.redis.exists(keys.chat.linking.invite(phone)) === 1 }
}

export function createLoginFormInvites (redis: RedisClient | null, options: InviteOptions = {}): LoginFormInvites {
  return redis ? new RedisLoginFormInvites(redis, options) : new MemoryLoginFormInvites(options)
}
