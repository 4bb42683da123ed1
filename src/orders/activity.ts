import type { Actor } from '../auth/actor.ts'
import { mapActivities, toStoredActivity } from './mapping.ts'
import type { Activity, ActivityDescription, Author } from './schemas.ts'

// Order activity events (spec: order activity event), kept in the upstream order's metadata. Pure.

export function authorOf (actor: Pick<Actor, 'sub' | 'name' | 'email'>): Author {
  const [firstName = '', ...rest] = (actor.name ?? actor.email ?? actor.sub).trim().split(/\s+/)
  return { id: actor.sub, firstName, lastName: rest.join(' ') }
}

export function activity (description: ActivityDescription, status: Activity['status'], author: Author, note?: string, at = new Date()): Activity {
  return { type: 'user', status, description, at: at.toISOString(), author, ...(note ? { note } : {}) }
}

/** The metadata with events appended to its log (and other keys changed by `patch`), as stored upstream. */
export function withActivities (
  metadata: Record<string, unknown> | null | undefined, events: Activity[], patch: Record<string, unknown> = {}
): Record<string, unknown> {
  const log = [...mapActivities(metadata), ...events].map(toStoredActivity)
  return { ...(metadata ?? {}), ...patch, activity_logs: log }
}
