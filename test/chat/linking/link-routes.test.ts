import { randomUUID } from 'node:crypto'
import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../../src/app.ts'
import { keys } from '../../../src/stores/keys.ts'
import { buildTestApp, type TestApp } from '../../helper.ts'

describe.each(['redis', 'memory'] as const)('link codes over HTTP (%s)', (store) => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store }) })
  afterAll(async () => { await t.close() })

  const anaToken = async (tenants = ['club-norte', 'club-sur'], expiresIn = 3600) =>
    await t.token('member', tenants, { sub: 'cus_ana', email: 'ana@example.com', name: 'Ana Pereyra', expiresIn })
  const linkBody = async (extra: Record<string, unknown> = {}) => ({
    customerId: 'cus_ana', tenantId: 'club-norte', email: 'ana@example.com', name: 'Ana Pereyra', token: await anaToken(), ...extra,
  })
  const create = async (payload: unknown) => await t.app.inject({ method: 'POST', url: '/api/chat/link', payload: payload as Record<string, unknown> })
  const consume = async (code: string) => await t.app.inject({ method: 'GET', url: `/api/chat/link/${code}` })

  it('creates a code (201, a UUID) that gives the record back once, with the club name', async () => {
    const body = await linkBody()
    const res = await create(body)
    expect(res.statusCode).toBe(201)
    const { code } = res.json()
    expect(code).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    const first = await consume(code)
    expect(first.statusCode).toBe(200)
    expect(first.json()).toEqual({
      customerId: 'cus_ana', tenantId: 'club-norte', tenantName: 'Club Norte', email: 'ana@example.com', name: 'Ana Pereyra', token: body.token
    })
    const again = await consume(code)
    expect(again.statusCode).toBe(404)
    expect(again.json()).toEqual({ error: 'Link code not found' })
  })

  it('an upper-case code is the same code', async () => {
    const { code } = (await create(await linkBody())).json()
    expect((await consume(code.toUpperCase())).statusCode).toBe(200)
  })

  it('an unknown code is 404, a malformed one 400, both flat', async () => {
    const unknown = await consume(randomUUID())
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json()).toEqual({ error: 'Link code not found' })
    for (const bad of ['short', 'not-a-uuid-but-long-enough', '123456789012345678901234567890123456']) {
      const res = await consume(bad)
      expect(res.statusCode).toBe(400)
      const body = res.json()
      expect(body.error).toBe('Invalid link code')
      expect(body.details.errors.code.length).toBeGreaterThan(0)
    }
  })

  it('a body missing fields or with a bad email is 400 "Invalid request body" keyed by field', async () => {
    const { customerId: _c, token: _t, ...rest } = await linkBody({ email: 'not-an-email' })
    const res = await create(rest)
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({
      error: 'Invalid request body',
      details: { errors: { customerId: ['Required'], token: ['Required'], email: ['Invalid email'] } },
    })
  })

  it('empty strings are Required, other types are refused, and a non-object body is refused', async () => {
    const res = await create(await linkBody({ name: '', tenantId: 42 }))
    expect(res.statusCode).toBe(400)
    expect(res.json().details.errors).toEqual({ name: ['Required'], tenantId: ['Expected a string'] })
    const missing = await create({})
    expect(Object.keys(missing.json().details.errors).sort()).toEqual(['customerId', 'email', 'name', 'tenantId', 'token'])
    expect(missing.json().details.errors.email).toEqual(['Required'])
    const array = await t.app.inject({ method: 'POST', url: '/api/chat/link', headers: { 'content-type': 'application/json' }, payload: '[1]' })
    expect(array.statusCode).toBe(400)
    expect(array.json().error).toBe('Invalid request body')
    const malformed = await t.app.inject({ method: 'POST', url: '/api/chat/link', headers: { 'content-type': 'application/json' }, payload: '{"a":' })
    expect(malformed.statusCode).toBe(400)
    expect(typeof malformed.json().error).toBe('string')
  })

  it('refuses a token that is not the customer\'s, not for the club, expired, or garbage: 401 flat', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ customerId: 'cus_bruno' }, 'Token does not belong to this customer'],
      [{ token: await anaToken(['club-sur']) }, 'Token is not valid for this tenant'],
      [{ token: await anaToken(['club-norte'], -10) }, 'Token has expired'],
      [{ token: 'garbage' }, 'Token is invalid'],
      [
        {
          token: await new SignJWT({ role: 'member', tenants: ['club-norte'] }).setProtectedHeader({ alg: 'HS256' }).setSubject('cus_ana').setExpirationTime(
            '1h'
          ).sign(new TextEncoder().encode('another-secret-0123456789abcdef'))
        },
        'Token is invalid'
      ],
    ]
    for (const [change, message] of cases) {
      const res = await create(await linkBody(change))
      expect(res.statusCode, message).toBe(401)
      expect(res.json()).toEqual({ error: message })
    }
  })

  it('an unknown tenant is 404 flat', async () => {
    const token = await anaToken(['club-x'])
    const res = await create(await linkBody({ tenantId: 'club-x', token }))
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ error: 'Tenant not found' })
  })

  it('no Bearer token is needed, and the token never reaches an error body', async () => {
    const body = await linkBody({ customerId: 'cus_bruno' })
    const res = await create(body)
    expect(res.body).not.toContain(body.token)
  })

  it.runIf(store === 'redis')('the code lives 10 minutes in Redis', async () => {
    const { code } = (await create(await linkBody())).json()
    const ttl = await t.redis?.pttl(keys.chat.linking.code(code))
    expect(ttl).toBeGreaterThan(9.9 * 60_000)
    expect(ttl).toBeLessThanOrEqual(10 * 60_000)
  })

  it.runIf(store === 'redis')('20 concurrent GETs of one code: exactly one 200, the rest 404', async () => {
    const { code } = (await create(await linkBody())).json()
    const results = await Promise.all(Array.from({ length: 20 }, async () => (await consume(code)).statusCode))
    expect(results.filter((s) => s === 200)).toHaveLength(1)
    expect(results.filter((s) => s === 404)).toHaveLength(19)
  })
})

