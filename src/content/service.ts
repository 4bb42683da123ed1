import { randomUUID } from 'node:crypto'
import { requireRole, type Actor } from '../auth/actor.ts'
import type { Role } from '../tenants/roles.ts'
import { notFound } from '../errors.ts'
import type { Appointment, Task } from './model.ts'
import type { AppointmentQuery, ContentStore, Listed, TaskQuery } from './store.ts'

/** Who books appointments and hands out tasks. */
export const CONTENT_KEEPERS: readonly Role[] = ['admin']

type Made<T> = Omit<T, 'id' | 'tenantId' | 'createdAt' | 'updatedAt'>
type Change<T> = Partial<Omit<T, 'id' | 'tenantId' | 'createdAt' | 'updatedAt'>>

/** The club's appointments and tasks, which the reminder job reads. */
export class ContentService {
  constructor (private readonly store: ContentStore, private readonly now: () => Date = () => new Date()) {}

  async listAppointments (actor: Actor, query: AppointmentQuery): Promise<Listed<Appointment>> {
    requireRole(actor, CONTENT_KEEPERS)
    return await this.store.listAppointments(actor.tenant.id, query)
  }

  async bookAppointment (actor: Actor, input: Made<Appointment>): Promise<Appointment> {
    requireRole(actor, CONTENT_KEEPERS)
    const at = this.now().toISOString()
    const appointment = {
      id: `appt_${randomUUID()}`, tenantId: actor.tenant.id, ...input, startsAt: new Date(input.startsAt).toISOString(), createdAt: at, updatedAt: at
    }
    await this.store.putAppointment(appointment)
    return appointment
  }

  async changeAppointment (actor: Actor, id: string, change: Change<Omit<Appointment, 'memberId'>>): Promise<Appointment> {
    requireRole(actor, CONTENT_KEEPERS)
    const found = await this.store.getAppointment(actor.tenant.id, id)
    if (!found) throw notFound('Appointment')
    const { startsAt, ...rest } = change
    const appointment = { ...found, ...rest, ...(startsAt ? { startsAt: new Date(startsAt).toISOString() } : {}), updatedAt: this.now().toISOString() }
    await this.store.putAppointment(appointment)
    return appointment
  }

  async listTasks (actor: Actor, query: TaskQuery): Promise<Listed<Task>> {
    requireRole(actor, CONTENT_KEEPERS)
    return await this.store.listTasks(actor.tenant.id, query)
  }

  async createTask (actor: Actor, input: Made<Task>): Promise<Task> {
    requireRole(actor, CONTENT_KEEPERS)
    const at = this.now().toISOString()
    const task = { id: `task_${randomUUID()}`, tenantId: actor.tenant.id, ...input, createdAt: at, updatedAt: at }
    await this.store.putTask(task)
    return task
  }

  async changeTask (actor: Actor, id: string, change: Change<Task>): Promise<Task> {
    requireRole(actor, CONTENT_KEEPERS)
    const found = await this.store.getTask(actor.tenant.id, id)
    if (!found) throw notFound('Task')
    const task = { ...found, ...change, updatedAt: this.now().toISOString() }
    await this.store.putTask(task)
    return task
  }
}
