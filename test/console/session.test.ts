import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signAccessToken } from '../../src/auth/tokens.ts'
import { buildTestApp, type TestApp } from '../helper.ts'

// The console's files and its session cookie, through inject: the headers the API has, a policy that allows
// only the console's own files, a cookie only /console/session reads and only with the x-console header, and
// an API that still takes nothing but the bearer header.

describe('console files and session', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store: 'memory' }) })
  afterAll(async () => { await t.close() })

  const cookieOf = (setCookie: unknown) => String(setCookie)

  it('serves its page and assets with the API\'s security headers and a policy of its own files only', async () => {
    const page = await t.app.inject({ url: '/console', headers: { 'accept-encoding': 'gzip' } })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-encoding']).toBe('gzip')
    expect(page.headers['cache-control']).toBe('no-store')
    const api = await t.app.inject({ url: '/health' })
    for (const name of ['strict-transport-security', 'x-content-type-options', 'x-frame-options', 'referrer-policy', 'cross-origin-opener-policy']) {
      expect(page.headers[name], name).toBe(api.headers[name])
    }
    const csp = String(page.headers['content-security-policy'])
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("connect-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toMatch(/https:|unsafe/)

    const html = (await t.app.inject({ url: '/console/' })).body
    const script = /src="(\/console\/assets\/main-[A-Z0-9]+\.js)"/.exec(html)?.[1]
    expect(script).toBeDefined()
    const js = await t.app.inject({ url: script! })
    expect(js.statusCode).toBe(200)
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(js.headers['content-security-policy']).toBe(page.headers['content-security-policy'])

    const missing = await t.app.inject({ url: '/console/assets/nothing.js' })
    expect(missing.statusCode).toBe(404)
    expect(missing.json().error.code).toBe('NOT_FOUND')
  })

  it('keeps a login in an HTTP-only, same-site strict cookie of /console/session, read back only with x-console', async () => {
    const token = await t.token('admin', ['club-norte'], { sub: 'user_admin_norte' })
    const noHeader = await t.app.inject({ method: 'POST', url: '/console/session', headers: { authorization: `Bearer ${token}` } })
    expect(noHeader.statusCode).toBe(400)
    expect(noHeader.headers['set-cookie']).toBeUndefined()

    const kept = await t.app.inject({ method: 'POST', url: '/console/session', headers: { authorization: `Bearer ${token}`, 'x-console': '1' } })
    expect(kept.statusCode).toBe(200)
    expect(kept.json()).toMatchObject({ token, sub: 'user_admin_norte', role: 'admin', tenants: ['club-norte'] })
    const cookie = cookieOf(kept.headers['set-cookie'])
    expect(cookie).toMatch(/^console_session=[\w.-]+; Path=\/console\/session; Max-Age=(3600|3599); HttpOnly; SameSite=Strict$/)
    const pair = cookie.split(';')[0]!

    expect((await t.app.inject({ url: '/console/session', headers: { cookie: pair } })).statusCode).toBe(400)
    const back = await t.app.inject({ url: '/console/session', headers: { cookie: pair, 'x-console': '1' } })
    expect(back.statusCode).toBe(200)
    expect(back.json().token).toBe(token)
    expect(back.headers['cache-control']).toBe('no-store')

    // the API itself still takes only the bearer header
    const api = await t.app.inject({ url: '/api/chat/conversations', headers: { cookie: pair, 'x-console': '1', 'tenant-id': 'club-norte' } })
    expect(api.statusCode).toBe(401)

    const out = await t.app.inject({ method: 'DELETE', url: '/console/session', headers: { cookie: pair, 'x-console': '1' } })
    expect(out.statusCode).toBe(204)
    expect(cookieOf(out.headers['set-cookie'])).toBe('console_session=; Path=/console/session; Max-Age=0; HttpOnly; SameSite=Strict')
  })

  it('answers 401 without a session, and drops a cookie whose token expired', async () => {
    const none = await t.app.inject({ url: '/console/session', headers: { 'x-console': '1' } })
    expect(none.statusCode).toBe(401)
    expect(none.json().error.code).toBe('UNAUTHORIZED')

    const old = await signAccessToken(t.config.jwtSecret, { sub: 'user_admin_norte', role: 'admin', tenants: ['club-norte'] }, -10)
    const expired = await t.app.inject({ url: '/console/session', headers: { cookie: `other=1; console_session=${old}`, 'x-console': '1' } })
    expect(expired.statusCode).toBe(401)
    expect(expired.json().error.code).toBe('TOKEN_EXPIRED')
    expect(cookieOf(expired.headers['set-cookie'])).toContain('Max-Age=0')

    const forged = await t.app.inject({ url: '/console/session', headers: { cookie: 'console_session=abc.def.ghi', 'x-console': '1' } })
    expect(forged.statusCode).toBe(401)
    expect(forged.json().error.code).toBe('INVALID_TOKEN')
  })

  it('marks the cookie Secure in production', async () => {
    const prod = await buildTestApp({ store: 'redis', env: { NODE_ENV: 'production', SEED: 'none' } })
    try {
      const headers = { authorization: `Bearer ${await prod.token('grower')}`, 'x-console': '1' }
      const res = await prod.app.inject({ method: 'POST', url: '/console/session', headers })
      expect(res.statusCode).toBe(200)
      expect(cookieOf(res.headers['set-cookie'])).toMatch(/; HttpOnly; SameSite=Strict; Secure$/)
    } finally {
      await prod.close()
    }
  })

  it("gives the console the club's name and language and the chat's number", async () => {
    const res = await t.app.inject({ url: '/console/context', headers: await t.auth('member', 'club-sur') })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ club: { id: 'club-sur', name: 'Club Sur', locale: 'es' }, chatNumber: null })
  })
})
