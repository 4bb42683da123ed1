import type { RedisClient } from '../../stores/redis-client.ts'
import { z } from 'zod'
import { ROLES } from '../../tenants/roles.ts'
import { keys } from '../../stores/keys.ts'
import { defineScript } from '../../stores/define-script.ts'
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
  const [, tenantName, customerId, email, name, role, linkedAt, expiresAt, locale, token] = stored as [
    2, string, string, string, string, LinkedAccount['role'], number, number, string, PackedToken | string
  ]
  const account = { tenantId, tenantName, customerId, email, name, role, linkedAt, expiresAt, token: '', ...(locale ? { locale } : {}) }
  return linkedAccountSchema.parse({ ...account, token: typeof token === 'string' ? token : unpackToken(account as LinkedAccount, token) })
}

const byTenant = (a: LinkedAccount, b: LinkedAccount): number => a.tenantId.localeCompare(b.tenantId)

// An account's record is kept in pieces of at most 64 bytes (whole characters): the tenant id's field holds the
// first, `<n>:<tenant id>` the n-th after it. Redis keeps a hash whose values are all that short as a compact
// listpack (hash-max-listpack-value, 64 by default) instead of a hash table: a phone with one club keeps about
// 340 bytes instead of 410. A record in one field (written before) reads the same.
const PIECE_BYTES = 64
const pieceField = (tenantId: string, n: number): string => `${n}:${tenantId}`

function pieces (record: string): string[] {
  const found: string[] = []
  let piece = ''
  let bytes = 0
  for (const char of record) {
    const size = Buffer.byteLength(char)
    if (bytes + size > PIECE_BYTES) {
      found.push(piece)
      piece = ''
      bytes = 0
    }
    piece += char
    bytes += size
  }
  return [...found, piece]
}

/** The account records of a phone's hash, by tenant id, their pieces joined. */
function records (fields: Record<string, string>): Array<[tenantId: string, raw: string]> {
  return Object.entries(fields).filter(([field]) => isAccountField(field)).map(([tenantId, first]) => {
    let raw = first
    for (let n = 1; fields[pieceField(tenantId, n)] !== undefined; n++) raw += fields[pieceField(tenantId, n)]
    return [tenantId, raw]
  })
}

// Writes an account's pieces and drops the pieces after them that a longer record left (none given: drops the
// account and its other field too), in one script so that a reader never joins pieces of two records. Answers
// the record it replaced ('' none), which the caller needs to clean the member's phones.
// KEYS accounts; ARGV tenantId, another field to drop with the account ('' none), then the pieces
const putPieces = defineScript<[tenantId: string, drop: string, ...pieces: string[]], string>({
  name: 'linkedAccountPut',
  keys: 1,
  lua: `
local before = {redis.call('HGET', KEYS[1], ARGV[1]) or ''}
local n = #ARGV - 2
local i = 1
while true do
  local piece = redis.call('HGET', KEYS[1], i .. ':' .. ARGV[1])
  if not piece then break end
  before[#before + 1] = piece
  if i >= n then redis.call('HDEL', KEYS[1], i .. ':' .. ARGV[1]) end
  i = i + 1
end
if n == 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
  if ARGV[2] ~= '' then redis.call('HDEL', KEYS[1], ARGV[2]) end
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  for j = 4, #ARGV do redis.call('HSET', KEYS[1], (j - 3) .. ':' .. ARGV[1], ARGV[j]) end
end
return table.concat(before)`,
})

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
 * A hash per phone: tenantId -> the account's record (in pieces, above), and a set per (club, member) of their phones. The two live on
 * different cluster slots, so the set is a hint: it is written before the account and cleaned after it, and
 * every phone it names is checked against that phone's accounts when read.
 */
export class RedisLinkedAccountStore implements LinkedAccountStore {
  constructor (private readonly redis: RedisClient) {}

  private async account (phone: string, tenantId: string): Promise<LinkedAccount | undefined> {
    return (await this.links(phone)).accounts.find((a) => a.tenantId === tenantId)
  }

  async list (phone: string) { return (await this.links(phone)).accounts }

  async links (phone: string): Promise<PhoneLinks> {
    const fields = Object.entries(await this.redis.hgetall(keys.chat.linking.accounts(phone)))
    const accounts = records(Object.fromEntries(fields)).map(([tenantId, raw]) => decodeAccount(tenantId, raw)).sort(byTenant)
    const off = new Set(fields.filter(([field]) => field.startsWith(UPDATES_OFF_PREFIX)).map(([field]) => field.slice(UPDATES_OFF_PREFIX.length)))
    return { accounts, updatesOff: accounts.filter((a) => off.has(a.tenantId)).map((a) => a.tenantId) }
  }

  async put (phone: string, account: LinkedAccount) {
    const record = pieces(encodeAccount(linkedAccountSchema.parse(account)))
    const added = this.redis.sadd(keys.chat.linking.members(account.tenantId, account.customerId), phone)
    // the set before the account: one Redis runs them in the order sent (one round trip); a cluster keeps them on
    // different nodes, in no order with each other, so there the account waits for the set's answer
    if (this.redis.isCluster) await added
    const [, before] = await Promise.all([added, putPieces(this.redis, [keys.chat.linking.accounts(phone)], account.tenantId, '', ...record)])
    const customerId = before ? decodeAccount(account.tenantId, before).customerId : undefined
    if (customerId !== undefined && customerId !== account.customerId) await this.redis.srem(keys.chat.linking.members(account.tenantId, customerId), phone)
  }

  async remove (phone: string, tenantId: string) {
    const before = await putPieces(this.redis, [keys.chat.linking.accounts(phone)], tenantId, UPDATES_OFF(tenantId))
    if (before) await this.redis.srem(keys.chat.linking.members(tenantId, decodeAccount(tenantId, before).customerId), phone)
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
