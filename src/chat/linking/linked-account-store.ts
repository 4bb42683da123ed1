import type { RedisClient } from '../../stores/redis-client.ts'
import { z } from 'zod'
import { ROLES } from '../../tenants/roles.ts'
import { keys } from '../../stores/keys.ts'
import type { LinkedAccount, LinkedAccountStore, PhoneLinks } from './types.ts'

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
const UPDATES_OFF_PREFIX = 'updates-off:'
const UPDATES_OFF = (tenantId: string): string => `${UPDATES_OFF_PREFIX}${tenantId}`
const isAccountField = (field: string): boolean => !field.includes(':')

// Stored (version 2) as a JSON array under the tenant id's field: [2, tenantName, customerId, email, name, role,
// linkedAt, expiresAt, locale ('' none), token]. Most of an access token of ours repeats the account (its claims
// are the member's role, club, email, name and id), so such a token is kept as the order of its claims, its
// issue and expiry times and its signature, and rebuilt exactly on read; any other token is kept whole. Records
// of version 1 (the account's JSON, with or without its tenant id) read the same.
const JWT_HEADER = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')
const CLAIMS = { r: 'role', t: 'tenants', e: 'email', n: 'name', s: 'sub', i: 'iat', x: 'exp' } as const
type Letter = keyof typeof CLAIMS
type PackedToken = [order: string, iat: number, exp: number, signature: string]

function claimOf (account: LinkedAccount, letter: Letter, [, iat, exp]: PackedToken): unknown {
  switch (letter) {
    case 'r': return account.role
    case 't': return [account.tenantId]
    case 'e': return account.email
    case 'n': return account.name
    case 's': return account.customerId
    case 'i': return iat
    case 'x': return exp
  }
}

function unpackToken (account: LinkedAccount, packed: PackedToken): string {
  const claims = Object.fromEntries([...packed[0]].map((l) => [CLAIMS[l as Letter], claimOf(account, l as Letter, packed)]))
  return `${JWT_HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${packed[3]}`
}

function packToken (account: LinkedAccount): PackedToken | string {
  const [header, payload, signature, ...more] = account.token.split('.')
  if (header !== JWT_HEADER || payload === undefined || signature === undefined || more.length > 0) return account.token
  let claims: Record<string, unknown>
  try { claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown> } catch { return account.token }
  const letters = Object.fromEntries(Object.entries(CLAIMS).map(([l, claim]) => [claim, l as Letter]))
  const order = Object.keys(claims).map((claim) => letters[claim] ?? '?').join('')
  const time = (claim: unknown): number => typeof claim === 'number' ? claim : 0
  const packed: PackedToken = [order, time(claims.iat), time(claims.exp), signature]
  // only what rebuilds to the very same token (claims of the account, in any order) is kept packed
  return !order.includes('?') && unpackToken(account, packed) === account.token ? packed : account.token
}

const encodeAccount = (a: LinkedAccount): string =>
  JSON.stringify([2, a.tenantName, a.customerId, a.email, a.name, a.role, a.linkedAt, a.expiresAt, a.locale ?? '', packToken(a)])

function decodeAccount (tenantId: string, raw: string): LinkedAccount {
  const stored = JSON.parse(raw) as unknown
  if (!Array.isArray(stored)) return linkedAccountSchema.parse({ ...stored as object, tenantId })
  const [, tenantName, customerId, email, name, role, linkedAt, expiresAt, locale, token] = stored as [2, string, string, string, string, LinkedAccount['role'], number, number, string, PackedToken | string]
  const account = { tenantId, tenantName, customerId, email, name, role, linkedAt, expiresAt, token: '', ...(locale ? { locale } : {}) }
  return linkedAccountSchema.parse({ ...account, token: typeof token === 'string' ? token : unpackToken(account as LinkedAccount, token) })
}

const byTenant = (a: LinkedAccount, b: LinkedAccount): number => a.tenantId.localeCompare(b.tenantId)

/** One entry per (phone, club); linking the same club again replaces it. */
export class MemoryLinkedAccountStore implements LinkedAccountStore {
  private readonly phones = new Map<string, Map<string, LinkedAccount>>()
  private readonly off = new Set<string>()

  async list (phone: string) { return (await this.links(phone)).accounts }

  async links (phone: string): Promise<PhoneLinks> {
    const accounts = [...(this.phones.get(phone)?.values() ?? [])].map((a) => structuredClone(a)).sort(byTenant)
    return { accounts, updatesOff: accounts.filter((a) => this.off.has(`${phone}\n${a.tenantId}`)).map((a) => a.tenantId) }
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

  async list (phone: string) { return (await this.links(phone)).accounts }

  async links (phone: string): Promise<PhoneLinks> {
    const fields = Object.entries(await this.redis.hgetall(keys.chat.linking.accounts(phone)))
    const accounts = fields.filter(([field]) => isAccountField(field)).map(([field, raw]) => decodeAccount(field, raw)).sort(byTenant)
    const off = new Set(fields.filter(([field]) => field.startsWith(UPDATES_OFF_PREFIX)).map(([field]) => field.slice(UPDATES_OFF_PREFIX.length)))
    return { accounts, updatesOff: accounts.filter((a) => off.has(a.tenantId)).map((a) => a.tenantId) }
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
