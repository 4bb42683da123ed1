import { createHash } from 'node:crypto'
import type { ContentStore } from '../content/store.ts'
import { addDays } from '../content/model.ts'
import { zonedDay, zonedDayStartMs, zonedTime } from '../tenants/time.ts'
import type { TenantStore } from '../tenants/store.ts'
import { messagesFor } from './messages.ts'
import type { NotificationService } from './service.ts'

export interface ReminderReport {
  tenants: number
  reminders: { appointments: number, tasks: number }
  expired: number
}

export interface ReminderDeps {
  tenants: TenantStore
  content: ContentStore
  notifications: NotificationService
  now: () => number
}

/**
 * One reminder per (recipient, event, resourceId, day in the club's time zone). It is the notice's
 * externalId, so the store's create refuses a second one atomically, even from a concurrent run.
 */
function reminderId (recipientId: string, event: string, resourceId: string, day: string): string {
  return `rem_${createHash('sha256').update(`${recipientId}\n${event}\n${resourceId}\n${day}`).digest('hex').slice(0, 32)}`
}

/** Spec, POST /api/notifications/generate-reminders: per tenant, tomorrow's appointments, overdue tasks, expiry. */
export async function generateReminders (deps: ReminderDeps): Promise<ReminderReport> {
  const report: ReminderReport = { tenants: 0, reminders: { appointments: 0, tasks: 0 }, expired: 0 }
  const now = deps.now()
  const created = (n: unknown): number => n ? 1 : 0
  for (const tenant of await deps.tenants.list()) {
    report.tenants++
    const say = messagesFor(tenant.locale)
    // "Today" and "tomorrow" are the club's: a club in UTC-3 still has today's evening ahead at 01:00 UTC.
    const zone = tenant.timeZone
    const today = zonedDay(now, zone)
    const tomorrow = addDays(today, 1)
    const { items: appointments } = await deps.content.listAppointments(tenant.id, {
      status: 'confirmed', from: zonedDayStartMs(tomorrow, zone), to: zonedDayStartMs(addDays(tomorrow, 1), zone),
    })
    for (const a of appointments) {
      const event = 'appointment.reminder'
      report.reminders.appointments += created(await deps.notifications.create({
        tenantId: tenant.id,
        recipientId: a.memberId,
        recipientRole: 'member',
        domain: 'appointments',
        event,
        title: say.appointmentTitle,
        body: say.appointmentBody(a.title, zonedTime(Date.parse(a.startsAt), zone), zone),
        severity: 'info',
        source: 'reminder',
        actionUrl: `/appointments/${encodeURIComponent(a.id)}`,
        resourceId: a.id,
        resourceType: 'appointment',
        metadata: { startsAt: a.startsAt },
        externalId: reminderId(a.memberId, event, a.id, today),
      }))
    }
    for (const t of await deps.content.openTasksDueBy(tenant.id, today)) {
      const event = 'task.overdue'
      report.reminders.tasks += created(await deps.notifications.create({
        tenantId: tenant.id,
        recipientId: t.assigneeId,
        recipientRole: t.assigneeRole,
        domain: 'tasks',
        event,
        title: say.taskTitle,
        body: say.taskBody(t.title, t.dueDate),
        severity: 'warning',
        source: 'reminder',
        actionUrl: `/tasks/${encodeURIComponent(t.id)}`,
        resourceId: t.id,
        resourceType: 'task',
        metadata: { dueDate: t.dueDate, status: t.status },
        externalId: reminderId(t.assigneeId, event, t.id, today),
      }))
    }
    report.expired += await deps.notifications.purgeExpired(tenant.id)
  }
  return report
}