describe('link codes across instances (redis)', () => {
  it('two apps on one Redis: a code made on one is consumed once, on either', async () => {
    const a = await buildTestApp({ store: 'redis' })
    try {
      const token = await a.token('member', ['club-norte'], { sub: 'cus_bruno', email: 'bruno@example.com' })
      const { code } = (await a.app.inject({
        method: 'POST', url: '/api/chat/link', payload: { customerId: 'cus_bruno', tenantId: 'club-norte', email: 'bruno@example.com', name: 'Bruno', token }
      })).json()
      // a second app on the same Redis and prefix: a second instance of the service
      const b = await buildApp(a.config, { redis: a.redis ?? undefined, logger: false })
      await b.ready()
      const results = await Promise.all(
        [a, { app: b }].flatMap(({ app }) => Array.from({ length: 10 }, async () => (await app.inject(`/api/chat/link/${code}`)).statusCode))
      )
      expect(results.filter((s) => s === 200)).toHaveLength(1)
      await b.close()
    } finally {
      await a.close()
    }
  })
})

describe('OpenAPI', () => {
  it('documents the link routes and the flow endpoint without a Bearer requirement', async () => {
    const t = await buildTestApp({ store: 'memory' })
    try {
      const doc = (await t.app.inject('/openapi.json')).json()
      for (const [path, method] of [['/api/chat/link', 'post'], ['/api/chat/link/{code}', 'get'], ['/api/chat/flow-endpoint', 'post']] as const) {
        expect(doc.paths[path]?.[method]?.security, path).toEqual([])
      }
      expect(Object.keys(doc.paths['/api/chat/link'].post.requestBody.content['application/json'].schema.properties).sort())
        .toEqual(['customerId', 'email', 'name', 'tenantId', 'token'])
    } finally {
      await t.close()
    }
  })
})
