import type { Redis } from 'ioredis'
import { keys } from '../stores/keys.ts'

// Conversation sessions by phone, saved with a compare-and-set on a version so that no update is ever lost.

export const SESSION_TTL_MS = 30 * 24 * 60 * 60_000

export interface StoredDoc {
  version: number
  doc: string | undefined
}

export interface SessionStore {
  /** The session document and its version (0 when there is none). */
  load (phone: string): Promise<StoredDoc>
  /** Writes `doc` when the stored version is still `expected`; the new version, or undefined when it moved on. */
  save (phone: string, expected: number, doc: string): Promise<number | undefined>
}

export class MemorySessionStore implements SessionStore {
  private readonly docs = new Map<string, { version: number, doc: string, expiresAt: number }>()

  constructor (private readonly ttlMs = SESSION_TTL_MS, private readonly now: () => number = Date.now) {}

  private read (phone: string): StoredDoc {
    const entry = this.docs.get(phone)
    if (!entry || entry.expiresAt <= this.now()) return { version: 0, doc: undefined }
    return { version: entry.version, doc: entry.doc }
  }

  async load (phone: string) { return this.read(phone) }

  // check and write with no await between them: the compare-and-set is atomic
  async save (phone: string, expected: number, doc: string) {
    if (this.read(phone).version !== expected) return undefined
    const version = expected + 1
    this.docs.set(phone, { version, doc, expiresAt: this.now() + this.ttlMs })
    return version
  }
}

interface SessionCommands {
  chatSessionSave (key: string, expected: number, doc: string, ttlMs: number): Promise<number>
}

const SAVE = {
  numberOfKeys: 1,
  // a session that expired counts as version 0 again
  lua: `local v = redis.call('HGET', KEYS[1], 'v') or '0'
if v ~= ARGV[1] then return 0 end
local next = tonumber(v) + 1
redis.call('HSET', KEYS[1], 'v', next, 'doc', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return next`,
}

export class RedisSessionStore implements SessionStore {
  private readonly redis: Redis & SessionCommands

  constructor (redis: Redis, private readonly ttlMs = SESSION_TTL_MS) {
    if (!('chatSessionSave' in redis)) redis.defineCommand('chatSessionSave', SAVE)
    this.redis = redis as Redis & SessionCommands
  }

  async load (phone: string): Promise<StoredDoc> {
    const [v, doc] = await this.redis.hmget(keys.chat.bot.session(phone), 'v', 'doc')
    return { version: Number(v ?? 0), doc: doc ?? undefined }
  }

  async save (phone: string, expected: number, doc: string) {
    const version = await this.redis.chatSessionSave(keys.chat.bot.session(phone), expected, doc, this.ttlMs)
    return version === 0 ? undefined : version
  }
}

export function createSessionStore (redis: Redis | null): SessionStore {
  return redis ? new RedisSessionStore(redis) : new MemorySessionStore()
}
