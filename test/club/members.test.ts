import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'

describe.each(['redis', 'memory'] as const)('members registered by the club (%s)', (store) => {
  let t: TestApp
  let admin: Record<string, string>
  beforeAll(async () => {
    t = await buildTestApp({ store })
    admin = await t.auth('admin', 'club-norte')
  })
  afterAll(async () => { await t.close() })

  const register = async (payload: Record<string, unknown>, headers = admin) => await t.app.inject({ method: 'POST', url: '/api/members', headers, payload })
  const setPassword = async (token: string, password: string) =>
    await t.app.inject({ method: 'POST', url: '/auth/customer/emailpass/update', headers: { authorization: `Bearer ${token}` }, payload: { password } })
  const login = async (email: string, password: string) =>
    await t.app.inject({ method: 'POST', url: '/auth/customer/emailpass', headers: { 'tenant-id': 'club-norte' }, payload: { email, password } })

  it('registers a member, who sets a password with the token (once) and logs in as a member of the club', async () => {
    const res = await register({ email: 'Carla@Example.com', firstName: 'Carla', lastName: 'Gómez', phone: '+54 9 11 2233-4455' })
    expect(res.statusCode).toBe(201)
    const { member, passwordToken } = res.json()
    expect(member).toMatchObject({ email: 'carla@example.com', firstName: 'Carla', lastName: 'Gómez', phone: '+5491122334455', hasAccount: false })
    expect(passwordToken).toEqual(expect.any(String))
    expect((await login('carla@example.com', 'carla-password')).statusCode).toBe(401)

    expect((await setPassword(passwordToken, 'carla-password')).json()).toEqual({ success: true })
    const again = await setPassword(passwordToken, 'carla-password')
    expect([again.statusCode, again.json().error.code]).toEqual([401, 'INVALID_TOKEN'])
    const logged = await login('carla@example.com', 'carla-password')
    expect(logged.statusCode).toBe(200)
    const claims = JSON.parse(Buffer.from(logged.json().token.split('.')[1], 'base64url').toString())
    expect(claims).toMatchObject({ role: 'member', tenants: ['club-norte'], sub: member.id })
  })

  it('gives a member without a password a new password token; once they have a password it is 409', async () => {
    const { member, passwordToken: first } = (await register({ email: 'eva@example.com', firstName: 'Eva', lastName: 'Luz' })).json()
    const res = await t.app.inject({ method: 'POST', url: `/api/members/${member.id}/password-token`, headers: admin })
    expect(res.statusCode).toBe(201)
    expect(res.json().passwordToken).not.toBe(first)
    expect((await setPassword(res.json().passwordToken, 'eva-password')).statusCode).toBe(200)
    const again = await t.app.inject({ method: 'POST', url: `/api/members/${member.id}/password-token`, headers: admin })
    expect([again.statusCode, again.json().error.code]).toEqual([409, 'CONFLICT'])
    expect(
      (await t.app.inject({ method: 'POST', url: `/api/members/${member.id}/password-token`, headers: await t.auth('admin', 'club-sur') })).statusCode
    ).toBe(404)
  })

  it('finds members by phone as staff type it: its digits (4 or more) within the number on record', async () => {
    const found = async (q: string) =>
      (await t.app.inject({ url: `/api/members?q=${encodeURIComponent(q)}`, headers: admin })).json().members.map((m: { email: string }) => m.email)
    expect(await found('+54 9 11 2233-4455')).toEqual(['carla@example.com'])
    expect(await found('2233 4455')).toEqual(['carla@example.com'])
    expect(await found('(11) 2233')).toEqual(['carla@example.com'])
    expect(await found('999 999 999')).toEqual([])
    // a few digits alone match no phone
    expect(await found('22')).toEqual([])
  })

  it('finds members by email or name (q)', async () => {
    const byName = await t.app.inject({ url: '/api/members?q=carla%20g', headers: admin })
    expect(byName.json().members.map((m: { email: string }) => m.email)).toEqual(['carla@example.com'])
    const byEmail = await t.app.inject({ url: '/api/members?q=EXAMPLE.com', headers: admin })
    expect(byEmail.json().count).toBeGreaterThanOrEqual(3)
    expect((await t.app.inject({ url: '/api/members?q=nobody-like-this', headers: admin })).json()).toMatchObject({ members: [], count: 0 })
  })

  it('refuses an email already registered, here or at another club (409), and makes nothing', async () => {
    for (const headers of [admin, await t.auth('admin', 'club-sur')]) {
      const dup = await register({ email: 'bruno@example.com', firstName: 'B', lastName: 'D' }, headers)
      expect([dup.statusCode, dup.json().error.code]).toEqual([409, 'CONFLICT'])
    }
    const listed = await t.app.inject({ url: '/api/members?q=bruno', headers: admin })
    expect(listed.json().members).toMatchObject([{ firstName: 'Bruno', lastName: 'Díaz' }])
  })

  it('refuses bad input with 400 and non-admins with 403', async () => {
    expect((await register({ email: 'not-an-email', firstName: 'A', lastName: 'B' })).statusCode).toBe(400)
    expect((await register({ email: 'x@example.com', firstName: 'A', lastName: 'B', phone: 'call me' })).statusCode).toBe(400)
    expect((await register({ email: 'x@example.com', firstName: 'A', lastName: 'B' }, await t.auth('grower'))).statusCode).toBe(403)
    expect((await setPassword('made-up', 'long-enough-password')).statusCode).toBe(401)
  })

  it('makes a chat link code for a member with a phone, which only that phone consumes, once', async () => {
    const { member } = (await register({ email: 'dora@example.com', firstName: 'Dora', lastName: 'Paz', phone: '+5491155556666' })).json()
    const res = await t.app.inject({ method: 'POST', url: `/api/members/${member.id}/chat-link`, headers: admin })
    expect(res.statusCode).toBe(201)
    const { code, phone } = res.json()
    expect(phone).toBe('+5491155556666')
    expect((await t.app.inject({ url: `/api/chat/link/${code}` })).statusCode).toBe(404)
    const consumed = await t.app.linkCodes.consume(code, '5491155556666')
    expect(consumed).toMatchObject({ customerId: member.id, tenantId: 'club-norte', email: 'dora@example.com', name: 'Dora Paz' })
    await expect(t.app.linkCodes.consume(code, '5491155556666')).rejects.toMatchObject({ code: 'NOT_FOUND' })
    const noPhone = await t.app.inject({ method: 'POST', url: '/api/members/cus_bruno/chat-link', headers: admin })
    expect(noPhone.statusCode).toBe(422)
    expect((await t.app.inject({ method: 'POST', url: `/api/members/${member.id}/chat-link`, headers: await t.auth('admin', 'club-sur') })).statusCode).toBe(
      404
    )
  })
})
