import type { RedisClient } from './redis-client.ts'
import { ExpiringMap, type Clock } from './expiring-map.ts'
import { defineScript } from './define-script.ts'

// Attempts counted per key in a fixed window that starts at the first attempt (login locks of the staff and
// member routes and of the chat login form). An attempt is taken BEFORE the guarded work (a password check)
// in one atomic step, so parallel tries cannot slip past the limit; refused tries are not counted, so the
// window is not pushed back by an attacker. One key per step: cluster-ready whatever the key.

export interface AttemptWindowOptions {
  limit: number
  windowMs: number
  now?: Clock
}

export interface AttemptWindow {
  /** Counts one attempt unless the limit is reached: 0 when counted, else milliseconds until the window ends. */
  take (key: string): Promise<number>
  /** Returns an attempt whose work never ran (the backend was unreachable, another counter refused). */
  giveBack (key: string): Promise<void>
  /** Forgets every attempt (a successful login). */
  clear (key: string): Promise<void>
}

export class MemoryAttemptWindow implements AttemptWindow {
  private readonly counts: ExpiringMap<number>
  private readonly now: Clock

  constructor (private readonly options: AttemptWindowOptions) {
    this.now = options.now ?? Date.now
    this.counts = new ExpiringMap(this.now)
  }

  async take (key: string) {
    const e = this.counts.entry(key)
    if (e && e.value >= this.options.limit) return Math.max(1, e.expiresAt - this.now())
    this.counts.setUntil(key, (e?.value ?? 0) + 1, e?.expiresAt ?? this.now() + this.options.windowMs)
    return 0
  }

  async giveBack (key: string) {
    const e = this.counts.entry(key)
    if (e && e.value > 1) this.counts.setUntil(key, e.value - 1, e.expiresAt)
    else this.counts.delete(key)
  }

  async clear (key: string) { this.counts.delete(key) }
}

// Compare, count and start the window in one step: 0 when counted, else the window's remaining ms.
const take = defineScript<[limit: number, windowMs: number], number>({
  name: 'attemptTake',
  keys: 1,
  lua: `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < 1 then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    ttl = tonumber(ARGV[2])
  end
  return ttl
end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`,
})

const giveBack = defineScript<[], unknown>({
  name: 'attemptGiveBack',
  keys: 1,
  lua: `
if redis.call('EXISTS', KEYS[1]) == 1 and redis.call('DECR', KEYS[1]) <= 0 then redis.call('DEL', KEYS[1]) end
return 0`,
})

export class RedisAttemptWindow implements AttemptWindow {
  constructor (private readonly redis: RedisClient, private readonly options: AttemptWindowOptions) {}

  async take (key: string) { return await take(this.redis, [key], this.options.limit, this.options.windowMs) }
  async giveBack (key: string) { await giveBack(this.redis, [key]) }
  async clear (key: string) { await this.redis.del(key) }
}

export function createAttemptWindow (redis: RedisClient | null, options: AttemptWindowOptions): AttemptWindow {
  return redis ? new RedisAttemptWindow(redis, options) : new MemoryAttemptWindow(options)
}
