import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addDays, type Appointment, type Task } from '../../src/content/model.ts'
import { createContentStore, type ContentStore } from '../../src/content/store.ts'
import { zonedDay } from '../../src/tenants/time.ts'
import { buildTestApp, storeRedis, type TestApp } from '../helper.ts'

describe.each(['redis', 'cluster', 'memory'] as const)('content store contract (%s)', (kind) => {
  let store: ContentStore
  let cleanup = async (): Promise<void> => {}
  beforeAll(async () => {
    const r = await storeRedis(kind)
    store = createContentStore(r?.redis ?? null)
    if (r) cleanup = r.cleanup
  })
  afterAll(async () => { await cleanup() })
  const stamp = '2030-01-01T00:00:00.000Z'
  const appt = (tenantId: string, id: string, startsAt: string, status: Appointment['status'] = 'confirmed', memberId = 'm1'): Appointment =>
    ({ id, tenantId, memberId, title: id, startsAt, status, createdAt: stamp, updatedAt: stamp })
  const task = (tenantId: string, id: string, dueDate: string, status: Task['status'] = 'PENDING', assigneeId = 'g1'): Task =>
    ({ id, tenantId, assigneeId, assigneeRole: 'grower', title: id, dueDate, status, createdAt: stamp, updatedAt: stamp })

  it('lists appointments in a window, by status and member, earliest first, paged', async () => {
    const t = `t-${randomUUID()}`
    await store.putAppointment(appt(t, 'late', '2030-01-02T18:00:00.000Z'))
    await store.putAppointment(appt(t, 'early', '2030-01-02T08:00:00.000Z'))
    await store.putAppointment(appt(t, 'edge', '2030-01-03T00:00:00.000Z'))
    await store.putAppointment(appt(t, 'pending', '2030-01-02T09:00:00.000Z', 'pending'))
    await store.putAppointment(appt(t, 'other', '2030-01-02T10:00:00.000Z', 'confirmed', 'm2'))
    await store.putAppointment(appt(`t-${randomUUID()}`, 'elsewhere', '2030-01-02T10:00:00.000Z'))
    const day = { from: Date.parse('2030-01-02T00:00:00Z'), to: Date.parse('2030-01-03T00:00:00Z') }
    expect((await store.listAppointments(t, { ...day, status: 'confirmed' })).items.map((a) => a.id)).toEqual(['early', 'other', 'late'])
    expect((await store.listAppointments(t, { memberId: 'm1', status: 'confirmed' })).items.map((a) => a.id)).toEqual(['early', 'late', 'edge'])
    expect(await store.listAppointments(t, { limit: 2, offset: 3 })).toMatchObject({ total: 5, items: [{ id: 'late' }, { id: 'edge' }] })
    // moving one moves it in the index too
    await store.putAppointment(appt(t, 'early', '2030-01-05T08:00:00.000Z'))
    expect((await store.listAppointments(t, day)).items.map((a) => a.id)).toEqual(['pending', 'other', 'late'])
    expect(await store.getAppointment(t, 'nope')).toBeUndefined()
  })

  it('finds open tasks due by a day, and forgets them once done', async () => {
    const t = `t-${randomUUID()}`
    await store.putTask(task(t, 'old', '2030-01-01'))
    await store.putTask(task(t, 'today', '2030-01-05', 'IN_PROGRESS'))
    await store.putTask(task(t, 'future', '2030-01-06'))
    await store.putTask(task(t, 'done', '2030-01-02', 'DONE'))
    await store.putTask(task(t, 'cancelled', '2030-01-02', 'CANCELLED'))
    expect((await store.openTasksDueBy(t, '2030-01-05')).map((x) => x.id)).toEqual(['old', 'today'])
    await store.putTask(task(t, 'old', '2030-01-01', 'DONE'))
    expect((await store.openTasksDueBy(t, '2030-01-05')).map((x) => x.id)).toEqual(['today'])
    await store.putTask(task(t, 'done', '2030-01-02', 'PENDING'))
    expect((await store.openTasksDueBy(t, '2030-01-05')).map((x) => x.id)).toEqual(['done', 'today'])
    expect((await store.listTasks(t, { status: 'DONE' })).items.map((x) => x.id)).toEqual(['old'])
    expect((await store.listTasks(t, { assigneeId: 'g1', limit: 2 })).total).toBe(5)
  })
})

