import type { RedisClient } from '../stores/redis-client.ts'
import type { Role } from './roles.ts'
import { defineScript } from '../stores/define-script.ts'
import { keys } from '../stores/keys.ts'
import { AppError, conflict } from '../errors.ts'
import { clubNameKey, staffSchema, tenantSchema, type Staff, type Tenant, type TenantInput } from './model.ts'

/** What a role change or removal came to: refused when it would leave the club without an admin. */
type StaffChange = 'ok' | 'missing' | 'last-admin'
export type StaffRole = Exclude<Role, 'member'>

/** A club's record as the store hands it out: frozen, so every reader of one stored version can share it. */
export type StoredTenant = Frozen<Tenant>
type Frozen<T> = T extends ReadonlyArray<infer U> ? ReadonlyArray<Frozen<U>> : T extends object ? { readonly [K in keyof T]: Frozen<T[K]> } : T

export interface TenantStore {
  get (id: string): Promise<StoredTenant | undefined>
  list (): Promise<StoredTenant[]>
  /** Writes the tenant whole (creates or replaces). */
  put (tenant: TenantInput): Promise<Tenant>
  /** Creates the tenant unless its id is taken; false when taken. */
  create (tenant: TenantInput): Promise<boolean>
  /**
   * Changes a tenant with `change` (which may run again if someone wrote in between); undefined when there is none.
   * A new name another club has (clubNameKey: whatever the case, spacing or normalisation) is a 409, decided with
   * the write.
   */
  update (id: string, change: (tenant: Tenant) => TenantInput): Promise<Tenant | undefined>
  getStaff (email: string): Promise<Staff | undefined>
  /** Writes a staff entry and puts it on the roster of each of its clubs. */
  putStaff (staff: Staff): Promise<void>
  /** The club's staff, by email. */
  listStaff (tenantId: string): Promise<Staff[]>
  /**
   * Changes a staff member's role at a club, or (role null) takes them off its roster; either moves their
   * revocation time on, so tokens signed before are refused from the next request on.
   */
  changeStaff (tenantId: string, email: string, role: StaffRole | null): Promise<StaffChange>
  /**
   * The second (Unix time) before which the staff member's tokens are refused: 0 until their first change. A
   * token's own `iat` is compared with it, so a token carries no claim of its own for this.
   */
  staffRevokedBefore (staffId: string): Promise<number>
}

/** The roster change as one decision, shared by both stores: the last admin is never demoted or removed. */
function decideStaffChange (roster: Record<string, string>, email: string, role: StaffRole | null): StaffChange {
  const current = roster[email]
  if (!current) return 'missing'
  if (current !== 'admin' || role === 'admin') return 'ok'
  return Object.values(roster).filter((r) => r === 'admin').length > 1 ? 'ok' : 'last-admin'
}

const UPDATE_ATTEMPTS = 10

/** The record frozen through and through: a write to any part of it throws (modules run in strict mode). */
function frozen (tenant: Tenant): StoredTenant {
  const freeze = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return
    for (const inner of Object.values(value)) freeze(inner)
    Object.freeze(value)
  }
  freeze(tenant)
  return tenant
}

const nameTaken = (): AppError => conflict('Another club has this name: choose another')

/** Whether `next` renames its club to a name one of `others` has. */
function takesAName (current: Tenant, next: Tenant, others: Tenant[]): boolean {
  const key = clubNameKey(next.name)
  return key !== clubNameKey(current.name) && others.some((t) => t.id !== next.id && clubNameKey(t.name) === key)
}

/** The staff entry after a roster change at one club (undefined: no club left). */
function changedEntry (staff: Staff, tenantId: string, role: StaffRole | null): Staff | undefined {
  if (role) return { ...staff, role }
  const tenants = staff.tenants.filter((t) => t !== tenantId)
  return tenants.length > 0 ? { ...staff, tenants } : undefined
}

/**
 * The revocation time a role change or removal sets: the next whole second, so every token signed up to now (its
 * iat in whole seconds) is older, and the login after it signs with an iat of at least this (src/accounts/login.ts).
 */
function revocationSecond (): number {
  return Math.floor(Date.now() / 1000) + 1
}

export class MemoryTenantStore implements TenantStore {
  private readonly tenants = new Map<string, StoredTenant>()
  private readonly staff = new Map<string, Staff>()
  private readonly revoked = new Map<string, number>()

  async get (id: string) { return this.tenants.get(id) }
  async list () { return [...this.tenants.values()].sort((a, b) => a.id.localeCompare(b.id)) }
  async put (input: TenantInput) {
    const tenant = tenantSchema.parse(input)
    this.tenants.set(tenant.id, frozen(structuredClone(tenant)))
    return tenant
  }

