import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import { ROLES } from '../tenants/roles.ts'
import { isoTimestamp } from '../schemas/common.ts'
import { boundedJsonObject } from '../schemas/json-limits.ts'
import { NOTIFICATION_DOMAINS, NOTIFICATION_SEVERITIES, NOTIFICATION_SOURCES } from './types.ts'

export const DAY_MS = 86_400_000
/** A notification lives 30 days unless it says otherwise. */
export const DEFAULT_TTL_MS = 30 * DAY_MS

export const notificationSchema = z.object({
  id: z.string(),
  externalId: z.string(),
  tenantId: z.string(),
  recipientId: z.string(),
  recipientRole: z.string(),
  domain: z.enum(NOTIFICATION_DOMAINS),
  event: z.string(),
  title: z.string(),
  body: z.string(),
  severity: z.enum(NOTIFICATION_SEVERITIES),
  actionUrl: z.string().optional(),
  resourceId: z.string().optional(),
  resourceType: z.string().optional(),
  isRead: z.boolean(),
  readAt: isoTimestamp.nullable(),
  metadata: z.record(z.string(), z.unknown()),
  source: z.enum(NOTIFICATION_SOURCES),
  expiresAt: isoTimestamp,
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
}).meta({ id: 'Notification' })
export type Notification = z.infer<typeof notificationSchema>

const text = (max: number) => z.string().trim().min(1).max(max)

/** Free-form, but bounded: a notice is copied to every member of a role and to every live stream. */
export const METADATA_LIMITS = { maxDepth: 5, maxBytes: 4096 } as const

// The member's app opens it as a link. `//host` and `/\\host` take a browser to another host and script URLs
// run code, so only the app's own paths and http(s) pages pass.
function isActionUrl (value: string): boolean {
  if (value.startsWith('/')) return !/^\/[/\\]/.test(value)
  return URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol)
}

/** What a notice says, checked the same way whether it comes from a route, an event or the reminder job. */
export const noticeContentSchema = z.object({
  domain: z.enum(NOTIFICATION_DOMAINS),
  event: text(100).regex(/^[A-Za-z0-9_.:-]+$/, 'must be a dotted name such as appointment.reminder'),
  title: text(200),
  body: text(2000),
  severity: z.enum(NOTIFICATION_SEVERITIES),
  source: z.enum(NOTIFICATION_SOURCES),
  actionUrl: text(2000).refine(isActionUrl, 'must be a path (/...) or an absolute http(s) URL').optional(),
  resourceId: text(200).optional(),
  resourceType: text(100).optional(),
  metadata: boundedJsonObject(METADATA_LIMITS)
    .describe(`Free-form JSON object: at most ${METADATA_LIMITS.maxDepth} levels deep and ${METADATA_LIMITS.maxBytes} bytes`).optional(),
  expiresAt: isoTimestamp.optional(),
})

export const notifyInputSchema = noticeContentSchema.extend({
  tenantId: text(100),
  recipientId: text(200),
  recipientRole: text(50),
  externalId: text(200).optional(),
})

/** A notice to everyone of a role in a tenant; each recipient gets their own copy on their next read. */
export const broadcastSchema = noticeContentSchema.extend({
  id: z.string(),
  tenantId: z.string(),
  recipientRole: z.enum(ROLES),
  expiresAt: isoTimestamp,
  createdAt: isoTimestamp,
}).meta({ id: 'Broadcast' })
export type Broadcast = z.infer<typeof broadcastSchema>

let sequence = 0
const SEQUENCE_SPAN = 36 ** 4

/**
 * Ids sort by creation time, then by creation order within this process, so ties on createdAt order the
 * same way in every store (Redis ranges equal scores by member).
 */
export function newNotificationId (createdAtMs: number, prefix = 'ntf'): string {
  sequence = (sequence + 1) % SEQUENCE_SPAN
  return `${prefix}_${createdAtMs.toString(36).padStart(9, '0')}${sequence.toString(36).padStart(4, '0')}${randomBytes(4).toString('hex')}`
}

/** Where one recipient's records live. */
export interface RecipientScope {
  tenantId: string
  recipientId: string
}

export interface ListQuery {
  domain?: Notification['domain']
  source?: Notification['source']
  isRead?: boolean
  offset: number
  limit: number
}
