import { randomUUID } from 'node:crypto'
import type { Actor } from '../auth/actor.ts'
import { AppError, validationError } from '../errors.ts'
import { keys } from '../stores/keys.ts'
import type { LiveHub, LiveMessage } from './live.ts'
import {
  broadcastSchema, DEFAULT_TTL_MS, newNotificationId, noticeContentSchema, notifyInputSchema, type Broadcast, type ListQuery, type Notification,
  type RecipientScope
} from './model.ts'
import type { NotificationStore } from './store/index.ts'
import type { Notifier, NotifyInput } from './types.ts'

/** The caller of a read: their records, and the role whose broadcasts they receive. */
export interface Reader extends RecipientScope {
  role: string
}

/** An actor reads their own notices (under their token's subject) and their role's broadcasts. */
export function readerOf (actor: Actor): Reader {
  return { tenantId: actor.tenant.id, recipientId: actor.sub, role: actor.role }
}

export interface ServiceDeps {
  store: NotificationStore
  live: LiveHub
  now?: () => number
  /** Live pushes are best effort: a failure is logged, never fails the write that caused it. */
  onPushError: (err: unknown) => void
}

export const recipientChannel = (scope: RecipientScope): string => keys.notifications.liveRecipient(scope.tenantId, scope.recipientId)
export const roleChannel = (tenantId: string, role: string): string => keys.notifications.liveRole(tenantId, role)

function expiry (now: number, expiresAt: string | undefined): string {
  const at = expiresAt === undefined ? now + DEFAULT_TTL_MS : Date.parse(expiresAt)
  if (at <= now) throw new AppError('VALIDATION_ERROR', 'expiresAt must be in the future', { details: { errors: { expiresAt: ['must be in the future'] } } })
  return new Date(at).toISOString()
}

/** Decides what is stored and who is told; the store keeps it, the live hub tells connected clients. */
export class NotificationService implements Notifier {
  private readonly store: NotificationStore
  private readonly live: LiveHub
  private readonly now: () => number
  private readonly onPushError: (err: unknown) => void
  private readonly observers: Array<(input: NotifyInput) => Promise<void>> = []

  constructor (deps: ServiceDeps) {
    this.store = deps.store
    this.live = deps.live
    this.now = deps.now ?? Date.now
    this.onPushError = deps.onPushError
  }

  async notify (input: NotifyInput): Promise<void> {
    await this.create(input)
  }

  /**
   * Another channel for the same notices (the chat bot): told of every notice stored or already stored (a
   * retried notify), so that it can make its own delivery once. Its failure is logged, the notice stays.
   */
  observe (observer: (input: NotifyInput) => Promise<void>): void {
    this.observers.push(observer)
  }

  /**
   * Stores and pushes a notice; undefined when the recipient already has one with the same externalId.
   * `at` carries the caller's own moment (a broadcast copied at the time it was found live, with its own createdAt).
   */
  async create (input: NotifyInput, at: { now?: number, createdAtMs?: number } = {}): Promise<Notification | undefined> {
    const parsed = notifyInputSchema.safeParse(input)
    if (!parsed.success) throw validationError(parsed.error, 'Invalid notification')
    const { metadata, ...fields } = parsed.data
    const now = at.now ?? this.now()
    const createdMs = at.createdAtMs ?? now
    const createdAt = new Date(createdMs).toISOString()
    const id = newNotificationId(createdMs)
    const notification: Notification = {
      ...fields,
      id,
      externalId: fields.externalId ?? randomUUID(),
      isRead: false,
      readAt: null,
      metadata: metadata ?? {},
      expiresAt: expiry(now, fields.expiresAt),
      createdAt,
      updatedAt: createdAt,
    }
    const { created, unreadCount } = await this.store.create(notification, now)
    for (const observer of this.observers) await observer({ ...input, externalId: notification.externalId }).catch(this.onPushError)
    if (!created) return undefined
    await this.push(recipientChannel(notification), { type: 'notification', notification, unreadCount })
    return notification
  }

