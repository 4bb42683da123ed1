import type { Redis } from 'ioredis'
import { z } from 'zod'
import { ROLES } from '../../auth/tokens.ts'
import { keys } from '../../stores/keys.ts'
import type { LinkedAccount, LinkedAccountStore } from './types.ts'

// spec, Limits: the login form stores the account with a token expiry of 7 days.
export const LINKED_ACCOUNT_TTL_MS = 7 * 24 * 60 * 60 * 1000

const linkedAccountSchema = z.object({
  tenantId: z.string(),
  tenantName: z.string(),
  customerId: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  token: z.string(),
  linkedAt: z.number(),
  expiresAt: z.number(),
  locale: z.enum(['es', 'en']).optional(),
}) satisfies z.ZodType<LinkedAccount>

const byTenant = (a: LinkedAccount, b: LinkedAccount): number => a.tenantId.localeCompare(b.tenantId)

/** One entry per (phone, club); linking the same club again replaces it. */
export class MemoryLinkedAccountStore implements LinkedAccountStore {
  private readonly phones = new Map<string, Map<string, LinkedAccount>>()

  async list (phone: string) {
    return [...(this.phones.get(phone)?.values() ?? [])].map((a) => structuredClone(a)).sort(byTenant)
  }

  async put (phone: string, account: LinkedAccount) {
    let accounts = this.phones.get(phone)
    if (!accounts) this.phones.set(phone, accounts = new Map())
    accounts.set(account.tenantId, structuredClone(account))
  }

  async remove (phone: string, tenantId: string) {
    const accounts = this.phones.get(phone)
    accounts?.delete(tenantId)
    if (accounts?.size === 0) this.phones.delete(phone)
  }
}

/** A hash per phone: tenantId -> account JSON. */
export class RedisLinkedAccountStore implements LinkedAccountStore {
  constructor (private readonly redis: Redis) {}

  async list (phone: string) {
    const all = await this.redis.hgetall(keys.chat.linking.accounts(phone))
    return Object.values(all).map((raw) => linkedAccountSchema.parse(JSON.parse(raw))).sort(byTenant)
  }

  async put (phone: string, account: LinkedAccount) {
    await this.redis.hset(keys.chat.linking.accounts(phone), account.tenantId, JSON.stringify(linkedAccountSchema.parse(account)))
  }

  async remove (phone: string, tenantId: string) {
    await this.redis.hdel(keys.chat.linking.accounts(phone), tenantId)
  }
}

export function createLinkedAccountStore (redis: Redis | null): LinkedAccountStore {
  return redis ? new RedisLinkedAccountStore(redis) : new MemoryLinkedAccountStore()
}
