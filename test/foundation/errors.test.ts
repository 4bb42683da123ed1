import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { AppError, flatErrorBody } from '../../src/errors.ts'
import { buildTestApp, type TestApp } from '../helper.ts'

// Fastify's own errors and zod failures all come out in the one envelope.
describe('error envelope', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await buildTestApp({ store: 'memory', ready: false, env: { BODY_LIMIT_BYTES: '2048' } })
    t.app.post('/api/probe/:id', {
      schema: {
        params: z.object({ id: z.string().regex(/^p_/) }),
        body: z.object({ name: z.string().min(1), count: z.number().int().positive() }),
      },
    }, async (request) => ({ ok: request.params.id }))
    t.app.post('/api/probe-nobody', async (request) => ({ body: request.body ?? null }))
    t.app.get('/api/probe-boom', async () => { throw new Error('secret internal detail') })
    t.app.get('/api/probe-conflict', async () => { throw new AppError('CONFLICT', 'Already there', { details: { id: 'x' } }) })
    t.app.get('/api/probe-flat', { config: { errorBody: flatErrorBody }, schema: { querystring: z.object({ code: z.uuid() }) } }, async () => ({}))
    await t.app.ready()
  })
  afterAll(async () => { await t.close() })

  it('unknown route is 404 NOT_FOUND', async () => {
    const res = await t.app.inject('/api/nowhere')
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'Route GET /api/nowhere not found' } })
  })

  it('malformed JSON is 400 INVALID_REQUEST', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/probe/p_1', headers: { 'content-type': 'application/json' }, payload: '{"name":' })
    expect(res.statusCode).toBe(400)
    expect(res.json().error.code).toBe('INVALID_REQUEST')
  })

  it('an empty body that says it is JSON is no body, not malformed JSON', async () => {
    const empty = await t.app.inject({ method: 'POST', url: '/api/probe-nobody', headers: { 'content-type': 'application/json' }, payload: '' })
    expect(empty.statusCode).toBe(200)
    expect(empty.json()).toEqual({ body: null })
    const required = await t.app.inject({ method: 'POST', url: '/api/probe/p_1', headers: { 'content-type': 'application/json' }, payload: '' })
    expect(required.statusCode).toBe(400)
    expect(required.json().error.code).toBe('VALIDATION_ERROR')
  })

  it('a body over the limit is 413', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/probe/p_1', payload: { name: 'x'.repeat(5000), count: 1 } })
    expect(res.statusCode).toBe(413)
    expect(res.json().error.code).toBe('PAYLOAD_TOO_LARGE')
  })

  it('an unsupported content type is 415', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/probe/p_1', headers: { 'content-type': 'application/xml' }, payload: '<a/>' })
    expect(res.statusCode).toBe(415)
    expect(res.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE')
  })

  it('zod failures are 400 VALIDATION_ERROR keyed by field', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/probe/p_1', payload: { count: -1 } })
    expect(res.statusCode).toBe(400)
    const body = res.json()
    expect(body.error.code).toBe('VALIDATION_ERROR')
    expect(Object.keys(body.error.details.errors).sort()).toEqual(['count', 'name'])
    expect(body.error.details.errors.count[0]).toMatch(/>0|positive|greater/i)
  })

  it('bad path params are 400 too', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/probe/nope', payload: { name: 'a', count: 1 } })
    expect(res.statusCode).toBe(400)
    expect(res.json().error.details.errors).toHaveProperty('id')
  })

  it('a 500 never shows the internal message', async () => {
    const res = await t.app.inject('/api/probe-boom')
    expect(res.statusCode).toBe(500)
    expect(res.json()).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } })
    expect(res.body).not.toContain('secret')
  })

  it('AppError carries code and details', async () => {
    const res = await t.app.inject('/api/probe-conflict')
    expect(res.statusCode).toBe(409)
    expect(res.json()).toEqual({ error: { code: 'CONFLICT', message: 'Already there', details: { id: 'x' } } })
  })

  it('flat-style routes answer {error, details}', async () => {
    const res = await t.app.inject('/api/probe-flat?code=nope')
    expect(res.statusCode).toBe(400)
    const body = res.json()
    expect(typeof body.error).toBe('string')
    expect(body.details.errors).toHaveProperty('code')
  })
})

describe('query numbers', () => {
  it('an empty value means not given; anything else must be a whole number in range', async () => {
    const { pageQuery } = await import('../../src/schemas/common.ts')
    const q = pageQuery(10, 100)
    expect(q.parse({ limit: '', offset: '' })).toEqual({ limit: 10, offset: 0 })
    expect(q.parse({ limit: '0' })).toEqual({ limit: 0, offset: 0 })
    expect(q.safeParse({ limit: '101' }).success).toBe(false)
    expect(q.safeParse({ limit: '2.5' }).success).toBe(false)
    expect(q.safeParse({ offset: '-1' }).success).toBe(false)
    expect(q.safeParse({ limit: 'ten' }).success).toBe(false)
  })
})
