import { createHash, randomBytes } from 'node:crypto'
import type { RedisClient } from '../stores/redis-client.ts'
import { ExpiringMap } from '../stores/expiring-map.ts'
import { keys } from '../stores/keys.ts'

// Single-use, expiring tokens (staff invites, member password tokens). Only the token's SHA-256 is stored, so
// the store never holds a usable token; taking one deletes it in the same command, so it works once.

type TokenKind = 'staff-invite' | 'member-password'

export interface OneUseTokens {
  /** A new token for `record`, valid for `ttlMs`. */
  issue (kind: TokenKind, record: object, ttlMs: number): Promise<string>
  /** The token's record, deleted as it is read; undefined when unknown, expired or already taken. */
  take (kind: TokenKind, token: string): Promise<unknown>
  /** Puts a taken token back until `expiresAt` (ms), after the work it was taken for failed. */
  restore (kind: TokenKind, token: string, record: object, expiresAt: number): Promise<void>
}

const digest = (token: string): string => createHash('sha256').update(token).digest('hex')
const newToken = (): string => randomBytes(32).toString('base64url')

class MemoryOneUseTokens implements OneUseTokens {
  private readonly records = new ExpiringMap<string>()

  async issue (kind: TokenKind, record: object, ttlMs: number) {
    const token = newToken()
    this.records.set(keys.oneUseToken(kind, digest(token)), JSON.stringify(record), ttlMs)
    return token
  }

  async take (kind: TokenKind, token: string) {
    const json = this.records.take(keys.oneUseToken(kind, digest(token)))
    return json === undefined ? undefined : JSON.parse(json) as unknown
  }

  async restore (kind: TokenKind, token: string, record: object, expiresAt: number) {
    this.records.setUntil(keys.oneUseToken(kind, digest(token)), JSON.stringify(record), expiresAt)
  }
}

class RedisOneUseTokens implements OneUseTokens {
  constructor (private readonly redis: RedisClient) {}

  async issue (kind: TokenKind, record: object, ttlMs: number) {
    const token = newToken()
    await this.redis.set(keys.oneUseToken(kind, digest(token)), JSON.stringify(record), 'PX', ttlMs)
    return token
  }

  async take (kind: TokenKind, token: string) {
    const raw = await this.redis.getdel(keys.oneUseToken(kind, digest(token)))
    return raw ? JSON.parse(raw) as unknown : undefined
  }

  async restore (kind: TokenKind, token: string, record: object, expiresAt: number) {
    const ttl = expiresAt - Date.now()
    if (ttl > 0) await this.redis.set(keys.oneUseToken(kind, digest(token)), JSON.stringify(record), 'PX', ttl)
  }
}

export function createOneUseTokens (redis: RedisClient | null): OneUseTokens {
  return redis ? new RedisOneUseTokens(redis) : new MemoryOneUseTokens()
}
