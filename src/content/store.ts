import type { RedisClient } from '../stores/redis-client.ts'
import { keys } from '../stores/keys.ts'
import { appointmentSchema, dayStartMs, isOpenTask, taskSchema, type Appointment, type AppointmentStatus, type Task, type TaskStatus } from './model.ts'

interface Page { limit: number, offset: number }
export interface AppointmentQuery extends Partial<Page> {
  status?: AppointmentStatus
  memberId?: string
  /** startsAt window in ms: from inclusive, to exclusive. */
  from?: number
  to?: number
}
export interface TaskQuery extends Partial<Page> {
  status?: TaskStatus
  assigneeId?: string
}
export interface Listed<T> { items: T[], total: number }

export interface ContentStore {
  putAppointment (appointment: Appointment): Promise<void>
  getAppointment (tenantId: string, id: string): Promise<Appointment | undefined>
  /** Ordered by startsAt, earliest first. */
  listAppointments (tenantId: string, query: AppointmentQuery): Promise<Listed<Appointment>>
  putTask (task: Task): Promise<void>
  getTask (tenantId: string, id: string): Promise<Task | undefined>
  /** Ordered by dueDate, earliest first. */
  listTasks (tenantId: string, query: TaskQuery): Promise<Listed<Task>>
  /** PENDING and IN_PROGRESS tasks due on `day` (YYYY-MM-DD) or earlier. */
  openTasksDueBy (tenantId: string, day: string): Promise<Task[]>
}

// Both stores narrow by the index they keep, then filter and page the same way here.
function filterAndPage<T> (candidates: T[], keep: (item: T) => boolean, page: Partial<Page>): Listed<T> {
  const matching = candidates.filter(keep)
  const offset = page.offset ?? 0
  const end = page.limit === undefined ? undefined : offset + page.limit
  return { items: matching.slice(offset, end), total: matching.length }
}

const appointmentFilter = (q: AppointmentQuery) => (a: Appointment): boolean =>
  (q.status === undefined || a.status === q.status) && (q.memberId === undefined || a.memberId === q.memberId)
const taskFilter = (q: TaskQuery) => (t: Task): boolean =>
  (q.status === undefined || t.status === q.status) && (q.assigneeId === undefined || t.assigneeId === q.assigneeId)
const byStart = (a: Appointment, b: Appointment): number => a.startsAt.localeCompare(b.startsAt) || a.id.localeCompare(b.id)
const byDue = (a: Task, b: Task): number => a.dueDate.localeCompare(b.dueDate) || a.id.localeCompare(b.id)

class MemoryContentStore implements ContentStore {
  private readonly appointments = new Map<string, Map<string, Appointment>>()
  private readonly tasks = new Map<string, Map<string, Task>>()

  private of<T> (map: Map<string, Map<string, T>>, tenantId: string): Map<string, T> {
    let inner = map.get(tenantId)
    if (!inner) map.set(tenantId, inner = new Map())
    return inner
  }

  async putAppointment (appointment: Appointment) { this.of(this.appointments, appointment.tenantId).set(appointment.id, structuredClone(appointment)) }
  async getAppointment (tenantId: string, id: string) { return structuredClone(this.of(this.appointments, tenantId).get(id)) }
  async listAppointments (tenantId: string, q: AppointmentQuery) {
    const inWindow = [...this.of(this.appointments, tenantId).values()].filter((a) => {
      const at = Date.parse(a.startsAt)
      return at >= (q.from ?? -Infinity) && at < (q.to ?? Infinity)
    })
    return filterAndPage(inWindow.sort(byStart).map((a) => structuredClone(a)), appointmentFilter(q), q)
  }

  async putTask (task: Task) { this.of(this.tasks, task.tenantId).set(task.id, structuredClone(task)) }
  async getTask (tenantId: string, id: string) { return structuredClone(this.of(this.tasks, tenantId).get(id)) }
  async listTasks (tenantId: string, q: TaskQuery) {
    return filterAndPage([...this.of(this.tasks, tenantId).values()].sort(byDue).map((t) => structuredClone(t)), taskFilter(q), q)
  }

  async openTasksDueBy (tenantId: string, day: string) {
    return [...this.of(this.tasks, tenantId).values()].filter((t) => isOpenTask(t) && t.dueDate <= day).sort(byDue).map((t) => structuredClone(t))
  }
}

class RedisContentStore implements ContentStore {
  constructor (private readonly redis: RedisClient) {}

  private async load<T> (hash: string, ids: string[], parse: (raw: unknown) => T): Promise<T[]> {
    if (ids.length === 0) return []
    const raws = await this.redis.hmget(hash, ...ids)
    return raws.flatMap((raw) => raw ? [parse(JSON.parse(raw))] : [])
  }

  async putAppointment (a: Appointment) {
    await this.redis.multi()
      .hset(keys.content.appointments(a.tenantId), a.id, JSON.stringify(a))
      .zadd(keys.content.appointmentsByStart(a.tenantId), Date.parse(a.startsAt), a.id)
      .exec()
  }

  async getAppointment (tenantId: string, id: string) {
    const [found] = await this.load(keys.content.appointments(tenantId), [id], (raw) => appointmentSchema.parse(raw))
    return found
  }

  async listAppointments (tenantId: string, q: AppointmentQuery) {
    const from = q.from === undefined ? '-inf' : String(q.from)
    const to = q.to === undefined ? '+inf' : `(${q.to}`
    const ids = await this.redis.zrangebyscore(keys.content.appointmentsByStart(tenantId), from, to)
    const items = await this.load(keys.content.appointments(tenantId), ids, (raw) => appointmentSchema.parse(raw))
    return filterAndPage(items.sort(byStart), appointmentFilter(q), q)
  }

  async putTask (t: Task) {
    const score = dayStartMs(t.dueDate)
    const tx = this.redis.multi()
      .hset(keys.content.tasks(t.tenantId), t.id, JSON.stringify(t))
      .zadd(keys.content.tasksByDue(t.tenantId), score, t.id)
    if (isOpenTask(t)) tx.zadd(keys.content.tasksOpen(t.tenantId), score, t.id)
    else tx.zrem(keys.content.tasksOpen(t.tenantId), t.id)
    await tx.exec()
  }

  async getTask (tenantId: string, id: string) {
    const [found] = await this.load(keys.content.tasks(tenantId), [id], (raw) => taskSchema.parse(raw))
    return found
  }

  async listTasks (tenantId: string, q: TaskQuery) {
    const ids = await this.redis.zrange(keys.content.tasksByDue(tenantId), 0, -1)
    const items = await this.load(keys.content.tasks(tenantId), ids, (raw) => taskSchema.parse(raw))
    return filterAndPage(items.sort(byDue), taskFilter(q), q)
  }

  async openTasksDueBy (tenantId: string, day: string) {
    const ids = await this.redis.zrangebyscore(keys.content.tasksOpen(tenantId), '-inf', dayStartMs(day))
    const items = await this.load(keys.content.tasks(tenantId), ids, (raw) => taskSchema.parse(raw))
    return items.filter(isOpenTask).sort(byDue)
  }
}

export function createContentStore (redis: RedisClient | null): ContentStore {
  return redis ? new RedisContentStore(redis) : new MemoryContentStore()
}
