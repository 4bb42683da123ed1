import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateReminders } from '../../src/notifications/reminders.ts'
import { buildTestApp, type TestApp } from '../helper.ts'

// A club's days are its own: in Tokyo (UTC+9) at 20:00 UTC it is already the next day.

describe('days follow the club\'s time zone', () => {
  let t: TestApp
  const now = Date.parse('2026-11-25T20:00:00Z') // Tokyo: 2026-11-26 05:00
  beforeAll(async () => {
    t = await buildTestApp({ env: { SEED: 'none' } })
    await t.app.tenants.put({ id: 'club-tokyo', name: 'Club Tokyo', locale: 'en', timeZone: 'Asia/Tokyo', currency: 'JPY', plan: { maxActiveCrops: 5 } })
    const stamp = new Date(now).toISOString()
    const appointment = (id: string, startsAt: string) => ({
      id, tenantId: 'club-tokyo', memberId: 'cus_kei', title: id, startsAt, status: 'confirmed' as const, createdAt: stamp, updatedAt: stamp
    })
    // Tokyo's today (UTC's tomorrow) and Tokyo's tomorrow (UTC's day after).
    await t.app.content.putAppointment(appointment('today-in-tokyo', '2026-11-26T11:00:00.000Z'))
    await t.app.content.putAppointment(appointment('tomorrow-in-tokyo', '2026-11-27T14:00:00.000Z'))
  })
  afterAll(async () => { await t.close() })

  it('reminds of the club\'s tomorrow, at its wall-clock time, once per club day', async () => {
    const deps = { tenants: t.app.tenants, content: t.app.content, notifications: t.app.notifications, now: () => now }
    expect((await generateReminders(deps)).reminders.appointments).toBe(1)
    expect((await generateReminders(deps)).reminders.appointments).toBe(0)
    const inbox = (await t.app.inject({ url: '/api/notifications', headers: await t.auth('member', 'club-tokyo', { sub: 'cus_kei' }) })).json().notifications
    expect(inbox.map((n: { resourceId: string }) => n.resourceId)).toEqual(['tomorrow-in-tokyo'])
    expect(inbox[0].body).toBe('You have an appointment tomorrow: tomorrow-in-tokyo, at 23:00 (Asia/Tokyo).')
  })

  it('numbers a harvest batch with the club\'s date', async () => {
    const admin = await t.auth('admin', 'club-tokyo')
    // A zone whose date is not UTC's right now: UTC+14 from 10:00 UTC on, UTC-11 before 11:00 UTC.
    const dateIn = (timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone }).format(new Date())
    const zone = ['Pacific/Kiritimati', 'Pacific/Pago_Pago'].find((z) => dateIn(z) !== dateIn('UTC')) ?? 'UTC'
    expect((await t.app.inject({ method: 'PATCH', url: '/api/club', headers: admin, payload: { timeZone: zone } })).statusCode).toBe(200)
    const crop = (await t.app.inject({
      method: 'POST', url: '/api/crops', headers: admin, payload: { name: 'Uno', strain: 'strain_t', strainName: 'T', status: 'FLOWERING' }
    })).json().crop
    const harvested = await t.app.inject({ method: 'POST', url: `/api/crops/${crop.id}/harvest`, headers: admin, payload: { wetWeight: 100 } })
    expect(harvested.statusCode, harvested.body).toBe(201)
    expect(harvested.json().harvest.batchNumber).toMatch(new RegExp(`^B-${dateIn(zone).replaceAll('-', '')}-\\d{4}$`))
  })
})
