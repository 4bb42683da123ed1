import type { Actor } from '../auth/actor.ts'
import { defineScript } from '../stores/define-script.ts'
import type { LockHold } from '../stores/locks.ts'
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
  /** The club's unsettled carts noted before `before` (ms). */
  olderThan (tenantId: string, before: number): Promise<Unsettled[]>
  /**
   * The cart's completion lock (keys.orders.completionLock) taken with the cart noted as `entry`, unless an earlier
   * attempt's note is there (`earlier`), and given back with the note forgotten when `settled()` says so by then:
   * a completion's guard in two round trips (it was five: the lock's two, a read, a write and a delete of the note).
   */
  completing (tenantId: string, entry: Unsettled, settled: () => boolean): LockHold<{ earlier: boolean }>
  /** The same lock taken with the cart's note read (undefined: settled meanwhile), given back as `completing`'s. */
  settling (tenantId: string, cartId: string, settled: () => boolean): LockHold<{ entry: Unsettled | undefined }>
}

class MemoryUnsettledStore implements UnsettledStore {
  private readonly clubs = new Map<string, Map<string, Unsettled>>()

  async note (tenantId: string, entry: Unsettled) {
    const club = this.clubs.get(tenantId) ?? new Map<string, Unsettled>()
    club.set(entry.cartId, structuredClone(entry))
    this.clubs.set(tenantId, club)
  }

  async forget (tenantId: string, cartId: string) { this.clubs.get(tenantId)?.delete(cartId) }

  async olderThan (tenantId: string, before: number) {
    return [...this.clubs.get(tenantId)?.values() ?? []].filter((e) => e.at < before).map((e) => structuredClone(e))
  }

  // the process's lock queue (MemoryLocks) is the lock: these only note, read and forget
  completing (tenantId: string, entry: Unsettled, settled: () => boolean): LockHold<{ earlier: boolean }> {
    return {
      take: async () => {
        const earlier = this.clubs.get(tenantId)?.has(entry.cartId) === true
        if (!earlier) await this.note(tenantId, entry)
        return { earlier }
      },
      give: async () => { if (settled()) await this.forget(tenantId, entry.cartId) },
    }
  }

  settling (tenantId: string, cartId: string, settled: () => boolean): LockHold<{ entry: Unsettled | undefined }> {
    return {
      take: async () => {
        const found = this.clubs.get(tenantId)?.get(cartId)
        return { entry: found && structuredClone(found) }
      },
      give: async () => { if (settled()) await this.forget(tenantId, cartId) },
    }
  }
}

// KEYS: the cart's completion lock, the club's unsettled hash. ARGV: token, ttl (ms), cart id, the note to write
// when there is none ('' writes nothing). Answers nil while another holder has the lock, else {the note there
// before, or ''}.
const take = defineScript<[token: string, ttlMs: number, cartId: string, note: string], { before: string } | undefined>({
  name: 'completionTake',
  keys: 2,
  lua: `
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return false end
local before = redis.call('HGET', KEYS[2], ARGV[3])
if not before and ARGV[4] ~= '' then redis.call('HSET', KEYS[2], ARGV[3], ARGV[4]) end
return {before or ''}`,
  decode: (raw) => Array.isArray(raw) ? { before: String(raw[0]) } : undefined,
})

// KEYS: the cart's completion lock, the club's unsettled hash. ARGV: token, cart id, '1' to forget its note. The
// note is forgotten whoever holds the lock now; the lock is deleted only while still the token's.
const give = defineScript<[token: string, cartId: string, forget: string], unknown>({
  name: 'completionGive',
  keys: 2,
  lua: `
if ARGV[3] == '1' then redis.call('HDEL', KEYS[2], ARGV[2]) end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`,
})

class RedisUnsettledStore implements UnsettledStore {
  constructor (private readonly redis: RedisClient) {}

  async note (tenantId: string, entry: Unsettled) {
    await this.redis.hset(keys.orders.unsettled(tenantId), entry.cartId, JSON.stringify(entry))
  }

  async forget (tenantId: string, cartId: string) {
    await this.redis.hdel(keys.orders.unsettled(tenantId), cartId)
  }

  async olderThan (tenantId: string, before: number) {
    await this.moveLegacy(tenantId)
    const all = Object.values(await this.redis.hgetall(keys.orders.unsettled(tenantId))).map((raw) => JSON.parse(raw) as Unsettled)
    return all.filter((e) => e.at < before)
  }

  completing (tenantId: string, entry: Unsettled, settled: () => boolean): LockHold<{ earlier: boolean }> {
    const hold = this.hold(tenantId, entry.cartId, JSON.stringify(entry), settled)
    return {
      take: async (token, ttlMs) => {
        const taken = await hold.take(token, ttlMs)
        return taken && { earlier: taken.before !== '' }
      },
      give: hold.give,
    }
  }

  settling (tenantId: string, cartId: string, settled: () => boolean): LockHold<{ entry: Unsettled | undefined }> {
    const hold = this.hold(tenantId, cartId, '', settled)
    return {
      take: async (token, ttlMs) => {
        const taken = await hold.take(token, ttlMs)
        return taken && { entry: taken.before === '' ? undefined : JSON.parse(taken.before) as Unsettled }
      },
      give: hold.give,
    }
  }

  private hold (tenantId: string, cartId: string, note: string, settled: () => boolean): LockHold<{ before: string }> {
    const on = [keys.orders.completionLock(tenantId, cartId), keys.orders.unsettled(tenantId)]
    return {
      take: async (token, ttlMs) => await take(this.redis, on, token, ttlMs, cartId, note),
      give: async (token) => { await give(this.redis, on, token, cartId, settled() ? '1' : '0') },
    }
  }

  /**
   * Notes of the club's hash of before, when it had no hash tag (an instance of before may still write some during
   * a rolling update), moved into the tagged one: one read of an absent key per club and sweep once none is left.
   */
  private async moveLegacy (tenantId: string): Promise<void> {
    const legacy = keys.orders.legacyUnsettled(tenantId)
    const notes = Object.entries(await this.redis.hgetall(legacy))
    if (notes.length === 0) return
    for (const [cartId, raw] of notes) await this.redis.hsetnx(keys.orders.unsettled(tenantId), cartId, raw)
    await this.redis.hdel(legacy, ...notes.map(([cartId]) => cartId))
  }
}

export function createUnsettledStore (redis: RedisClient | null): UnsettledStore {
  return redis ? new RedisUnsettledStore(redis) : new MemoryUnsettledStore()
}
