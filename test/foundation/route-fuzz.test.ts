import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'

// Every documented route, fed arbitrary params, queries and bodies (shaped after its own schema, so inputs get
// past the first check and into the services): never a 5xx, always a JSON answer in one of the spec's shapes.

interface Operation { method: string, path: string, bodyFields: string[], queryFields: string[] }

// Streams hold the connection open on success; their validation is covered by their own tests.
const SKIP = new Set(['GET /api/notifications/stream', 'GET /api/chat/conversations/stream'])

function operations (doc: { paths: Record<string, Record<string, Record<string, unknown>>> }): Operation[] {
  const out: Operation[] = []
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (SKIP.has(`${method.toUpperCase()} ${path}`)) continue
      const body = (op.requestBody as {
        content?: Record<string, { schema?: { properties?: Record<string, unknown> } }>
      } | undefined)?.content?.['application/json']?.schema
      const params = (op.parameters as Array<{ in: string, name: string }> | undefined) ?? []
      out.push({
        method: method.toUpperCase(),
        path,
        bodyFields: Object.keys(body?.properties ?? {}),
        queryFields: params.filter((p) => p.in === 'query').map((p) => p.name),
      })
    }
  }
  return out
}

const value = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }), fc.string(), fc.integer(), fc.double(),
  fc.constantFrom('', 'club-norte', 'crop_norte_gelato', '2026-01-01T00:00:00Z', -1, 0, 1e308)
)

function isErrorShape (status: number, body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false
  const error = (body as { error?: unknown }).error
  if (typeof error === 'string') return true // the spec's flat forms (crop transition, link routes)
  if (typeof error !== 'object' || error === null) return status < 400
  const e = error as { code?: unknown, message?: unknown }
  return typeof e.code === 'string' && typeof e.message === 'string'
}

describe('route fuzz', () => {
  let t: TestApp
  let ops: Operation[]
  let headers: Record<string, string>
  beforeAll(async () => {
    t = await buildTestApp({ store: 'redis', env: { RATE_LIMIT_MAX: '1000000' } })
    ops = operations((await t.app.inject('/openapi.json')).json())
    headers = await t.auth('admin', 'club-norte')
  })
  afterAll(async () => { await t.close() })

  it('covers the routes of every domain', () => {
    const paths = ops.map((o) => o.path)
    for (const prefix of ['/api/crops', '/api/orders', '/api/notifications', '/api/chat', '/store/carts', '/auth/']) {
      expect(paths.some((p) => p.startsWith(prefix))).toBe(true)
    }
  })

  it('never answers a 5xx, whatever comes in', async () => {
    const statuses = new Map<number, number>()
    for (const op of ops) {
      const arbitrary = fc.record({
        params: fc.array(fc.oneof(fc.string({ minLength: 1 }), fc.constantFrom('crop_norte_gelato', 'x'.repeat(300), '..', '%00')), {
          minLength: 4, maxLength: 4
        }),
        query: fc.dictionary(fc.constantFrom(...op.queryFields, 'limit', 'offset', 'page'), fc.oneof(fc.string(), fc.integer().map(String))),
        body: fc.oneof(
          fc.dictionary(fc.constantFrom(...op.bodyFields, 'extra'), value),
          fc.jsonValue({ maxDepth: 2 })
        ),
      })
      await fc.assert(fc.asyncProperty(arbitrary, async ({ params, query, body }) => {
        let n = 0
        const url = op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(params[n++] ?? 'x'))
        const qs = new URLSearchParams(query).toString()
        const sendsBody = body !== undefined && op.method !== 'GET' && op.method !== 'DELETE'
        const res = await t.app.inject({
          method: op.method as 'GET',
          url: qs ? `${url}?${qs}` : url,
          headers: { ...headers, ...(sendsBody ? { 'content-type': 'application/json' } : {}) },
          ...(sendsBody ? { payload: JSON.stringify(body) } : {}),
        })
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
        if (res.statusCode >= 500) throw new Error(`${op.method} ${url}?${qs} ${JSON.stringify(body)} -> ${res.statusCode} ${res.body}`)
        if (res.statusCode >= 400 && !isErrorShape(res.statusCode, res.json())) {
          throw new Error(
          `${op.method} ${url} -> ${res.statusCode} not an error shape: ${res.body}`
          )
        }
      }), { numRuns: 25 })
    }
    // the inputs reach past validation: some succeed, some are refused by the services (404, 409, 422)
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0)
    expect([404, 409, 422].some((s) => (statuses.get(s) ?? 0) > 0)).toBe(true)
  }, 240_000)
})
