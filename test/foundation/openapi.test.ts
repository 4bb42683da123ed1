import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'

// The whole of /openapi.json read as a new user reads /docs: each check lists every operation that fails it, and
// what the document says of access is checked against what the app answers, not against how the document is made.

interface Operation {
  method: string
  path: string
  op: any
}

const ENVELOPE = '#/components/schemas/ErrorEnvelope'
// They pick the club a login's token is for; no guard resolves it.
const LOGINS = ['POST /auth/customer/emailpass', 'POST /auth/user/emailpass']

// Not errors of a request: /ready's 503 is its readiness report.
const FLAT_BODIES = ['GET /ready 503']

const name = ({ method, path }: Operation): string => `${method.toUpperCase()} ${path}`
const headerNames = (op: any): string[] => (op.parameters ?? []).filter((p: any) => p.in === 'header').map((p: any) => p.name.toLowerCase())
const url = (path: string): string => path.replace(/\{[^}]+\}/g, 'x1')

describe('/openapi.json, every operation', () => {
  let t: TestApp
  let doc: any
  let ops: Operation[]
  beforeAll(async () => {
    t = await buildTestApp({ store: 'memory', env: { RATE_LIMIT_MAX: '1000000' } })
    doc = (await t.app.inject('/openapi.json')).json()
    ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods as object).map(([method, op]) => ({ method, path, op })))
  })
  afterAll(async () => { await t.close() })

  it('documents a summary and who may call', () => {
    expect(ops.length).toBeGreaterThan(90)
    expect(ops.filter((o) => !o.op.summary?.trim()).map(name)).toEqual([])
    expect(ops.filter((o) => !o.op.description?.trim()).map(name)).toEqual([])
  })

  it('documents its error answers: 400 and 500 everywhere, 401 and 403 when guarded, 404 with path parameters', () => {
    const missing = ops.flatMap((o) => {
      const codes = ['400', '500']
      if (o.op.security?.length) codes.push('401')
      if (o.op.security?.some((s: object) => 'bearer' in s)) codes.push('403')
      if (o.path.includes('{')) codes.push('404')
      return codes.filter((c) => !o.op.responses[c]).map((c) => `${name(o)} ${c}`)
    })
    expect(missing).toEqual([])
  })

  it('answers its errors in the envelope (the flat bodies only where the API has them)', () => {
    const notEnvelope = ops.flatMap((o) => Object.entries(o.op.responses)
      .filter(([code]) => /^[45]/.test(code))
      .filter(([code, r]: [string, any]) => {
        const schema = Object.values(r.content ?? {}).map((m: any) => m.schema)[0]
        const flat = [schema, ...(schema?.anyOf ?? [])].some((s) => s?.properties?.error?.type === 'string')
        return !FLAT_BODIES.includes(`${name(o)} ${code}`) && schema?.$ref !== ENVELOPE && !flat
      })
      .map(([code]) => `${name(o)} ${code}`))
    expect(notEnvelope).toEqual([])
  })

  it('shows the lock exactly where the app refuses a call without a token (401)', async () => {
    const wrong: string[] = []
    for (const o of ops) {
      const res = await t.app.inject({ method: o.method.toUpperCase() as 'GET', url: url(o.path) })
      const locked = (o.op.security ?? doc.security ?? []).length > 0
      // The signed webhooks and the password-token route check a header they declare, not a token of the lock.
      const ownHeader = ['x-webhook-signature', 'authorization'].some((h) => headerNames(o.op).includes(h))
      if ((res.statusCode === 401 && !ownHeader) !== locked) wrong.push(`${name(o)}: ${res.statusCode}, lock ${locked}`)
    }
    expect(wrong).toEqual([])
  })

  it('declares Tenant-id exactly where a token of two clubs needs it', async () => {
    const authorization = `Bearer ${await t.token('admin', ['club-norte', 'club-sur'])}`
    const wrong: string[] = []
    for (const o of ops) {
      if (LOGINS.includes(name(o))) continue
      const res = await t.app.inject({ method: o.method.toUpperCase() as 'GET', url: url(o.path), headers: { authorization } })
      const needs = res.statusCode === 400 && res.json().error?.message === 'Tenant-id header is required'
      const declared = headerNames(o.op).includes('tenant-id')
      if (needs !== declared) wrong.push(`${name(o)}: needs ${needs}, declared ${declared}`)
    }
    expect(wrong).toEqual([])
    for (const login of LOGINS) {
      const [method, path] = login.split(' ') as [string, string]
      expect(headerNames(doc.paths[path][method.toLowerCase()]), login).toContain('tenant-id')
    }
  })
})

describe('the body examples of /docs, tried', () => {
  let t: TestApp
  let doc: any
  beforeAll(async () => {
    t = await buildTestApp({ env: { RATE_LIMIT_MAX: '1000000' } })
    doc = (await t.app.inject('/openapi.json')).json()
  })
  afterAll(async () => { await t.close() })

  const example = (path: string, method = 'post'): unknown => doc.paths[path][method].requestBody.content['application/json'].example

  it('creates a crop with the sample body of POST /api/crops', async () => {
    const body = example('/api/crops')
    expect(body).toMatchObject({ strain: 'strain_norte_gelato' })
    const res = await t.app.inject({ method: 'POST', url: '/api/crops', headers: await t.auth('grower'), payload: body as object })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().crop).toMatchObject({ strain: { id: 'strain_norte_gelato' }, status: 'IDEATING' })
  })

  it.each(['/api/strains', '/api/spaces', '/api/lights'])('adds to the catalog with the sample body of POST %s', async (path) => {
    const body = example(path) as Record<string, unknown>
    expect(body.name).toEqual(expect.any(String))
    const res = await t.app.inject({ method: 'POST', url: path, headers: await t.auth('grower'), payload: body })
    expect(res.statusCode, res.body).toBe(201)
  })

  it.each([['/auth/user/emailpass', 'admin'], ['/auth/customer/emailpass', 'member']])('logs in with the sample body of POST %s', async (path, role) => {
    const res = await t.app.inject({ method: 'POST', url: path, headers: { 'tenant-id': 'club-norte' }, payload: example(path) as object })
    expect(res.statusCode, res.body).toBe(200)
    const payload = JSON.parse(Buffer.from((res.json().token as string).split('.')[1] as string, 'base64url').toString())
    expect(payload.role).toBe(role)
  })
})
