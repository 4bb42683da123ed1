import { z } from 'zod'
import { ROLES } from '../tenants/roles.ts'
import { isoTimestamp } from '../schemas/common.ts'

// The club's content the reminder job reads: members' appointments and staff tasks.
export const APPOINTMENT_STATUSES = ['confirmed', 'pending', 'cancelled'] as const
export const TASK_STATUSES = ['PENDING', 'IN_PROGRESS', 'DONE', 'CANCELLED'] as const
/** Tasks that still need doing: the ones the overdue reminder is about. */
const OPEN_TASK_STATUSES: readonly TaskStatus[] = ['PENDING', 'IN_PROGRESS']

export type AppointmentStatus = typeof APPOINTMENT_STATUSES[number]
export type TaskStatus = typeof TASK_STATUSES[number]

export const appointmentSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  memberId: z.string(),
  title: z.string(),
  startsAt: isoTimestamp,
  status: z.enum(APPOINTMENT_STATUSES),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
}).meta({ id: 'Appointment' })
export type Appointment = z.infer<typeof appointmentSchema>

export const taskSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  assigneeId: z.string(),
  assigneeRole: z.enum(ROLES),
  title: z.string(),
  /** A calendar day (YYYY-MM-DD, UTC): a task is overdue from the day after. */
  dueDate: z.iso.date(),
  status: z.enum(TASK_STATUSES),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
}).meta({ id: 'Task' })
export type Task = z.infer<typeof taskSchema>

export const isOpenTask = (task: Pick<Task, 'status'>): boolean => OPEN_TASK_STATUSES.includes(task.status)

/** Midnight UTC of a YYYY-MM-DD day, in ms: the score tasks are ordered by. */
export const dayStartMs = (day: string): number => Date.parse(`${day}T00:00:00.000Z`)

/** The UTC calendar day of an instant, YYYY-MM-DD. */
const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

/** The day `n` days after `day` (YYYY-MM-DD, UTC). */
export const addDays = (day: string, n: number): string => utcDay(dayStartMs(day) + n * 86_400_000)
