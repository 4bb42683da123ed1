import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOneUseTokens } from '../../src/club/one-use-tokens.ts'
import { buildTestApp, type TestApp } from '../helper.ts'

describe.each(['redis', 'memory'] as const)('staff of a club (%s)', (store) => {
  let t: TestApp
  let admin: Record<string, string>
  beforeAll(async () => {
    t = await buildTestApp({ store })
    admin = await t.auth('admin', 'club-norte')
  })
  afterAll(async () => { await t.close() })

  const login = async (email: string, password: string) => await t.app.inject({ method: 'POST', url: '/auth/user/emailpass', payload: { email, password } })

  it('an admin invites a grower, who sets a password with the token (once) and logs in as grower of the club', async () => {
    const invited = await t.app.inject({
      method: 'POST', url: '/api/staff', headers: admin, payload: { email: 'Gala@Club-Norte.test', name: 'Gala Ruiz', role: 'grower' }
    })
    expect(invited.statusCode).toBe(201)
    const { invite, token } = invited.json()
    expect(invite).toMatchObject({ email: 'gala@club-norte.test', role: 'grower', tenantId: 'club-norte' })
    expect(Date.parse(invite.expiresAt) - Date.now()).toBeGreaterThan(23 * 3600_000)
    expect((await login('gala@club-norte.test', 'gala-password')).statusCode).toBe(401)

    const short = await t.app.inject({ method: 'POST', url: '/api/staff/invites/accept', payload: { token, password: 'short' } })
    expect(short.statusCode).toBe(400)
    const accepted = await t.app.inject({ method: 'POST', url: '/api/staff/invites/accept', payload: { token, password: 'gala-password' } })
    expect(accepted.statusCode).toBe(201)
    expect(accepted.json().staff).toMatchObject({ email: 'gala@club-norte.test', role: 'grower', id: expect.stringMatching(/^user_/) })
    const again = await t.app.inject({ method: 'POST', url: '/api/staff/invites/accept', payload: { token, password: 'gala-password' } })
    expect([again.statusCode, again.json().error.code]).toEqual([401, 'INVALID_TOKEN'])

    const logged = await login('gala@club-norte.test', 'gala-password')
    expect(logged.statusCode).toBe(200)
    const claims = JSON.parse(Buffer.from(logged.json().token.split('.')[1], 'base64url').toString())
    expect(claims).toMatchObject({ role: 'grower', tenants: ['club-norte'] })
    const listed = await t.app.inject({ url: '/api/staff', headers: admin })
    expect(listed.json().staff.map((s: { email: string }) => s.email)).toContain('gala@club-norte.test')
  })

  it('refuses an email that is staff here or elsewhere (409) and a token it never issued (401)', async () => {
    for (const email of ['grower@club-norte.test', 'admin@club-sur.test']) {
      const res = await t.app.inject({ method: 'POST', url: '/api/staff', headers: admin, payload: { email, name: 'X', role: 'grower' } })
      expect([res.statusCode, res.json().error.code]).toEqual([409, 'CONFLICT'])
    }
    const res = await t.app.inject({ method: 'POST', url: '/api/staff/invites/accept', payload: { token: 'made-up', password: 'whatever-password' } })
    expect(res.statusCode).toBe(401)
  })

  it('an invite sent twice before it is accepted is sent again: the newer token works', async () => {
    const send = async () =>
      (await t.app.inject({
        method: 'POST', url: '/api/staff', headers: admin, payload: { email: 'hugo@club-norte.test', name: 'Hugo', role: 'admin' }
      })).json().token as string
    await send()
    const second = await send()
    expect((await t.app.inject({ method: 'POST', url: '/api/staff/invites/accept', payload: { token: second, password: 'hugo-password' } })).statusCode).toBe(
      201
    )
  })

  it('changes roles and removes staff, but the last admin stays (409)', async () => {
    const sur = await t.auth('admin', 'club-sur')
    const demote = await t.app.inject({ method: 'PATCH', url: '/api/staff/user_admin_sur', headers: sur, payload: { role: 'grower' } })
    expect([demote.statusCode, demote.json().error.code]).toEqual([409, 'CONFLICT'])
    expect((await t.app.inject({ method: 'DELETE', url: '/api/staff/user_admin_sur', headers: sur })).statusCode).toBe(409)
    expect((await t.app.inject({ method: 'DELETE', url: '/api/staff/user_grower_norte', headers: sur })).statusCode).toBe(404)

    const promoted = await t.app.inject({ method: 'PATCH', url: '/api/staff/user_grower_norte', headers: admin, payload: { role: 'admin' } })
    expect(promoted.json().staff).toMatchObject({ role: 'admin' })
    expect((await t.app.tenants.getStaff('grower@club-norte.test'))?.role).toBe('admin')
    expect((await t.app.inject({ method: 'DELETE', url: '/api/staff/user_grower_norte', headers: admin })).statusCode).toBe(204)
    expect((await login('grower@club-norte.test', 'demo-password')).statusCode).toBe(401)
  })

  it('is for admins only', async () => {
    for (const role of ['grower', 'member'] as const) {
      expect((await t.app.inject({ url: '/api/staff', headers: await t.auth(role) })).statusCode).toBe(403)
    }
  })
})

describe('single-use tokens', () => {
  it('an expired token is refused, and one whose time ran out while it was taken is not put back', async () => {
    const tokens = createOneUseTokens(null)
    expect(await tokens.take('staff-invite', await tokens.issue('staff-invite', { a: 1 }, -1))).toBeUndefined()
    const token = await tokens.issue('staff-invite', { a: 2 }, 60_000)
    expect(await tokens.take('staff-invite', token)).toEqual({ a: 2 })
    await tokens.restore('staff-invite', token, { a: 2 }, Date.now() - 1)
    expect(await tokens.take('staff-invite', token)).toBeUndefined()
    await tokens.restore('staff-invite', token, { a: 2 }, Date.now() + 60_000)
    expect(await tokens.take('staff-invite', token)).toEqual({ a: 2 })
  })
})