  async create (input: TenantInput) {
    if (this.tenants.has(input.id)) return false
    await this.put(input)
    return true
  }

  async update (id: string, change: (tenant: Tenant) => TenantInput) {
    const current = this.tenants.get(id)
    if (!current) return undefined
    const next = tenantSchema.parse(change(structuredClone(current)))
    if (takesAName(current, next, [...this.tenants.values()])) throw nameTaken()
    return await this.put(next)
  }

  async getStaff (email: string) { return structuredClone(this.staff.get(email.toLowerCase())) }
  async putStaff (staff: Staff) { this.staff.set(staff.email.toLowerCase(), structuredClone(staff)) }
  async listStaff (tenantId: string) {
    return [...this.staff.values()].filter((s) => s.tenants.includes(tenantId)).map((s) => structuredClone(s)).sort((a, b) => a.email.localeCompare(b.email))
  }

  async changeStaff (tenantId: string, email: string, role: StaffRole | null) {
    // No await before the write: the decision and the change happen in one turn, as the script does in Redis.
    const roster = Object.fromEntries([...this.staff.values()].filter((s) => s.tenants.includes(tenantId)).map((s) => [s.email.toLowerCase(), s.role]))
    const change = decideStaffChange(roster, email.toLowerCase(), role)
    const staff = this.staff.get(email.toLowerCase())
    if (change !== 'ok' || !staff) return change
    const next = changedEntry(staff, tenantId, role)
    if (next) this.staff.set(staff.email.toLowerCase(), next)
    else this.staff.delete(staff.email.toLowerCase())
    this.revoked.set(staff.id, Math.max(this.revoked.get(staff.id) ?? 0, revocationSecond()))
    return change
  }

  async staffRevokedBefore (staffId: string) { return this.revoked.get(staffId) ?? 0 }
}

/** KEYS: the club's roster hash (email -> role). ARGV: email, new role ('' removes). Mirrors decideStaffChange. */
const changeStaff = defineScript<[email: string, role: string], StaffChange>({
  name: 'tenantStaffChange',
  keys: 1,
  lua: `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return 'missing' end
if current == 'admin' and ARGV[2] ~= 'admin' then
  local admins = 0
  local roster = redis.call('HVALS', KEYS[1])
  for i = 1, #roster do if roster[i] == 'admin' then admins = admins + 1 end end
  if admins <= 1 then return 'last-admin' end
end
if ARGV[2] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 'ok'`,
})

/** KEYS: the staff member's revocation time. ARGV: the new one (Unix seconds). Only ever moves forward. */
const raiseRevocation = defineScript<[second: number], void>({
  name: 'tenantStaffRevoke',
  keys: 1,
  lua: `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > current then redis.call('SET', KEYS[1], ARGV[1]) end`,
  decode: () => undefined,
})

/**
 * KEYS: the tenant record, the names hash. ARGV: the record as read, the new one, the club id, its new name key ('':
 * the name stays). Compare-and-set ('changed' when it changed meanwhile), taking a new name unless another club did.
 */
const replaceTenant = defineScript<[was: string, next: string, id: string, nameKey: string], 'ok' | 'changed' | 'name-taken'>({
  name: 'tenantReplace',
  keys: 2,
  lua: `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 'changed' end
if ARGV[4] ~= '' then
  local owner = redis.call('HGET', KEYS[2], 'n:' .. ARGV[4])
  if owner and owner ~= ARGV[3] then return 'name-taken' end
  local had = redis.call('HGET', KEYS[2], 'i:' .. ARGV[3])
  if had and redis.call('HGET', KEYS[2], 'n:' .. had) == ARGV[3] then redis.call('HDEL', KEYS[2], 'n:' .. had) end
  redis.call('HSET', KEYS[2], 'n:' .. ARGV[4], ARGV[3], 'i:' .. ARGV[3], ARGV[4])
end
redis.call('SET', KEYS[1], ARGV[2])
return 'ok'`,
})

/** How long an instance answers a club's record from memory: a change made on another instance shows within it. */
export const TENANT_CACHE_MS = 5_000

export class RedisTenantStore implements TenantStore {
  // Chat turns and requests read club records all the time and they rarely change: a record read is kept for
  // `cacheMs` (this instance's own writes drop it at once), each stored version is validated and frozen once,
  // and every read gets that frozen record (a turn reads one or two: a copy each cost more than the rest of the
  // read). A club not found is not kept.
  private readonly kept = new Map<string, { raw: string, tenant: StoredTenant, at: number }>()

  constructor (private readonly redis: RedisClient, private readonly cacheMs = TENANT_CACHE_MS, private readonly now: () => number = Date.now) {}

