import { ROLES } from '../../tenants/roles.ts'
import { ExpiringMap, type Clock } from '../../stores/expiring-map.ts'
import type { Broadcast, ListQuery, Notification, RecipientScope } from '../model.ts'
import type { Created, NotificationStore } from './port.ts'

interface Inbox {
  byId: Map<string, Notification>
  byExternalId: Map<string, string>
}

const newestFirst = (a: Notification, b: Notification): number =>
  Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

type Feed = Array<{ seq: number, broadcast: Broadcast }>
const unexpired = (feed: Feed, now: number): Feed => feed.filter((e) => Date.parse(e.broadcast.expiresAt) > now)

const cursorKey = (scope: RecipientScope, role: string): string => `${scope.tenantId}\n${scope.recipientId}\n${role}`

const matches = (q: ListQuery) => (n: Notification): boolean =>
  (q.domain === undefined || n.domain === q.domain) &&
  (q.source === undefined || n.source === q.source) &&
  (q.isRead === undefined || n.isRead === q.isRead)

/**
 * One process, nothing survives a restart (REDIS_URL unset); same behaviour as the Redis store, the contract
 * suite runs on both. Notices and broadcasts expire by the `now` each call is given; a broadcast cursor by the
 * clock (Redis' own on the other side), as its `until` is a moment, not a duration.
 */
export class MemoryNotificationStore implements NotificationStore {
  private readonly tenants = new Map<string, Map<string, Inbox>>()
  private readonly feeds = new Map<string, Feed>()
  private readonly cursors: ExpiringMap<number>
  private seq = 0

  constructor (clock: Clock = Date.now) {
    this.cursors = new ExpiringMap(clock)
  }

  private recipients (tenantId: string): Map<string, Inbox> {
    let inboxes = this.tenants.get(tenantId)
    if (!inboxes) this.tenants.set(tenantId, inboxes = new Map())
    return inboxes
  }

  /** The recipient's inbox with its expired notices dropped. */
  private inbox (scope: RecipientScope, now: number): Inbox {
    const inboxes = this.recipients(scope.tenantId)
    let inbox = inboxes.get(scope.recipientId)
    if (!inbox) inboxes.set(scope.recipientId, inbox = { byId: new Map(), byExternalId: new Map() })
    this.dropExpired(inbox, now)
    return inbox
  }

  private dropExpired (inbox: Inbox, now: number): number {
    let dropped = 0
    for (const n of inbox.byId.values()) {
      if (Date.parse(n.expiresAt) > now) continue
      inbox.byId.delete(n.id)
      inbox.byExternalId.delete(n.externalId)
      dropped++
    }
    return dropped
  }

  private unread (inbox: Inbox): number {
    let count = 0
    for (const n of inbox.byId.values()) if (!n.isRead) count++
    return count
  }

  async create (notification: Notification, now: number): Promise<Created> {
    const inbox = this.inbox(notification, now)
    if (inbox.byExternalId.has(notification.externalId)) return { created: false, unreadCount: this.unread(inbox) }
    inbox.byId.set(notification.id, structuredClone(notification))
    inbox.byExternalId.set(notification.externalId, notification.id)
    return { created: true, unreadCount: this.unread(inbox) }
  }

  async list (scope: RecipientScope, q: ListQuery, now: number) {
    const all = [...this.inbox(scope, now).byId.values()].filter(matches(q)).sort(newestFirst)
    return { notifications: all.slice(q.offset, q.offset + q.limit).map((n) => structuredClone(n)), total: all.length }
  }

  async unreadCount (scope: RecipientScope, now: number) {
    return this.unread(this.inbox(scope, now))
  }

  async markRead (scope: RecipientScope, externalId: string, now: number) {
    const inbox = this.inbox(scope, now)
    const id = inbox.byExternalId.get(externalId)
    const n = id === undefined ? undefined : inbox.byId.get(id)
    if (!n) return undefined
    if (!n.isRead) Object.assign(n, { isRead: true, readAt: new Date(now).toISOString(), updatedAt: new Date(now).toISOString() })
    return { notification: structuredClone(n), unreadCount: this.unread(inbox) }
  }

  async markAllRead (scope: RecipientScope, now: number) {
    const at = new Date(now).toISOString()
    let updated = 0
    for (const n of this.inbox(scope, now).byId.values()) {
      if (n.isRead) continue
      Object.assign(n, { isRead: true, readAt: at, updatedAt: at })
      updated++
    }
    return updated
  }

  async purgeExpired (tenantId: string, now: number) {
    for (const [key, feed] of this.feeds) {
      if (key.startsWith(`${tenantId}\n`)) this.feeds.set(key, unexpired(feed, now))
    }
    let purged = 0
    for (const inbox of this.recipients(tenantId).values()) purged += this.dropExpired(inbox, now)
    return purged
  }

  async addBroadcast (broadcast: Broadcast, now: number) {
    const key = `${broadcast.tenantId}\n${broadcast.recipientRole}`
    const feed = unexpired(this.feeds.get(key) ?? [], now)
    const seq = ++this.seq
    feed.push({ seq, broadcast: structuredClone(broadcast) })
    this.feeds.set(key, feed)
    return seq
  }

  async broadcastsAfter (tenantId: string, role: string, afterSeq: number, now: number) {
    const key = `${tenantId}\n${role}`
    const live = unexpired(this.feeds.get(key) ?? [], now)
    this.feeds.set(key, live)
    return live.filter((e) => e.seq > afterSeq).map((e) => structuredClone(e))
  }

  async broadcastCursor (scope: RecipientScope, role: string) {
    return this.cursors.get(cursorKey(scope, role)) ?? 0
  }

  async setBroadcastCursor (scope: RecipientScope, role: string, seq: number, until: number) {
    const key = cursorKey(scope, role)
    const current = this.cursors.entry(key)
    this.cursors.setUntil(key, Math.max(current?.value ?? 0, seq), Math.max(current?.expiresAt ?? 0, until))
  }

  async forget (scope: RecipientScope) {
    const inboxes = this.recipients(scope.tenantId)
    const count = inboxes.get(scope.recipientId)?.byId.size ?? 0
    inboxes.delete(scope.recipientId)
    for (const role of ROLES) this.cursors.take(cursorKey(scope, role))
    return count
  }
}
