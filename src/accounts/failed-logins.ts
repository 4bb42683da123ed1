import type { Redis } from 'ioredis'
import { keys } from '../stores/keys.ts'

// Failed logins per email: after MAX_FAILURES within the window, the email is refused until the window ends,
// whatever the password. A successful login clears the count.

export const MAX_FAILURES = 5
export const WINDOW_MS = 15 * 60_000

export interface FailedLogins {
  /** Milliseconds until the email may try again, or 0. */
  blockedFor (email: string): Promise<number>
  fail (email: string): Promise<void>
  clear (email: string): Promise<void>
}

export class MemoryFailedLogins implements FailedLogins {
  private readonly counts = new Map<string, { count: number, resetAt: number }>()

  async blockedFor (email: string) {
    const entry = this.counts.get(keys.accounts.loginFailures(email))
    if (!entry || entry.resetAt <= Date.now()) return 0
    return entry.count >= MAX_FAILURES ? entry.resetAt - Date.now() : 0
  }

  async fail (email: string) {
    const k = keys.accounts.loginFailures(email)
    const entry = this.counts.get(k)
    if (!entry || entry.resetAt <= Date.now()) this.counts.set(k, { count: 1, resetAt: Date.now() + WINDOW_MS })
    else entry.count++
  }

  async clear (email: string) {
    this.counts.delete(keys.accounts.loginFailures(email))
  }
}

// INCR and the window's expiry in one step, so a count never outlives its window.
const FAIL = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`

type FailRedis = Redis & { loginFail (key: string, windowMs: number): Promise<number> }

export class RedisFailedLogins implements FailedLogins {
  private readonly redis: FailRedis

  constructor (redis: Redis) {
    if (!('loginFail' in redis)) redis.defineCommand('loginFail', { numberOfKeys: 1, lua: FAIL })
    this.redis = redis as FailRedis
  }

  async blockedFor (email: string) {
    const k = keys.accounts.loginFailures(email)
    const [count, ttl] = await Promise.all([this.redis.get(k), this.redis.pttl(k)])
    return Number(count ?? 0) >= MAX_FAILURES && ttl > 0 ? ttl : 0
  }

  async fail (email: string) {
    await this.redis.loginFail(keys.accounts.loginFailures(email), WINDOW_MS)
  }

  async clear (email: string) {
    await this.redis.del(keys.accounts.loginFailures(email))
  }
}

export function createFailedLogins (redis: Redis | null): FailedLogins {
  return redis ? new RedisFailedLogins(redis) : new MemoryFailedLogins()
}