  /** A notice for everyone of a role in the tenant: each one gets their own copy on their next read or live. */
  async broadcast (input: Omit<Broadcast, 'id' | 'createdAt' | 'expiresAt'> & { expiresAt?: string }): Promise<Broadcast> {
    const now = this.now()
    const parsed = broadcastSchema.safeParse({
      ...input, id: newNotificationId(now, 'bc'), createdAt: new Date(now).toISOString(), expiresAt: expiry(now, input.expiresAt)
    })
    if (!parsed.success) throw validationError(parsed.error, 'Invalid notification')
    await this.store.addBroadcast(parsed.data, now)
    await this.push(roleChannel(parsed.data.tenantId, parsed.data.recipientRole), { type: 'broadcast' })
    return parsed.data
  }

  /** Copies the role's broadcasts the reader has not been given yet into their own records. */
  async deliverBroadcasts (reader: Reader): Promise<void> {
    const cursor = await this.store.broadcastCursor(reader, reader.role)
    // one moment for the whole delivery: a broadcast found live is copied even if it expires meanwhile
    const now = this.now()
    const pending = await this.store.broadcastsAfter(reader.tenantId, reader.role, cursor, now)
    const last = pending.at(-1)
    if (!last) return
    for (const { broadcast } of pending) {
      const content = noticeContentSchema.parse(broadcast)
      // the broadcast id as externalId: a copy is made once per recipient even when two reads race
      await this.create(
        { ...content, tenantId: reader.tenantId, recipientId: reader.recipientId, recipientRole: reader.role, externalId: `bc_${broadcast.id}` },
        { now, createdAtMs: Date.parse(broadcast.createdAt) }
      )
    }
    const until = Math.max(...pending.map(({ broadcast }) => Date.parse(broadcast.expiresAt)))
    await this.store.setBroadcastCursor(reader, reader.role, last.seq, until)
  }

  async list (reader: Reader, query: ListQuery) {
    await this.deliverBroadcasts(reader)
    return await this.store.list(reader, query, this.now())
  }

  async unreadCount (reader: Reader): Promise<number> {
    await this.deliverBroadcasts(reader)
    return await this.store.unreadCount(reader, this.now())
  }

  /** How many of the actor's notices are unread, and the latest `limit`: broadcasts delivered once for both. */
  async summary (actor: Actor, limit: number): Promise<{ unread: number, latest: Notification[] }> {
    const reader = readerOf(actor)
    await this.deliverBroadcasts(reader)
    const now = this.now()
    const [unread, page] = await Promise.all([this.store.unreadCount(reader, now), this.store.list(reader, { offset: 0, limit }, now)])
    return { unread, latest: page.notifications }
  }

  async markRead (scope: RecipientScope, externalId: string): Promise<Notification | undefined> {
    const found = await this.store.markRead(scope, externalId, this.now())
    if (!found) return undefined
    await this.push(recipientChannel(scope), { type: 'unread-count', count: found.unreadCount })
    return found.notification
  }

  async markAllRead (reader: Reader): Promise<number> {
    await this.deliverBroadcasts(reader)
    const updated = await this.store.markAllRead(reader, this.now())
    if (updated > 0) await this.push(recipientChannel(reader), { type: 'unread-count', count: 0 })
    return updated
  }

  /** Erases a recipient's notices in the club (their data erased on request); answers how many. */
  async forget (scope: RecipientScope): Promise<number> {
    return await this.store.forget(scope)
  }

  async purgeExpired (tenantId: string): Promise<number> {
    return await this.store.purgeExpired(tenantId, this.now())
  }

  private async push (channel: string, message: LiveMessage): Promise<void> {
    try {
      await this.live.publish(channel, message)
    } catch (err) {
      this.onPushError(err)
    }
  }
}
