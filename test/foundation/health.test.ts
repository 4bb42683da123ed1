import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helper.ts'

describe.each(['redis', 'memory'] as const)('health and readiness (%s)', (store) => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ store }) })
  afterAll(async () => { await t.close() })

  it('GET /health says the process is up', async () => {
    const res = await t.app.inject('/health')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'ok' })
    expect(res.headers['x-request-id']).toBeTruthy()
  })

  it('GET /ready reports the store', async () => {
    const res = await t.app.inject('/ready')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'ready', redis: store === 'redis' ? 'up' : 'memory' })
  })
})
