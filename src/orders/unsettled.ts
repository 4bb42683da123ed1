import type { Actor } from '../auth/actor.ts'
import type { RedisClient } from '../stores/redis-client.ts'
import { keys } from '../stores/keys.ts'
import type { Role } from '../tenants/roles.ts'

// Carts being completed whose outcome is not settled yet. A completion is noted before the backend is asked and
// forgotten once its order is recorded (or the backend refused it); what stays was interrupted (the backend's
// answer lost, a timeout, this process killed) and is read back later by StoreFront.settle, which records the
// order and tells staff, or gives the member's reservation back. One hash per club: a club's sweep reads its own.

/** Who completed the cart (the member, or staff for them): the settlement acts as them. */
export interface Completer { sub: string, email: string | undefined, name: string | undefined, role: Role }

export const completerOf = (actor: Actor): Completer => ({ sub: actor.sub, email: actor.email, name: actor.name, role: actor.role })

export interface Unsettled {
  cartId: string
  memberId: string
  holdId: string
  by: Completer
  /** When the completion was asked for (ms). */
  at: number
}

export interface UnsettledStore {
  note (tenantId: string, entry: Unsettled): Promise<void>
  forget (tenantId: string, cartId: string): Promise<void>
  get (tenantId: string, cartId: string): Promise<Unsettled | undefined>
  /** The club's unsettled carts noted before `before` (ms). */
  olderThan (tenantId: string, before: number): Promise<Unsettled[]>
}

class MemoryUnsettledStore implements UnsettledStore {
  private readonly clubs = new Map<string, Map<string, Unsettled>>()

  async note (tenantId: string, entry: Unsettled) {
    const club = this.clubs.get(tenantId) ?? new Map<string, Unsettled>()
    club.set(entry.cartId, structuredClone(entry))
    this.clubs.set(tenantId, club)
  }

  async forget (tenantId: string, cartId: string) { this.clubs.get(tenantId)?.delete(cartId) }

  async get (tenantId: string, cartId: string) {
    const found = this.clubs.get(tenantId)?.get(cartId)
    return found && structuredClone(found)
  }

  async olderThan (tenantId: string, before: number) {
    return [...this.clubs.get(tenantId)?.values() ?? []].filter((e) => e.at < before).map((e) => structuredClone(e))
  }
}

class RedisUnsettledStore implements UnsettledStore {
  constructor (private readonly redis: RedisClient) {}

  async note (tenantId: string, entry: Unsettled) {
    await this.redis.hset(keys.orders.unsettled(tenantId), entry.cartId, JSON.stringify(entry))
  }

  async forget (tenantId: string, cartId: string) {
    await this.redis.hdel(keys.orders.unsettled(tenantId), cartId)
  }

  async get (tenantId: string, cartId: string) {
    const raw = await this.redis.hget(keys.orders.unsettled(tenantId), cartId)
    return raw === null ? undefined : JSON.parse(raw) as Unsettled
  }

  async olderThan (tenantId: string, before: number) {
    const all = Object.values(await this.redis.hgetall(keys.orders.unsettled(tenantId))).map((raw) => JSON.parse(raw) as Unsettled)
    return all.filter((e) => e.at < before)
  }
}

export function createUnsettledStore (redis: RedisClient | null): UnsettledStore {
  return redis ? new RedisUnsettledStore(redis) : new MemoryUnsettledStore()
}
