import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, TEST_SECRETS, type TestApp } from '../helper.ts'

const key = new TextEncoder().encode(TEST_SECRETS.JWT_SECRET)
const now = () => Math.floor(Date.now() / 1000)

async function sign (claims: Record<string, unknown>, options: { alg?: string, secret?: Uint8Array, exp?: number | null } = {}) {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: options.alg ?? 'HS256' })
  if (options.exp !== null) jwt.setExpirationTime(options.exp ?? now() + 600)
  return await jwt.sign(options.secret ?? key)
}

// decisions.md section 2, through a route guarded like every domain route.
describe('auth and tenant guard', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await buildTestApp({ store: 'redis', ready: false })
    t.app.get('/api/probe', { onRequest: t.app.guard({ roles: ['grower', 'admin'] }) }, async (request) => ({
      sub: request.principal.sub,
      role: request.principal.role,
      tenant: request.actor.tenant.id,
    }))
    t.app.get('/api/probe-any', { onRequest: t.app.guard({ tenant: false }) }, async (request) => ({ sub: request.principal.sub }))
    await t.app.ready()
  })
  afterAll(async () => { await t.close() })

  const call = (headers: Record<string, string>) => t.app.inject({ url: '/api/probe', headers })
  const code = async (headers: Record<string, string>) => (await call(headers)).json().error?.code

  it('accepts our own token and resolves the tenant from the header', async () => {
    const res = await call(await t.auth('grower', 'club-norte', { sub: 'u1' }))
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ sub: 'u1', role: 'grower', tenant: 'club-norte' })
  })

  it('accepts the commerce backend token form', async () => {
    const token = await sign({ actor_id: 'user_9', actor_type: 'user', app_metadata: { role: 'admin', tenants: ['club-sur'] } })
    const res = await call({ authorization: `Bearer ${token}` })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ sub: 'user_9', role: 'admin', tenant: 'club-sur' })
  })

  it('missing token is 401 UNAUTHORIZED', async () => {
    const res = await call({})
    expect(res.statusCode).toBe(401)
    expect(res.json().error.code).toBe('UNAUTHORIZED')
  })

  it('expired token is 401 TOKEN_EXPIRED', async () => {
    const token = await sign({ sub: 'u', role: 'admin', tenants: ['club-norte'] }, { exp: now() - 10 })
    const res = await call({ authorization: `Bearer ${token}` })
    expect(res.statusCode).toBe(401)
    expect(res.json().error.code).toBe('TOKEN_EXPIRED')
  })

  it.each([
    ['a malformed header', async () => 'Token abc'],
    ['garbage', async () => 'Bearer not.a.jwt'],
    [
      'a wrong signature',
      async () =>
        `Bearer ${await sign({ sub: 'u', role: 'admin', tenants: ['club-norte'] }, { secret: new TextEncoder().encode('another-secret-of-enough-length') })}`
    ],
    ['another algorithm', async () => `Bearer ${await sign({ sub: 'u', role: 'admin', tenants: ['club-norte'] }, { alg: 'HS512' })}`],
    ['no exp', async () => `Bearer ${await sign({ sub: 'u', role: 'admin', tenants: ['club-norte'] }, { exp: null })}`],
    ['an unknown role', async () => `Bearer ${await sign({ sub: 'u', role: 'root', tenants: ['club-norte'] })}`],
    ['alg none', async () => {
      const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url')
      return `Bearer ${enc({ alg: 'none' })}.${enc({ sub: 'u', role: 'admin', tenants: ['club-norte'], exp: now() + 60 })}.`
    }],
  ])('%s is 401 INVALID_TOKEN', async (_name, header) => {
    const res = await call({ authorization: await header() })
    expect(res.statusCode).toBe(401)
    expect(res.json().error.code).toBe('INVALID_TOKEN')
  })

  it('unknown tenant is 404 NOT_FOUND', async () => {
    expect(await code({ ...(await t.auth('admin')), 'tenant-id': 'club-nowhere' })).toBe('NOT_FOUND')
  })

  it('a tenant not in the token is 403 FORBIDDEN', async () => {
    const res = await call({ authorization: `Bearer ${await t.token('admin', ['club-norte'])}`, 'tenant-id': 'club-sur' })
    expect(res.statusCode).toBe(403)
    expect(res.json().error.code).toBe('FORBIDDEN')
  })

  it('without the header, the only tenant of the token; with several, 400 MISSING_REQUIRED_FIELD', async () => {
    const one = await call({ authorization: `Bearer ${await t.token('admin', ['club-sur'])}` })
    expect(one.json().tenant).toBe('club-sur')
    const many = await call({ authorization: `Bearer ${await t.token('admin', ['club-norte', 'club-sur'])}` })
    expect(many.statusCode).toBe(400)
    expect(many.json().error.code).toBe('MISSING_REQUIRED_FIELD')
  })

  it('a wrong role is 403 INSUFFICIENT_PERMISSIONS, after the tenant is checked', async () => {
    const res = await call(await t.auth('member'))
    expect(res.statusCode).toBe(403)
    expect(res.json().error.code).toBe('INSUFFICIENT_PERMISSIONS')
  })

  it('a route without tenant scope needs only a valid token', async () => {
    const res = await t.app.inject({
      url: '/api/probe-any', headers: { authorization: `Bearer ${await t.token('member', ['club-norte', 'club-sur'], { sub: 'm1' })}` }
    })
    expect(res.json()).toEqual({ sub: 'm1' })
  })
})
