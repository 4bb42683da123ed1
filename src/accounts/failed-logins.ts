import type { RedisClient } from '../stores/redis-client.ts'
import { createAttemptWindow, type AttemptWindow } from '../stores/attempt-window.ts'
import { keys } from '../stores/keys.ts'

// The per-email login lock: at most MAX_FAILURES logins without success within the window, whatever the
// password. Each login takes an attempt before its password is tried; a login whose password is accepted
// clears the count, one whose password could not be tried (backend unreachable) gives its attempt back.

export const MAX_FAILURES = 5
export const WINDOW_MS = 15 * 60_000

export interface LoginLock {
  /** Counts this login: 0 when it may go on, else milliseconds until the email may try again. */
  take (email: string): Promise<number>
  giveBack (email: string): Promise<void>
  clear (email: string): Promise<void>
}

class EmailLock implements LoginLock {
  constructor (private readonly window: AttemptWindow) {}
  async take (email: string) { return await this.window.take(keys.accounts.loginAttempts(email)) }
  async giveBack (email: string) { await this.window.giveBack(keys.accounts.loginAttempts(email)) }
  async clear (email: string) { await this.window.clear(keys.accounts.loginAttempts(email)) }
}

export function createLoginLock (redis: RedisClient | null): LoginLock {
  return new EmailLock(createAttemptWindow(redis, { limit: MAX_FAILURES, windowMs: WINDOW_MS }))
}
