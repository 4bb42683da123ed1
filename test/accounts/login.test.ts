import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'
import { startFakeUpstream, type FakeUpstream } from '../orders/fake-upstream.ts'
import { MAX_FAILURES } from '../../src/accounts/failed-logins.ts'
import { keys } from '../../src/stores/keys.ts'

// Login through the clubs' backends; a loopback backend checks passwords and knows ana and bruno.

describe.each(['redis', 'memory'] as const)('login routes (%s)', (store) => {
  let fake: FakeUpstream
  let t: TestApp
  beforeAll(async () => {
    fake = await startFakeUpstream()
    t = await buildTestApp({ store, env: { COMMERCE_URL: fake.url } })
  })
  afterAll(async () => {
    await t.close()
    await fake.close()
  })

  const login = (actor: 'customer' | 'user', email: string, password = 'demo-password', headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: `/auth/${actor}/emailpass`, payload: { email, password }, headers })

  it('a member gets a token of ours for the clubs they belong to, and it works on /api', async () => {
    const res = await login('customer', 'Ana@Example.com')
    expect(res.statusCode).toBe(200)
    const claims = decodeJwt(res.json().token)
    expect(claims).toMatchObject({ sub: 'cus_ana', role: 'member', tenants: ['club-norte', 'club-sur'], email: 'ana@example.com', name: 'Ana Pereyra' })
    const orders = await t.app.inject({ url: '/api/orders', headers: { authorization: `Bearer ${res.json().token}`, 'tenant-id': 'club-sur' } })
    expect(orders.statusCode).toBe(200)
  })

  it('keeps the upstream token server-side, never in the answer', async () => {
    const res = await login('customer', 'bruno@example.com')
    expect(decodeJwt(res.json().token).tenants).toEqual(['club-norte'])
    expect(Object.keys(res.json())).toEqual(['token'])
    if (t.redis) {
      const kept = JSON.parse(await t.redis.get(keys.orders.upstreamToken('club-norte', 'cus_bruno')) ?? '{}')
      expect(kept).toMatchObject({ customerId: 'cus_bruno' })
      expect(kept.token).not.toBe(res.json().token)
      expect(await t.redis.pttl(keys.orders.upstreamToken('club-norte', 'cus_bruno'))).toBeGreaterThan(0)
    }
  })

  it('Tenant-id restricts the login to that club; a club they do not belong to is 403', async () => {
    expect(decodeJwt((await login('customer', 'ana@example.com', 'demo-password', { 'tenant-id': 'club-sur' })).json().token).tenants).toEqual(['club-sur'])
    const res = await login('customer', 'bruno@example.com', 'demo-password', { 'tenant-id': 'club-sur' })
    expect(res.statusCode).toBe(403)
    expect((await login('customer', 'ana@example.com', 'demo-password', { 'tenant-id': 'club-nowhere' })).statusCode).toBe(404)
  })

  it('staff get role and clubs from the directory', async () => {
    const res = await login('user', 'admin@club-norte.test')
    expect(res.statusCode).toBe(200)
    expect(decodeJwt(res.json().token)).toMatchObject({ sub: 'user_admin_norte', role: 'admin', tenants: ['club-norte'], name: 'Admin Norte' })
    expect(decodeJwt((await login('user', 'grower@club-norte.test')).json().token).role).toBe('grower')
  })

  it('staff naming a club they do not work for get 403 like members, not a failed login that counts toward the lock', async () => {
    for (let i = 0; i <= MAX_FAILURES; i++) {
      const res = await login('user', 'admin@club-sur.test', 'demo-password', { 'tenant-id': 'club-norte' })
      expect([res.statusCode, res.json().error.code]).toEqual([403, 'FORBIDDEN'])
    }
    expect((await login('user', 'admin@club-sur.test', 'wrong', { 'tenant-id': 'club-norte' })).statusCode).toBe(401)
    expect((await login('user', 'admin@club-sur.test')).statusCode).toBe(200)
  })

  it('bad credentials and unknown staff are 401 with one generic message', async () => {
    for (const res of [
      await login('customer', 'ana@example.com', 'wrong'), await login('user', 'nobody@club-norte.test'), await login('user', 'admin@club-sur.test', 'wrong')
    ]) {
      expect(res.statusCode).toBe(401)
      expect(res.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid email or password' } })
    }
  })

  it('a malformed body is 400', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/auth/customer/emailpass', payload: { email: 'not-an-email' } })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json().error.details.errors).sort()).toEqual(['email', 'password'])
  })

  it(`after ${MAX_FAILURES} failures an email is refused for a while, even with the right password`, async () => {
    const email = 'bruno@example.com'
    await login('customer', email)
    for (let i = 0; i < MAX_FAILURES; i++) expect((await login('customer', email, 'nope')).statusCode).toBe(401)
    const res = await login('customer', email)
    expect(res.statusCode).toBe(429)
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
    expect((await login('customer', 'ana@example.com')).statusCode).toBe(200)
  })
})
