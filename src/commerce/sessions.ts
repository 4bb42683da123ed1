import type { RedisClient } from '../stores/redis-client.ts'
import { ExpiringMap } from '../stores/expiring-map.ts'
import { keys } from '../stores/keys.ts'

// The upstream (commerce backend) login of a user of ours, per club, kept server-side for the calls made on
// their behalf. It never leaves the service. Expires with the upstream token.

interface UpstreamSession {
  token: string
  /** The customer's id in that club's backend (members only). */
  customerId?: string
  /** Seconds since the epoch. */
  expiresAt: number
}

export interface UpstreamSessionStore {
  put (tenantId: string, subject: string, session: UpstreamSession): Promise<void>
  get (tenantId: string, subject: string): Promise<UpstreamSession | undefined>
}

const ttlMs = (s: UpstreamSession): number => Math.max(1, Math.floor(s.expiresAt * 1000 - Date.now()))

class MemoryUpstreamSessionStore implements UpstreamSessionStore {
  private readonly sessions = new ExpiringMap<UpstreamSession>()

  async put (tenantId: string, subject: string, session: UpstreamSession) {
    this.sessions.setUntil(keys.orders.upstreamToken(tenantId, subject), { ...session }, session.expiresAt * 1000)
  }

  async get (tenantId: string, subject: string) {
    const found = this.sessions.get(keys.orders.upstreamToken(tenantId, subject))
    return found ? { ...found } : undefined
  }
}

class RedisUpstreamSessionStore implements UpstreamSessionStore {
  constructor (private readonly redis: RedisClient) {}

  async put (tenantId: string, subject: string, session: UpstreamSession) {
    await this.redis.set(keys.orders.upstreamToken(tenantId, subject), JSON.stringify(session), 'PX', ttlMs(session))
  }

  async get (tenantId: string, subject: string) {
    const raw = await this.redis.get(keys.orders.upstreamToken(tenantId, subject))
    return raw ? JSON.parse(raw) as UpstreamSession : undefined
  }
}

export function createUpstreamSessionStore (redis: RedisClient | null): UpstreamSessionStore {
  return redis ? new RedisUpstreamSessionStore(redis) : new MemoryUpstreamSessionStore()
}
