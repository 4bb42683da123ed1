import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { buildTestApp, type TestApp } from '../helper.ts'

describe('GET/PATCH /api/club', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp() })
  afterAll(async () => { await t.close() })

  it('shows the club to its admins only', async () => {
    const res = await t.app.inject({ url: '/api/club', headers: await t.auth('admin') })
    expect(res.statusCode).toBe(200)
    expect(res.json().club).toMatchObject({
      id: 'club-norte', locale: 'es', timeZone: 'America/Argentina/Buenos_Aires', currency: 'ARS', pickup: { address: expect.any(String) }
    })
    expect((await t.app.inject({ url: '/api/club', headers: await t.auth('grower') })).statusCode).toBe(403)
    expect((await t.app.inject({ url: '/api/club', headers: await t.auth('member') })).statusCode).toBe(403)
  })

  it('changes language, time zone (canonical spelling) and pickup; what is left out stays', async () => {
    const headers = await t.auth('admin', 'club-sur')
    const res = await t.app.inject({
      method: 'PATCH', url: '/api/club', headers, payload: { locale: 'en', timeZone: 'europe/madrid', pickup: { address: 'Calle 1', hours: '9-17' } }
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().club).toMatchObject({ name: 'Club Sur', locale: 'en', timeZone: 'Europe/Madrid', pickup: { address: 'Calle 1', hours: '9-17' } })
    expect((await t.app.tenants.get('club-sur'))?.commerce?.publishableKey).toBe('pk_club_sur')
    const cleared = await t.app.inject({ method: 'PATCH', url: '/api/club', headers, payload: { pickup: null, name: 'Club Sur Renamed' } })
    expect(cleared.json().club).toMatchObject({ name: 'Club Sur Renamed', pickup: null, locale: 'en' })
  })

  it.each([
    [{ timeZone: 'GMT-3' }, 'timeZone'],
    [{ timeZone: 'Mars/Base' }, 'timeZone'],
    [{ locale: 'fr' }, 'locale'],
    [{ name: '' }, 'name'],
    [{ currency: 'USD' }, '_'],
  ])('refuses %j with 400 naming the field, nothing changed', async (payload, field) => {
    const before = await t.app.tenants.get('club-norte')
    const res = await t.app.inject({ method: 'PATCH', url: '/api/club', headers: await t.auth('admin'), payload })
    expect(res.statusCode).toBe(400)
    expect(res.json().error.code).toBe('VALIDATION_ERROR')
    expect(JSON.stringify(res.json().error.details.errors)).toContain(field === '_' ? 'currency' : field)
    expect(await t.app.tenants.get('club-norte')).toEqual(before)
  })

  it('keeps what admins changed when the demo seed runs again (a restart)', async () => {
    await t.app.inject({ method: 'PATCH', url: '/api/club', headers: await t.auth('admin', 'club-norte'), payload: { locale: 'en', timeZone: 'Asia/Tokyo' } })
    const restarted = await buildApp(t.config, { redis: t.redis ?? undefined, logger: false })
    await restarted.ready()
    expect(await restarted.tenants.get('club-norte')).toMatchObject({ locale: 'en', timeZone: 'Asia/Tokyo' })
    await restarted.close()
  })
})
