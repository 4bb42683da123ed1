import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseCommand } from '../../src/club/cli.ts'
import { PRESETS } from '../../src/tenants/rules.ts'
import { clubRecord, clubSpecSchema } from '../../src/tenants/spec.ts'
import { buildTestApp, type TestApp } from '../helper.ts'

describe('GET/PATCH /api/club/rules', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp() })
  afterAll(async () => { await t.close() })

  it('a club made before rules has none (delivery allowed, no caps); growers read, members do not', async () => {
    const res = await t.app.inject({ url: '/api/club/rules', headers: await t.auth('grower') })
    expect(res.statusCode).toBe(200)
    expect(res.json().rules).toEqual(PRESETS.none)
    expect((await t.app.inject({ url: '/api/club/rules', headers: await t.auth('member') })).statusCode).toBe(403)
    const patch = await t.app.inject({ method: 'PATCH', url: '/api/club/rules', headers: await t.auth('grower'), payload: { dailyGrams: 1 } })
    expect(patch.statusCode).toBe(403)
  })

  it('a preset by name, then field by field on top of it; the fields given last stay when the next patch names none', async () => {
    const headers = await t.auth('admin', 'club-sur')
    const res = await t.app.inject({ method: 'PATCH', url: '/api/club/rules', headers, payload: { preset: 'de-kcang', minMembershipDays: 90 } })
    expect(res.statusCode).toBe(200)
    expect(res.json().rules).toEqual({ ...PRESETS['de-kcang'], minMembershipDays: 90 })
    const next = await t.app.inject({
      method: 'PATCH', url: '/api/club/rules', headers, payload: { dailyGrams: null, young: { underAge: 21, monthlyGrams: 25, maxThcPercent: 10 } }
    })
    expect(next.json().rules).toMatchObject({ preset: 'de-kcang', dailyGrams: null, monthlyGrams: 50, minMembershipDays: 90, young: { monthlyGrams: 25 } })
    expect((await t.app.tenants.get('club-sur'))?.rules).toEqual(next.json().rules)
    expect((await t.app.inject({ url: '/api/club/rules', headers: await t.auth('admin', 'club-norte') })).json().rules.preset).toBe('none')
  })

  it.each([
    [{ preset: 'nl-coffeeshop' }, 'preset', 'unknown preset'],
    [{ monthlyGrams: -5 }, 'monthlyGrams', ''],
    [{ dailyGrams: 1e9 }, 'dailyGrams', ''],
    [{ dailyGrams: 0.0001 }, 'dailyGrams', ''],
    [{ young: { underAge: 21, monthlyGrams: 30, maxThcPercent: 140 } }, 'young.maxThcPercent', ''],
    [{ deliveryAllowed: 'no' }, 'deliveryAllowed', ''],
    [{ maxMembers: 45 }, '', 'maxMembers'],
  ])('refuses %j with 400 naming the field, nothing written', async (payload, field, words) => {
    const before = await t.app.tenants.get('club-norte')
    const res = await t.app.inject({ method: 'PATCH', url: '/api/club/rules', headers: await t.auth('admin'), payload })
    expect(res.statusCode).toBe(400)
    expect(res.json().error.code).toBe('VALIDATION_ERROR')
    const errors = JSON.stringify(res.json().error.details)
    if (field) expect(errors).toContain(field)
    if (words) expect(errors).toContain(words)
    expect(await t.app.tenants.get('club-norte')).toEqual(before)
  })
})

describe('npm run club -- create --rules', () => {
  it('takes a preset name into the club record; an unknown one is refused naming the presets; none is the default', () => {
    const cmd = parseCommand(['create', '--id', 'club-berlin', '--name', 'Berlin', '--admin-email', 'a@b.test', '--rules', 'de-kcang'])
    expect(cmd).toMatchObject({ kind: 'create', spec: { rules: 'de-kcang' } })
    const commerce = { publishableKey: 'pk', regionId: 'r', salesChannelId: 's', stockLocationId: 'l', adminEmail: 'a', adminPassword: 'p' }
    expect(clubRecord(clubSpecSchema.parse({ id: 'club-berlin', name: 'Berlin', rules: 'de-kcang' }), commerce).rules).toEqual(PRESETS['de-kcang'])
    expect(clubRecord(clubSpecSchema.parse({ id: 'club-x', name: 'X' }), commerce).rules).toBeUndefined()
    const bad = clubSpecSchema.safeParse({ id: 'club-x', name: 'X', rules: 'de-kcan' })
    expect(bad.success).toBe(false)
    expect(JSON.stringify(bad.error?.issues)).toContain('one of none, de-kcang, uy-club, ar-reprocann, es-csc')
  })
})
