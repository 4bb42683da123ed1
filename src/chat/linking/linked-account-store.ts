import type { RedisClient } from '../../stores/redis-client.ts'
import { z } from 'zod'
import { ROLES } from '../../tenants/roles.ts'
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

// The member's choice to have no chat updates sits in the phone's hash beside the accounts, under a field no
// tenant id can be (tenant ids have no ':').
const UPDATES_OFF = (tenantId: string): string => `updates-off:${tenantId}`
const isAccountField = (field: string): boolean => !field.includes(':')

// The hash field is the tenant id, so the stored JSON leaves it out; records written with it read the same.
const encodeAccount = ({ tenantId: _, ...rest }: LinkedAccount): string => JSON.stringify(rest)
const decodeAccount = (tenantId: string, raw: string): LinkedAccount => linkedAccountSchema.parse({ ...JSON.parse(raw), tenantId })

const byTenant = (a: LinkedAccount, b: LinkedAccount): number => a.tenantId.localeCompare(b.tenantId)

/** One entry per (phone, club); linking the same club again replaces it. */
export class MemoryLinkedAccountStore implements LinkedAccountStore {
  private readonly phones = new Map<string, Map<string, LinkedAccount>>()
  private readonly off = new Set<string>()

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
    this.off.delete(`${phone}\n${tenantId}`)
  }

  async phonesOf (tenantId: string, customerId: string) {
    return [...this.phones].filter(([, accounts]) => accounts.get(tenantId)?.customerId === customerId).map(([phone]) => phone).sort()
  }

  async updatesOn (phone: string, tenantId: string) { return !this.off.has(`${phone}\n${tenantId}`) }

  async setUpdates (phone: string, tenantId: string, on: boolean) {
    if (on) this.off.delete(`${phone}\n${tenantId}`)
    else this.off.add(`${phone}\n${tenantId}`)
  }
}

/**
 * A hash per phone: tenantId -> account JSON, and a set per (club, member) of their phones. The two live on
 * different cluster slots, so the set is a hint: it is written before the account and cleaned after it, and
 * every phone it names is checked against that phone's accounts when read.
 */
export class RedisLinkedAccountStore implements LinkedAccountStore {
  constructor (private readonly redis: RedisClient) {}

  private async account (phone: string, tenantId: string): Promise<LinkedAccount | undefined> {
    const raw = await this.redis.hget(keys.chat.linking.accounts(phone), tenantId)
    return raw === null ? undefined : decodeAccount(tenantId, raw)
  }

  async list (phone: string) {
    const all = await this.redis.hgetall(keys.chat.linking.accounts(phone))
    return Object.entries(all).filter(([field]) => isAccountField(field)).map(([field, raw]) => decodeAccount(field, raw)).sort(byTenant)
  }

  async put (phone: string, account: LinkedAccount) {
    const before = await this.account(phone, account.tenantId)
    await this.redis.sadd(keys.chat.linking.members(account.tenantId, account.customerId), phone)
    await this.redis.hset(keys.chat.linking.accounts(phone), account.tenantId, encodeAccount(linkedAccountSchema.parse(account)))
    if (before && before.customerId !== account.customerId) await this.redis.srem(keys.chat.linking.members(before.tenantId, before.customerId), phone)
  }

  async remove (phone: string, tenantId: string) {
    const before = await this.account(phone, tenantId)
    await this.redis.hdel(keys.chat.linking.accounts(phone), tenantId, UPDATES_OFF(tenantId))
    if (before) await this.redis.srem(keys.chat.linking.members(tenantId, before.customerId), phone)
  }

  async phonesOf (tenantId: string, customerId: string) {
    const phones = await this.redis.smembers(keys.chat.linking.members(tenantId, customerId))
    const found = await Promise.all(phones.map(async (phone) => (await this.account(phone, tenantId))?.customerId === customerId ? phone : undefined))
    return found.filter((p): p is string => p !== undefined).sort()
  }

  async updatesOn (phone: string, tenantId: string) {
    return (await this.redis.hexists(keys.chat.linking.accounts(phone), UPDATES_OFF(tenantId))) === 0
  }

  async setUpdates (phone: string, tenantId: string, on: boolean) {
    if (on) await this.redis.hdel(keys.chat.linking.accounts(phone), UPDATES_OFF(tenantId))
    else await this.redis.hset(keys.chat.linking.accounts(phone), UPDATES_OFF(tenantId), '1')
  }
}

export function createLinkedAccountStore (redis: RedisClient | null): LinkedAccountStore {
  return redis ? new RedisLinkedAccountStore(redis) : new MemoryLinkedAccountStore()
}
