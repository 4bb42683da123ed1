import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_BODY_DEPTH } from '../../src/schemas/json-limits.ts'
import { METADATA_LIMITS } from '../../src/notifications/model.ts'
import { buildTestApp, type TestApp } from '../helper.ts'
import { redisState, sign } from './support.ts'

// Review item 6 and its class: free-form input is bounded. Notification metadata has a depth and a size limit
// (400 VALIDATION_ERROR beyond, nothing stored); no body of any route nests deeper than MAX_BODY_DEPTH, and
// 10,000 levels are a 400 everywhere, never a 500 (the parser, zod, a copy or Lua would recurse into it).

const nestedObjects = (depth: number, leaf = '1'): string => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth)
const nestedArrays = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth)

describe('bounded input', () => {
  let t: TestApp
  let admin: Record<string, string>
  beforeAll(async () => {
    t = await buildTestApp()
    admin = { ...await t.auth('admin'), 'content-type': 'application/json' }
  })
  afterAll(async () => { await t.close() })

  const send = (metadata: string, to = '"recipientRole":"member"') =>
    t.app.inject({ method: 'POST', url: '/api/notifications', headers: admin, payload: `{"title":"t","body":"b",${to},"metadata":${metadata}}` })

  it('notification metadata beyond the limits is 400 VALIDATION_ERROR and nothing is stored', async () => {
    const before = await redisState(t)
    const tooBig = JSON.stringify({ blob: 'x'.repeat(METADATA_LIMITS.maxBytes) })
    const attacks = [
      nestedObjects(10_000),
      `{"list":${nestedArrays(10_000)}}`,
      `{"__proto__":${nestedObjects(10_000)}}`,
      nestedObjects(METADATA_LIMITS.maxDepth + 1),
      `{"a":${nestedArrays(METADATA_LIMITS.maxDepth)}}`,
      tooBig,
      JSON.stringify({ blob: 'é'.repeat(METADATA_LIMITS.maxBytes / 2) }),
      JSON.stringify({ blob: 'x'.repeat(512 * 1024) }),
    ]
    for (const metadata of attacks) {
      for (const to of ['"recipientRole":"member"', '"recipientId":"cus_ana"']) {
        const res = await send(metadata, to)
        expect([res.statusCode, res.json().error.code], metadata.slice(0, 40)).toEqual([400, 'VALIDATION_ERROR'])
      }
    }
    expect(await redisState(t)).toEqual(before)
    // a whole mebibyte is refused before it is even parsed
    const huge = await send(JSON.stringify({ blob: 'x'.repeat(1024 * 1024) }))
    expect([huge.statusCode, huge.json().error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE'])
  })

  it('metadata at the limits is accepted', async () => {
    const deepest = JSON.parse(nestedObjects(METADATA_LIMITS.maxDepth - 1, '[]'))
    expect((await send(JSON.stringify(deepest), '"recipientId":"cus_ana"')).statusCode).toBe(201)
    const largest = { blob: 'x'.repeat(METADATA_LIMITS.maxBytes - '{"blob":""}'.length) }
    expect((await send(JSON.stringify(largest), '"recipientId":"cus_ana"')).statusCode).toBe(201)
  })

  it(`every route that takes a body refuses one nested deeper than ${MAX_BODY_DEPTH} levels with 400, never a 500`, async () => {
    const doc = (await t.app.inject('/openapi.json')).json() as { paths: Record<string, Record<string, { requestBody?: unknown }>> }
    const targets = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops)
      .filter(([, op]) => op.requestBody !== undefined)
      .map(([method, _op]) => ({ method: method.toUpperCase() as 'POST', url: path.replace(/\{[^}]+\}/g, 'x') })))
    expect(targets.length).toBeGreaterThan(10)
    for (const body of [nestedObjects(10_000), nestedArrays(10_000), nestedObjects(MAX_BODY_DEPTH + 1)]) {
      for (const target of targets) {
        const res = await t.app.inject({ ...target, headers: admin, payload: body })
        expect(res.statusCode, `${target.method} ${target.url}`).toBeLessThan(500)
        if (res.statusCode === 400) expect(res.json().error?.code ?? 'flat').toMatch(/VALIDATION_ERROR|flat/)
      }
    }
    // the signed chat routes parse their own bytes: a deep body there is a 400 too
    for (const url of ['/api/chat/flow-endpoint', '/api/chat/webhook']) {
      for (const raw of [nestedObjects(MAX_BODY_DEPTH + 5), nestedObjects(10_000), nestedArrays(10_000)]) {
        const res = await t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', 'x-webhook-signature': sign(raw) }, payload: raw })
        expect([url, res.statusCode]).toEqual([url, 400])
      }
    }
  })
})
