import type { RedisClient } from '../../stores/redis-client.ts'
import { keys, NOTIFICATION_SHARDS, notificationShard } from '../../stores/keys.ts'
import { ROLES } from '../../tenants/roles.ts'
import { NOTIFICATION_DOMAINS, NOTIFICATION_SOURCES } from '../types.ts'
import { broadcastSchema, notificationSchema, type Broadcast, type ListQuery, type Notification, type RecipientScope } from '../model.ts'
import type { Created, NotificationStore } from './port.ts'
import * as script from './scripts.ts'

const PURGE_BATCH = 500

/** The mutable part of a record lives in its own hash fields; the rest is one JSON field. */
function toRecord (n: Notification): string {
  const { isRead: _isRead, readAt: _readAt, updatedAt: _updatedAt, ...fixed } = n
  return JSON.stringify(fixed)
}

function fromRecord (data: string, readAt: string, updatedAt: string): Notification {
  return notificationSchema.parse({ ...JSON.parse(data), isRead: readAt !== '', readAt: readAt || null, updatedAt })
}

function filterSets (q: ListQuery): string[] {
  const sets: string[] = []
  if (q.isRead !== undefined) sets.push(q.isRead ? 'read' : 'unread')
  if (q.domain) sets.push(`d:${q.domain}`)
  if (q.source) sets.push(`s:${q.source}`)
  return sets
}

/** Every key a recipient's script touches, in the order the scripts read KEYS (see scripts.ts). */
export function recipientScriptKeys (scope: RecipientScope): string[] {
  const k = keys.notifications.recipient(scope.tenantId, scope.recipientId)
  const named: Record<typeof script.RECIPIENT_KEY_NAMES[number], string> = {
    registry: keys.notifications.expiring(scope.tenantId, notificationShard(scope.recipientId)),
    all: k.all,
    unread: k.unread,
    read: k.read,
    exp: k.expiry,
    records: k.records,
    ext: k.external,
    tmp: k.scratch,
  }
  return [...script.RECIPIENT_KEY_NAMES.map((name) => named[name]), ...NOTIFICATION_DOMAINS.map(k.domain), ...NOTIFICATION_SOURCES.map(k.source)]
}

export class RedisNotificationStore implements NotificationStore {
  constructor (private readonly redis: RedisClient) {}

  async create (n: Notification, now: number): Promise<Created> {
    const createdAt = Date.parse(n.createdAt)
    const expiresAt = Date.parse(n.expiresAt)
    const [created, unreadCount] = await script.create(this.redis, recipientScriptKeys(n),
      now, n.recipientId, n.id, n.externalId, createdAt, expiresAt, n.domain, n.source, toRecord(n), n.createdAt)
    return { created: created === 1, unreadCount }
  }

  async list (scope: RecipientScope, q: ListQuery, now: number) {
    const { total, records } = await script.list(this.redis, recipientScriptKeys(scope), now, scope.recipientId, q.offset, q.limit, ...filterSets(q))
    return { notifications: records.map((r) => fromRecord(...r)), total }
  }

  async unreadCount (scope: RecipientScope, now: number) {
    return await script.unreadCount(this.redis, recipientScriptKeys(scope), now, scope.recipientId)
  }

  async markRead (scope: RecipientScope, externalId: string, now: number) {
    const found = await script.markRead(this.redis, recipientScriptKeys(scope), now, scope.recipientId, externalId, new Date(now).toISOString())
    if (!found) return undefined
    return { notification: fromRecord(found[0], found[1], found[2]), unreadCount: found[3] }
  }

  async markAllRead (scope: RecipientScope, now: number) {
    return await script.markAllRead(this.redis, recipientScriptKeys(scope), now, scope.recipientId, new Date(now).toISOString())
  }

  async purgeExpired (tenantId: string, now: number) {
    for (const role of ROLES) await script.pruneBroadcasts(this.redis, this.feedKeys(tenantId, role), now)
    let purged = 0
    for (let shard = 0; shard < NOTIFICATION_SHARDS; shard++) {
      const registry = keys.notifications.expiring(tenantId, shard)
      for (;;) {
        // each purge moves the recipient's score past now or removes it, so this ends
        const due = await this.redis.zrangebyscore(registry, '-inf', now, 'LIMIT', 0, PURGE_BATCH)
        if (due.length === 0) break
        for (const recipientId of due) {
          purged += await script.purge(this.redis, recipientScriptKeys({ tenantId, recipientId }), now, recipientId)
        }
      }
    }
    return purged
  }

  private feedKeys (tenantId: string, role: string): string[] {
    return [keys.notifications.broadcastFeed(tenantId, role), keys.notifications.broadcastFeedExpiry(tenantId, role)]
  }

  async addBroadcast (b: Broadcast, now: number) {
    return await script.addBroadcast(this.redis,
      [...this.feedKeys(b.tenantId, b.recipientRole), keys.notifications.broadcastSeq(b.tenantId), keys.notifications.broadcast(b.tenantId, b.id)],
      now, b.id, JSON.stringify(b), Date.parse(b.expiresAt))
  }

  async broadcastsAfter (tenantId: string, role: string, afterSeq: number, now: number) {
    const feed = keys.notifications.broadcastFeed(tenantId, role)
    const entries = await this.redis.zrangebyscore(feed, `(${afterSeq}`, '+inf', 'WITHSCORES')
    if (entries.length === 0) return []
    const ids = entries.filter((_, i) => i % 2 === 0)
    // the records share the feed's tag, so one MGET reads them on a cluster too
    const raws = await this.redis.mget(ids.map((id) => keys.notifications.broadcast(tenantId, id)))
    const gone = ids.filter((_, i) => !raws[i])
    if (gone.length > 0) await this.redis.zrem(feed, ...gone)
    return raws.flatMap((raw, i) => {
      if (!raw) return []
      const broadcast = broadcastSchema.parse(JSON.parse(raw))
      return Date.parse(broadcast.expiresAt) > now ? [{ seq: Number(entries[i * 2 + 1]), broadcast }] : []
    })
  }

  private cursorKey (scope: RecipientScope, role: string): string {
    return keys.notifications.recipient(scope.tenantId, scope.recipientId).broadcastCursor(role)
  }

  async broadcastCursor (scope: RecipientScope, role: string) {
    return Number(await this.redis.get(this.cursorKey(scope, role)) ?? 0)
  }

  async setBroadcastCursor (scope: RecipientScope, role: string, seq: number, until: number) {
    await script.advanceCursor(this.redis, [this.cursorKey(scope, role)], seq, until)
  }

  async forget (scope: RecipientScope) {
    const [registry, ...own] = recipientScriptKeys(scope)
    const k = keys.notifications.recipient(scope.tenantId, scope.recipientId)
    // every key is under the recipient's shard tag, the expiry registry too: one MULTI
    const done = await this.redis.multi()
      .zcard(k.all)
      .del(...own, ...ROLES.map(k.broadcastCursor))
      .zrem(registry as string, scope.recipientId)
      .exec()
    return Number(done?.[0]?.[1] ?? 0)
  }
}
