import type { RedisClient } from '../plugins/redis.ts'
import { keys } from '../stores/keys.ts'
import { staffSchema, tenantSchema, type Staff, type Tenant } from './model.ts'

export interface TenantStore {
  get (id: string): Promise<Tenant | undefined>
  list (): Promise<Tenant[]>
  put (tenant: Tenant): Promise<void>
  getStaff (email: string): Promise<Staff | undefined>
  putStaff (staff: Staff): Promise<void>
}

export class MemoryTenantStore implements TenantStore {
  private readonly tenants = new Map<string, Tenant>()
  private readonly staff = new Map<string, Staff>()

  async get (id: string) { return structuredClone(this.tenants.get(id)) }
  async list () { return [...this.tenants.values()].map((t) => structuredClone(t)).sort((a, b) => a.id.localeCompare(b.id)) }
  async put (tenant: Tenant) { this.tenants.set(tenant.id, structuredClone(tenant)) }
  async getStaff (email: string) { return structuredClone(this.staff.get(email.toLowerCase())) }
  async putStaff (staff: Staff) { this.staff.set(staff.email.toLowerCase(), structuredClone(staff)) }
}

export class RedisTenantStore implements TenantStore {
  constructor (private readonly redis: RedisClient) {}

  async get (id: string) {
    const raw = await this.redis.get(keys.tenants.one(id))
    return raw ? tenantSchema.parse(JSON.parse(raw)) : undefined
  }

  async list () {
    const ids = (await this.redis.smembers(keys.tenants.all())).sort()
    if (ids.length === 0) return []
    const raws = await this.redis.mget(ids.map((id) => keys.tenants.one(id)))
    return raws.flatMap((raw) => raw ? [tenantSchema.parse(JSON.parse(raw))] : [])
  }

  async put (tenant: Tenant) {
    await this.redis.multi().set(keys.tenants.one(tenant.id), JSON.stringify(tenant)).sadd(keys.tenants.all(), tenant.id).exec()
  }

  async getStaff (email: string) {
    const raw = await this.redis.get(keys.staff.byEmail(email))
    return raw ? staffSchema.parse(JSON.parse(raw)) : undefined
  }

  async putStaff (staff: Staff) {
    await this.redis.set(keys.staff.byEmail(staff.email), JSON.stringify(staff))
  }
}

export function createTenantStore (redis: RedisClient | null): TenantStore {
  return redis ? new RedisTenantStore(redis) : new MemoryTenantStore()
}
