import type { Broadcast, ListQuery, Notification, RecipientScope } from '../model.ts'

export interface Created {
  /** false when the recipient already had a notification with this externalId (nothing was written). */
  created: boolean
  unreadCount: number
}

/**
 * One recipient's notices, shaped for the API's reads. Every call first drops the recipient's expired
 * notices, so lists and counts never include them and always agree with each other.
 */
export interface NotificationStore {
  create (notification: Notification, now: number): Promise<Created>
  /** Newest first. */
  list (scope: RecipientScope, query: ListQuery, now: number): Promise<{ notifications: Notification[], total: number }>
  unreadCount (scope: RecipientScope, now: number): Promise<number>
  /** By externalId; marking a read one again leaves readAt as it was. undefined when the recipient has none such. */
  markRead (scope: RecipientScope, externalId: string, now: number): Promise<{ notification: Notification, unreadCount: number } | undefined>
  /** How many were unread and are now read. */
  markAllRead (scope: RecipientScope, now: number): Promise<number>
  /** Deletes every expired notice of a tenant with its index entries, and drops expired broadcasts from the role feeds; answers how many notices. */
  purgeExpired (tenantId: string, now: number): Promise<number>

  /** Appends to the role's feed, dropping the broadcasts expired by `now`; answers its position in the feed. */
  addBroadcast (broadcast: Broadcast, now: number): Promise<number>
  /** Unexpired broadcasts of the role after `afterSeq`, oldest first. */
  broadcastsAfter (tenantId: string, role: string, afterSeq: number, now: number): Promise<Array<{ seq: number, broadcast: Broadcast }>>
  /** The last feed position a recipient has been given (0 at first). */
  broadcastCursor (scope: RecipientScope, role: string): Promise<number>
  /**
   * Moves the position forward and keeps it at least `until` (ms), when the broadcasts it covers have all
   * expired: a position lost after that makes no one miss or get twice a broadcast still to be delivered.
   */
  setBroadcastCursor (scope: RecipientScope, role: string, seq: number, until: number): Promise<void>
  /** Erases every notice of the recipient and their broadcast positions (their data erased on request); answers how many notices. */
  forget (scope: RecipientScope): Promise<number>
}
