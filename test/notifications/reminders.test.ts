import fc from 'fast-check'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { buildTestApp, TEST_SECRETS, type TestApp } from '../helper.ts'
import { generateReminders } from '../../src/notifications/reminders.ts'
import { msUntilNext, scheduleDaily } from '../../src/notifications/schedule.ts'
import type { Notification } from '../../src/notifications/model.ts'
import { notice } from './fixtures.ts'

const CRON = { authorization: `Bearer ${TEST_SECRETS.CRON_API_SECRET}` }

describe.each(['redis', 'memory'] as const)('reminder job (%s)', (store) => {
  let t: TestApp
  const run = async (headers: Record<string, string> = CRON) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/notifications/generate-reminders', headers })
    return { status: res.statusCode, body: res.json(), raw: res.body }
  }
  const inbox = async (role: 'member' | 'grower' | 'admin', sub: string, tenant = 'club-norte'): Promise<Notification[]> =>
    (await t.app.inject({ url: '/api/notifications?limit=100', headers: await t.auth(role, tenant, { sub }) })).json().notifications

  beforeAll(async () => { t = await buildTestApp({ store }) })
  afterAll(async () => { await t.close() })

  it.each([
    ['no header', {}],
    ['a wrong secret', { authorization: 'Bearer not-the-cron-secret-at-all' }],
    ['the secret without Bearer', { authorization: TEST_SECRETS.CRON_API_SECRET }],
    ['the secret as Basic', { authorization: `Basic ${TEST_SECRETS.CRON_API_SECRET}` }],
    ['a prefix of the secret', { authorization: `Bearer ${TEST_SECRETS.CRON_API_SECRET.slice(0, -1)}` }],
  ])('answers 401 to %s', async (_name, headers) => {
    const res = await run(headers)
    expect(res.status).toBe(401)
    expect(res.body.error.code).toBe('UNAUTHORIZED')
    expect(res.raw).not.toContain(TEST_SECRETS.CRON_API_SECRET)
  })

  it('answers 401 to a user\'s access token, even an admin\'s', async () => {
    expect((await run({ authorization: `Bearer ${await t.token('admin')}` })).status).toBe(401)
  })

  it('creates the seeded reminders: 3 appointments tomorrow, 3 open tasks due up to today, in 2 tenants', async () => {
    const res = await run()
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ tenants: 2, reminders: { appointments: 3, tasks: 3 }, expired: 0 })

    const ana = await inbox('member', 'cus_ana')
    const reminder = ana.find((n) => n.event === 'appointment.reminder')
    expect(reminder).toMatchObject({
      domain: 'appointments',
      source: 'reminder',
      severity: 'info',
      recipientRole: 'member',
      resourceType: 'appointment',
      resourceId: 'appt_demo_norte_ana',
      actionUrl: '/appointments/appt_demo_norte_ana',
      isRead: false,
    })
    expect(reminder?.body).toContain('Consulta de dispensa')
    expect(ana.filter((n) => n.event === 'appointment.reminder')).toHaveLength(1)
    expect((await inbox('member', 'cus_ana', 'club-sur')).map((n) => n.resourceId)).toEqual(['appt_demo_sur_ana'])
    expect((await inbox('member', 'cus_bruno')).map((n) => n.resourceId)).toEqual(['appt_demo_norte_bruno'])

    const grower = await inbox('grower', 'user_grower_norte')
    expect(grower.map((n) => n.resourceId).sort()).toEqual(['task_demo_norte_inspect', 'task_demo_norte_water'])
    expect(grower.every((n) => n.event === 'task.overdue' && n.domain === 'tasks' && n.severity === 'warning' && n.recipientRole === 'grower')).toBe(true)
    expect((await inbox('admin', 'user_admin_sur', 'club-sur')).map((n) => n.resourceId)).toEqual(['task_demo_sur_stock'])
  })

  it('creates nothing new when run again the same day', async () => {
    const res = await run()
    expect(res.body).toEqual({ tenants: 2, reminders: { appointments: 0, tasks: 0 }, expired: 0 })
    expect((await inbox('grower', 'user_grower_norte'))).toHaveLength(2)
  })

  it('reminds again the next day for what is still open, and not for a task marked done', async () => {
    const admin = await t.auth('admin', 'club-norte')
    const done = await t.app.inject({ method: 'PATCH', url: '/api/tasks/task_demo_norte_water', headers: admin, payload: { status: 'DONE' } })
    expect(done.statusCode).toBe(200)
    const tomorrow = Date.now() + 86_400_000
    const report = await generateReminders({ tenants: t.app.tenants, content: t.app.content, notifications: t.app.notifications, now: () => tomorrow })
    // the appointments are today by then; the inspection task and club-sur's task are still open
    expect(report.reminders).toEqual({ appointments: 0, tasks: 2 })
    const grower = await inbox('grower', 'user_grower_norte')
    expect(grower.filter((n) => n.resourceId === 'task_demo_norte_inspect')).toHaveLength(2)
    expect(grower.filter((n) => n.resourceId === 'task_demo_norte_water')).toHaveLength(1)
  })

  it('deletes expired notifications and reports how many', async () => {
    // recipients the job does not otherwise touch: a write to an inbox drops its expired notices on the way
    const soon = new Date(Date.now() + 40).toISOString()
    await t.app.notifications.create(notice('cus_quiet_1', { expiresAt: soon }))
    await t.app.notifications.create(notice('cus_quiet_2', { expiresAt: soon }))
    await t.app.notifications.create(notice('cus_quiet_2', { tenantId: 'club-sur', expiresAt: soon }))
    await t.app.notifications.create(notice('cus_quiet_2'))
    await new Promise((resolve) => setTimeout(resolve, 80))
    const res = await run()
    expect(res.body.expired).toBe(3)
    expect((await run()).body.expired).toBe(0)
    expect(await inbox('member', 'cus_quiet_2')).toHaveLength(1)
    expect(await inbox('member', 'cus_quiet_1')).toHaveLength(0)
  })
})