  private parse (id: string, raw: string): StoredTenant {
    const known = this.kept.get(id)
    const tenant = known?.raw === raw ? known.tenant : frozen(tenantSchema.parse(JSON.parse(raw)))
    this.kept.set(id, { raw, tenant, at: this.now() })
    return tenant
  }

  async get (id: string) {
    const known = this.kept.get(id)
    if (known && this.now() - known.at < this.cacheMs) return known.tenant
    const raw = await this.redis.get(keys.tenants.one(id))
    if (raw) return this.parse(id, raw)
    this.kept.delete(id)
    return undefined
  }

  async list () {
    const ids = (await this.redis.smembers(keys.tenants.all())).sort()
    if (ids.length === 0) return []
    const raws = await this.redis.mget(ids.map((id) => keys.tenants.one(id)))
    return raws.flatMap((raw, i) => raw ? [this.parse(ids[i] as string, raw)] : [])
  }

  async put (input: TenantInput) {
    const tenant = tenantSchema.parse(input)
    await this.redis.multi().set(keys.tenants.one(tenant.id), JSON.stringify(tenant)).sadd(keys.tenants.all(), tenant.id).exec()
    this.kept.delete(tenant.id)
    return tenant
  }

  async create (input: TenantInput) {
    const tenant = tenantSchema.parse(input)
    if (await this.redis.set(keys.tenants.one(tenant.id), JSON.stringify(tenant), 'NX') !== 'OK') return false
    this.kept.delete(tenant.id)
    // The list is a set: adding twice is harmless, so it need not share the record's write.
    await this.redis.sadd(keys.tenants.all(), tenant.id)
    return true
  }

  async update (id: string, change: (tenant: Tenant) => TenantInput) {
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const raw = await this.redis.get(keys.tenants.one(id))
      if (!raw) return undefined
      const current = tenantSchema.parse(JSON.parse(raw))
      const next = tenantSchema.parse(change(current))
      const renamed = clubNameKey(next.name) !== clubNameKey(current.name)
      // Clubs never renamed are not in the names hash: their records are read; the script decides between renames.
      if (renamed && takesAName(current, next, await this.list())) throw nameTaken()
      const done = await replaceTenant(
        this.redis, [keys.tenants.one(id), keys.tenants.names()], raw, JSON.stringify(next), id, renamed ? clubNameKey(next.name) : ''
      )
      if (done === 'name-taken') throw nameTaken()
      if (done === 'ok') {
        this.kept.delete(id)
        return next
      }
    }
    throw new Error(`tenant ${id} kept changing while being updated`)
  }

  async getStaff (email: string) {
    const raw = await this.redis.get(keys.staff.byEmail(email))
    return raw ? staffSchema.parse(JSON.parse(raw)) : undefined
  }

  async putStaff (staff: Staff) {
    await this.redis.set(keys.staff.byEmail(staff.email), JSON.stringify(staff))
    for (const tenantId of staff.tenants) await this.redis.hset(keys.staff.roster(tenantId), staff.email.toLowerCase(), staff.role)
  }

  async listStaff (tenantId: string) {
    const emails = (await this.redis.hkeys(keys.staff.roster(tenantId))).sort()
    if (emails.length === 0) return []
    // one read per person: their records sit in different slots of a cluster, which refuses an MGET across them
    const raws = await Promise.all(emails.map(async (e) => await this.redis.get(keys.staff.byEmail(e))))
    return raws.flatMap((raw) => raw ? [staffSchema.parse(JSON.parse(raw))] : [])
  }

  async changeStaff (tenantId: string, email: string, role: StaffRole | null) {
    // The roster decides (one script: two admins demoting each other cannot both win); the entry follows.
    const change = await changeStaff(this.redis, [keys.staff.roster(tenantId)], email.toLowerCase(), role ?? '')
    const staff = await this.getStaff(email)
    if (change !== 'ok' || !staff) return change
    const next = changedEntry(staff, tenantId, role)
    if (next) await this.redis.set(keys.staff.byEmail(email), JSON.stringify(next))
    else await this.redis.del(keys.staff.byEmail(email))
    // Moved on after the entry: a login reading this time then reads the changed entry (src/accounts/login.ts).
    await raiseRevocation(this.redis, [keys.staff.revokedBefore(staff.id)], revocationSecond())
    return change
  }

  async staffRevokedBefore (staffId: string) {
    return Number(await this.redis.get(keys.staff.revokedBefore(staffId)) ?? 0)
  }
}

export function createTenantStore (redis: RedisClient | null): TenantStore {
  return redis ? new RedisTenantStore(redis) : new MemoryTenantStore()
}
