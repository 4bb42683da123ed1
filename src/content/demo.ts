import { demoMembers, demoStaff } from '../tenants/demo.ts'
import { DEFAULT_TIME_ZONE } from '../tenants/model.ts'
import { zonedDay, zonedDayStartMs } from '../tenants/time.ts'
import { addDays, type Appointment, type Task } from './model.ts'
import type { ContentStore } from './store.ts'

const [ana, bruno] = demoMembers
const grower = demoStaff.find((s) => s.role === 'grower' && s.tenants.includes('club-norte'))
const adminSur = demoStaff.find((s) => s.role === 'admin' && s.tenants.includes('club-sur'))

/**
 * Appointments and tasks relative to the day the seed runs, so the reminder job has
 * work that day: 3 confirmed appointments tomorrow and 3 open tasks due up to today, plus one of each kind that
 * must not be reminded. Stable ids make a re-run overwrite instead of adding. Days and times are the demo
 * clubs' (Buenos Aires), as their reminder job reads them.
 */
const wallClock = (day: string, time: string): string => {
  const [hours = 0, minutes = 0] = time.split(':').map(Number)
  return new Date(zonedDayStartMs(day, DEFAULT_TIME_ZONE) + (hours * 60 + minutes) * 60_000).toISOString()
}

function demoContent (now: number): { appointments: Appointment[], tasks: Task[] } {
  if (!ana || !bruno || !grower || !adminSur) throw new Error('demo directory is missing a member or staff entry')
  const today = zonedDay(now, DEFAULT_TIME_ZONE)
  const tomorrow = addDays(today, 1)
  const stamp = new Date(now).toISOString()
  const appointment = (id: string, tenantId: string, memberId: string, title: string, day: string, time: string, status: Appointment['status']): Appointment =>
    ({ id, tenantId, memberId, title, startsAt: wallClock(day, time), status, createdAt: stamp, updatedAt: stamp })
  const task = (
    id: string, tenantId: string, assignee: { id: string, role: Task['assigneeRole'] }, title: string, dueDate: string, status: Task['status']
  ): Task =>
    ({ id, tenantId, assigneeId: assignee.id, assigneeRole: assignee.role, title, dueDate, status, createdAt: stamp, updatedAt: stamp })
  return {
    appointments: [
      appointment('appt_demo_norte_ana', 'club-norte', ana.id, 'Consulta de dispensa', tomorrow, '10:00', 'confirmed'),
      appointment('appt_demo_norte_bruno', 'club-norte', bruno.id, 'Retiro de pedido', tomorrow, '15:30', 'confirmed'),
      appointment('appt_demo_norte_bruno_pending', 'club-norte', bruno.id, 'Entrevista de socio', tomorrow, '17:00', 'pending'),
      appointment('appt_demo_norte_ana_later', 'club-norte', ana.id, 'Control mensual', addDays(today, 3), '10:00', 'confirmed'),
      appointment('appt_demo_sur_ana', 'club-sur', ana.id, 'Consulta de dispensa', tomorrow, '11:00', 'confirmed'),
    ],
    tasks: [
      task('task_demo_norte_water', 'club-norte', grower, 'Regar sala de floración', addDays(today, -2), 'PENDING'),
      task('task_demo_norte_inspect', 'club-norte', grower, 'Inspeccionar plagas en vegetativo', today, 'IN_PROGRESS'),
      task('task_demo_norte_done', 'club-norte', grower, 'Limpiar filtros', addDays(today, -1), 'DONE'),
      task('task_demo_norte_future', 'club-norte', grower, 'Trasplantar esquejes', addDays(today, 2), 'PENDING'),
      task('task_demo_sur_stock', 'club-sur', adminSur, 'Revisar stock de la semana', addDays(today, -1), 'PENDING'),
    ],
  }
}

export async function seedDemoContent (store: ContentStore, now = Date.now()): Promise<void> {
  const { appointments, tasks } = demoContent(now)
  for (const a of appointments) await store.putAppointment(a)
  for (const t of tasks) await store.putTask(t)
}