describe.each(['redis', 'memory'] as const)('content routes (%s)', (store) => {
  let t: TestApp
  let admin: Record<string, string>
  beforeAll(async () => {
    t = await buildTestApp({ store })
    admin = await t.auth('admin')
  })
  afterAll(async () => { await t.close() })

  it('lists the seeded appointments of the tenant, relative to today', async () => {
    const res = await t.app.inject({ url: '/api/appointments?status=confirmed', headers: admin })
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ count: 3, offset: 0, limit: 20 })
    // The demo clubs' days are Buenos Aires days.
    const zone = 'America/Argentina/Buenos_Aires'
    const tomorrow = addDays(zonedDay(Date.now(), zone), 1)
    expect(body.appointments.filter((a: Appointment) =>
      zonedDay(Date.parse(a.startsAt), zone) === tomorrow).map((a: Appointment) => a.memberId).sort()).toEqual(['cus_ana', 'cus_bruno'])
    const sur = await t.app.inject({ url: '/api/appointments', headers: await t.auth('admin', 'club-sur') })
    expect(sur.json().appointments.map((a: Appointment) => a.id)).toEqual(['appt_demo_sur_ana'])
  })

  it('creates an appointment (confirmed by default) and a task (PENDING, grower by default)', async () => {
    const a = await t.app.inject({
      method: 'POST', url: '/api/appointments', headers: admin, payload: { memberId: 'cus_bruno', title: 'Control', startsAt: '2030-03-01T13:00:00-03:00' }
    })
    expect(a.statusCode).toBe(201)
    expect(a.json().appointment).toMatchObject({ memberId: 'cus_bruno', status: 'confirmed', tenantId: 'club-norte', startsAt: '2030-03-01T16:00:00.000Z' })
    const listed = await t.app.inject({ url: '/api/appointments?from=2030-03-01T00:00:00Z&to=2030-03-02T00:00:00Z', headers: admin })
    expect(listed.json().appointments.map((x: Appointment) => x.id)).toEqual([a.json().appointment.id])

    const k = await t.app.inject({
      method: 'POST', url: '/api/tasks', headers: admin, payload: { assigneeId: 'user_grower_norte', title: 'Podar', dueDate: '2030-03-01' }
    })
    expect(k.statusCode).toBe(201)
    expect(k.json().task).toMatchObject({ status: 'PENDING', assigneeRole: 'grower', dueDate: '2030-03-01' })
    const tasks = await t.app.inject({ url: '/api/tasks?assigneeId=user_grower_norte&limit=100', headers: admin })
    expect(tasks.json().tasks.map((x: Task) => x.id)).toContain(k.json().task.id)
  })

  it('changes only the fields sent', async () => {
    const res = await t.app.inject({ method: 'PATCH', url: '/api/appointments/appt_demo_norte_bruno', headers: admin, payload: { status: 'cancelled' } })
    expect(res.statusCode).toBe(200)
    expect(res.json().appointment).toMatchObject({ status: 'cancelled', title: 'Retiro de pedido', memberId: 'cus_bruno' })
    const task = await t.app.inject({ method: 'PATCH', url: '/api/tasks/task_demo_norte_water', headers: admin, payload: { title: 'Regar todo' } })
    expect(task.json().task).toMatchObject({ title: 'Regar todo', status: 'PENDING', assigneeRole: 'grower' })
  })

  it.each([
    ['POST', '/api/appointments', { memberId: 'm', title: 't', startsAt: 'tomorrow' }, 'startsAt'],
    ['POST', '/api/appointments', { memberId: '', title: 't', startsAt: '2030-01-01T00:00:00Z' }, 'memberId'],
    ['POST', '/api/appointments', { memberId: 'm', title: 't', startsAt: '2030-01-01T00:00:00Z', status: 'done' }, 'status'],
    ['POST', '/api/tasks', { assigneeId: 'g', title: 't', dueDate: '2030-02-30' }, 'dueDate'],
    ['POST', '/api/tasks', { assigneeId: 'g', title: 't', dueDate: '2030-02-01', status: 'pending' }, 'status'],
    ['POST', '/api/tasks', { assigneeId: 'g', title: 't', dueDate: '2030-02-01', assigneeRole: 'boss' }, 'assigneeRole'],
    ['PATCH', '/api/tasks/task_demo_norte_water', {}, '_'],
    ['PATCH', '/api/appointments/appt_demo_norte_ana', { startsAt: 'x' }, 'startsAt'],
  ])('%s %s rejects a bad body with 400 keyed by field', async (method, url, payload, field) => {
    const res = await t.app.inject({ method: method as 'POST', url, headers: admin, payload })
    expect(res.statusCode).toBe(400)
    expect(res.json().error.code).toBe('VALIDATION_ERROR')
    expect(res.json().error.details.errors).toHaveProperty(field)
  })

  it.each([
    ['another tenant\'s task', '/api/tasks/task_demo_norte_water', { status: 'DONE' }],
    ['another tenant\'s appointment', '/api/appointments/appt_demo_norte_ana', { status: 'cancelled' }],
    ['an unknown task', '/api/tasks/nope', { status: 'DONE' }],
  ])('answers 404 for %s', async (_name, url, payload) => {
    const res = await t.app.inject({ method: 'PATCH', url, headers: await t.auth('admin', 'club-sur'), payload })
    expect(res.statusCode).toBe(404)
    expect(res.json().error.code).toBe('NOT_FOUND')
  })

  it.each(['member', 'grower'] as const)('is admin only (%s is 403)', async (role) => {
    const headers = await t.auth(role)
    for (const url of ['/api/appointments', '/api/tasks']) {
      expect((await t.app.inject({ url, headers })).statusCode).toBe(403)
    }
  })
})
