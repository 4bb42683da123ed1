import type { Redis } from 'ioredis'
import { keys } from '../../stores/keys.ts'
import { TtlMap, type Clock } from './memory-ttl.ts'

// Login attempts through the in-chat form, counted per phone and per email in a fixed window that starts at
// the first attempt. Every attempt counts (reserved before the password is checked, so concurrent tries
// cannot slip past the limit); a successful login clears both counters.
export const LOGIN_ATTEMPT_LIMIT = 5
export const LOGIN_ATTEMPT_WINDOW_MS = 15 * 60 * 1000

export interface LoginIdentity {
  phone: string
  email: string
}

export type Reservation = { allowed: true } | { allowed: false, retryAfterMs: number }

export interface LoginAttemptLimiter {
  reserve (who: LoginIdentity): Promise<Reservation>
  clear (who: LoginIdentity): Promise<void>
}

export interface LimiterOptions {
  limit?: number
  windowMs?: number
  now?: Clock
}

function counterKeys (who: LoginIdentity): string[] {
  return [keys.chat.linking.attempts('phone', who.phone), keys.chat.linking.attempts('email', who.email.trim().toLowerCase())]
}

export class MemoryLoginAttemptLimiter implements LoginAttemptLimiter {
  private readonly counts: TtlMap<number>
  private readonly limit: number
  private readonly windowMs: number
  private readonly now: Clock

  constructor (options: LimiterOptions = {}) {
    this.now = options.now ?? Date.now
    this.counts = new TtlMap(this.now)
    this.limit = options.limit ?? LOGIN_ATTEMPT_LIMIT
    this.windowMs = options.windowMs ?? LOGIN_ATTEMPT_WINDOW_MS
  }

  async reserve (who: LoginIdentity): Promise<Reservation> {
    const now = this.now()
    const counters = counterKeys(who)
    for (const key of counters) {
      const e = this.counts.entry(key)
      if (e && e.value >= this.limit) return { allowed: false, retryAfterMs: e.expiresAt - now }
    }
    for (const key of counters) {
      const e = this.counts.entry(key)
      this.counts.setUntil(key, (e?.value ?? 0) + 1, e?.expiresAt ?? now + this.windowMs)
    }
    return { allowed: true }
  }

  async clear (who: LoginIdentity) {
    for (const key of counterKeys(who)) this.counts.delete(key)
  }
}

// Check every counter, then count on every one, in one step: 0 when allowed, else ms until retry.
const RESERVE = `
local limit = tonumber(ARGV[1])
for _, k in ipairs(KEYS) do
  if tonumber(redis.call('GET', k) or '0') >= limit then
    local ttl = redis.call('PTTL', k)
    if ttl < 1 then ttl = tonumber(ARGV[2]) end
    return ttl
  end
end
for _, k in ipairs(KEYS) do
  if redis.call('INCR', k) == 1 then redis.call('PEXPIRE', k, ARGV[2]) end
end
return 0
`

type ReservingRedis = Redis & { chatLinkReserveLogin (phoneKey: string, emailKey: string, limit: number, windowMs: number): Promise<number> }

export class RedisLoginAttemptLimiter implements LoginAttemptLimiter {
  private readonly limit: number
  private readonly windowMs: number

  private readonly redis: ReservingRedis

  constructor (redis: Redis, options: Omit<LimiterOptions, 'now'> = {}) {
    this.limit = options.limit ?? LOGIN_ATTEMPT_LIMIT
    this.windowMs = options.windowMs ?? LOGIN_ATTEMPT_WINDOW_MS
    if (!('chatLinkReserveLogin' in redis)) redis.defineCommand('chatLinkReserveLogin', { numberOfKeys: 2, lua: RESERVE })
    this.redis = redis as ReservingRedis
  }

  async reserve (who: LoginIdentity): Promise<Reservation> {
    const [phoneKey, emailKey] = counterKeys(who) as [string, string]
    const retryAfterMs = await this.redis.chatLinkReserveLogin(phoneKey, emailKey, this.limit, this.windowMs)
    return retryAfterMs === 0 ? { allowed: true } : { allowed: false, retryAfterMs }
  }

  async clear (who: LoginIdentity) {
    await this.redis.del(...counterKeys(who))
  }
}

export function createLoginAttemptLimiter (redis: Redis | null, options: LimiterOptions = {}): LoginAttemptLimiter {
  return redis ? new RedisLoginAttemptLimiter(redis, options) : new MemoryLoginAttemptLimiter(options)
}