describe.each(['redis', 'memory'] as const)('reminder job run twice at once (%s)', (store) => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store }) })
  afterAll(async () => { await t.close() })

  it('the lock lets one run; the other is 409 and nothing is duplicated', async () => {
    const call = async () => await t.app.inject({ method: 'POST', url: '/api/notifications/generate-reminders', headers: CRON })
    const results = await Promise.all([call(), call(), call()])
    const ok = results.filter((r) => r.statusCode === 200)
    const busy = results.filter((r) => r.statusCode === 409)
    expect(ok.length + busy.length).toBe(3)
    expect(ok.length).toBeGreaterThanOrEqual(1)
    for (const r of busy) expect(r.json().error.code).toBe('CONFLICT')
    const made = ok.reduce((sum, r) => sum + r.json().reminders.appointments + r.json().reminders.tasks, 0)
    expect(made).toBe(6)
  })

  it('even without the lock, concurrent runs create each reminder once', async () => {
    const deps = { tenants: t.app.tenants, content: t.app.content, notifications: t.app.notifications, now: () => Date.now() + 2 * 86_400_000 }
    const reports = await Promise.all([generateReminders(deps), generateReminders(deps), generateReminders(deps)])
    const tasks = reports.reduce((sum, r) => sum + r.reminders.tasks, 0)
    // two days on, four open demo tasks are due: each reminded once whichever run got there first
    expect(tasks).toBe(4)
    const grower = (await t.app.inject({
      url: '/api/notifications?limit=100', headers: await t.auth('grower', 'club-norte', { sub: 'user_grower_norte' })
    })).json()
    const perTask = new Map<string, number>()
    for (const n of grower.notifications as Notification[]) perTask.set(n.resourceId ?? '', (perTask.get(n.resourceId ?? '') ?? 0) + 1)
    expect(perTask.get('task_demo_norte_water')).toBe(2)
    expect(perTask.get('task_demo_norte_inspect')).toBe(2)
    expect(perTask.get('task_demo_norte_future')).toBe(1)
  })
})

describe('reminder schedule', () => {
  afterEach(() => { vi.useRealTimers() })

  it('the next run is always at 09:00 UTC, within a day, strictly later', () => {
    fc.assert(fc.property(fc.integer({ min: Date.parse('2000-01-01'), max: Date.parse('2100-01-01') }), (now) => {
      const wait = msUntilNext(now)
      const at = new Date(now + wait)
      expect(wait).toBeGreaterThan(0)
      expect(wait).toBeLessThanOrEqual(86_400_000)
      expect([at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds(), at.getUTCMilliseconds()]).toEqual([9, 0, 0, 0])
    }))
    expect(msUntilNext(Date.parse('2030-01-01T08:59:00Z'))).toBe(60_000)
    expect(msUntilNext(Date.parse('2030-01-01T09:00:00Z'))).toBe(86_400_000)
  })

  it('runs the job at 09:00 UTC each day and stops when told', async () => {
    vi.useFakeTimers({ now: Date.parse('2030-01-01T08:00:00Z') })
    const job = vi.fn(async () => {})
    const schedule = scheduleDaily(job, () => {})
    await vi.advanceTimersByTimeAsync(59 * 60_000)
    expect(job).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(job).toHaveBeenCalledTimes(1)
    await vi.advanceTimersByTimeAsync(86_400_000)
    expect(job).toHaveBeenCalledTimes(2)
    schedule.stop()
    await vi.advanceTimersByTimeAsync(3 * 86_400_000)
    expect(job).toHaveBeenCalledTimes(2)
  })

  it('keeps going after a failed run, reporting the error', async () => {
    vi.useFakeTimers({ now: Date.parse('2030-01-01T09:00:00Z') })
    const errors: unknown[] = []
    const job = vi.fn(async () => { throw new Error('boom') })
    const schedule = scheduleDaily(job, (err) => errors.push(err))
    await vi.advanceTimersByTimeAsync(2 * 86_400_000)
    expect(job).toHaveBeenCalledTimes(2)
    expect(errors).toHaveLength(2)
    schedule.stop()
  })
})

describe('scheduled reminder job in the app', () => {
  afterEach(() => { vi.restoreAllMocks() })

  // a timer set for the next 09:00 UTC (give or take the few seconds the app takes to start)
  const armedTimers = (spy: { mock: { calls: unknown[][] } }): number =>
    spy.mock.calls.filter(([, ms]) => typeof ms === 'number' && Math.abs(ms - msUntilNext(Date.now())) < 5_000).length

  it.each([['on', 1], ['off', 0]] as const)('REMINDERS_SCHEDULE=%s arms %i daily timer', async (value, expected) => {
    const spy = vi.spyOn(globalThis, 'setTimeout')
    const t = await buildTestApp({ store: 'memory', env: { REMINDERS_SCHEDULE: value } })
    const armed = armedTimers(spy)
    await t.close()
    expect(armed).toBe(expected)
  })
})
