import type { Role } from '../tenants/roles.ts'

// The contract other domains use to notify a user (orders events, chat). Implemented by the notifications plugin.
export const NOTIFICATION_DOMAINS = [
  'orders', 'appointments', 'crops', 'tasks', 'memberships', 'medical', 'products', 'inventory', 'workforce', 'documents', 'system'
] as const
type NotificationDomain = typeof NOTIFICATION_DOMAINS[number]
export const NOTIFICATION_SEVERITIES = ['info', 'success', 'warning', 'error'] as const
type NotificationSeverity = typeof NOTIFICATION_SEVERITIES[number]
export const NOTIFICATION_SOURCES = ['event', 'reminder', 'manual', 'system'] as const
type NotificationSource = typeof NOTIFICATION_SOURCES[number]

export interface NotifyInput {
  tenantId: string
  recipientId: string
  recipientRole: string
  domain: NotificationDomain
  event: string
  title: string
  body: string
  severity: NotificationSeverity
  source: NotificationSource
  actionUrl?: string
  resourceId?: string
  resourceType?: string
  metadata?: Record<string, unknown>
  /** A stable id of the caller's choosing: a second notify with the same one for the recipient is ignored. Default: a new UUID. */
  externalId?: string
  /** ISO timestamp after which it is deleted. Default: 30 days after creation. */
  expiresAt?: string
}

export interface Notifier {
  /** Stores the notification for the recipient and pushes it to their live streams. */
  notify (input: NotifyInput): Promise<void>
  /** A notice for everyone of a role in the tenant (each gets their own copy, live and on their next read). */
  broadcast (input: Omit<NotifyInput, 'recipientId' | 'recipientRole' | 'externalId'> & { recipientRole: Role }): Promise<unknown>
}

declare module 'fastify' {
  interface FastifyInstance {
    notifier: Notifier
  }
}
