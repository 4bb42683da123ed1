import type { RedisClient } from '../../stores/redis-client.ts'
import { keys } from '../../stores/keys.ts'
import { MemoryAttemptWindow, RedisAttemptWindow, type AttemptWindow, type AttemptWindowOptions } from '../../stores/attempt-window.ts'
import type { Clock } from '../../stores/expiring-map.ts'

// Login attempts through the in-chat form, counted per phone and per email in a fixed window that starts at
// the first attempt. Every attempt counts (taken before the password is checked, so concurrent tries cannot
// slip past the limit); a successful login clears both counters.
export const LOGIN_ATTEMPT_LIMIT = 5
const LOGIN_ATTEMPT_WINDOW_MS = 15 * 60 * 1000

interface LoginIdentity {
  phone: string
  email: string
}

type Reservation = { allowed: true } | { allowed: false, retryAfterMs: number }

export interface LoginAttemptLimiter {
  reserve (who: LoginIdentity): Promise<Reservation>
  clear (who: LoginIdentity): Promise<void>
}

export interface LimiterOptions {
  limit?: number
  windowMs?: number
  now?: Clock
}

const phoneKey = (who: LoginIdentity): string => keys.chat.linking.attempts('phone', who.phone)
const emailKey = (who: LoginIdentity): string => keys.chat.linking.attempts('email', who.email.trim().toLowerCase())

/** Two counters, each taken in its own atomic step; a phone attempt refused by the email's counter is given back. */
class TwoCounterLimiter implements LoginAttemptLimiter {
  constructor (private readonly window: AttemptWindow) {}

  async reserve (who: LoginIdentity): Promise<Reservation> {
    const byPhone = await this.window.take(phoneKey(who))
    if (byPhone > 0) return { allowed: false, retryAfterMs: byPhone }
    const byEmail = await this.window.take(emailKey(who))
    if (byEmail === 0) return { allowed: true }
    await this.window.giveBack(phoneKey(who))
    return { allowed: false, retryAfterMs: byEmail }
  }

  async clear (who: LoginIdentity) {
    await Promise.all([this.window.clear(phoneKey(who)), this.window.clear(emailKey(who))])
  }
}

const windowOptions = (options: LimiterOptions): AttemptWindowOptions => ({
  limit: options.limit ?? LOGIN_ATTEMPT_LIMIT,
  windowMs: options.windowMs ?? LOGIN_ATTEMPT_WINDOW_MS,
  ...(options.now ? { now: options.now } : {}),
})

export class MemoryLoginAttemptLimiter extends TwoCounterLimiter {
  constructor (options: LimiterOptions = {}) { super(new MemoryAttemptWindow(windowOptions(options))) }
}

export class RedisLoginAttemptLimiter extends TwoCounterLimiter {
  constructor (redis: RedisClient, options: Omit<LimiterOptions, 'now'> = {}) { super(new RedisAttemptWindow(redis, windowOptions(options))) }
}

export function createLoginAttemptLimiter (redis: RedisClient | null, options: LimiterOptions = {}): LoginAttemptLimiter {
  return redis ? new RedisLoginAttemptLimiter(redis, options) : new MemoryLoginAttemptLimiter(options)
}
