import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../../scripts/lib/free-port.ts'
import { openSse } from '../notifications/sse-client.ts'
import { buildTestApp, type TestApp } from '../helper.ts'

const METRICS_TOKEN = 'test-metrics-token-0123456789'

describe('GET /metrics with METRICS_TOKEN', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ env: { METRICS_TOKEN } }) })
  afterAll(async () => { await t.close() })

  it('answers 401 in the envelope without the token or with a wrong one', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${METRICS_TOKEN}x`, METRICS_TOKEN]) {
      const res = await t.app.inject({ url: '/metrics', headers: authorization ? { authorization } : {} })
      expect(res.statusCode).toBe(401)
      expect(res.json().error.code).toBe('UNAUTHORIZED')
    }
  })

  it('counts HTTP by route pattern and status, commerce calls by club, and the process', async () => {
    const admin = await t.auth('admin', 'club-norte')
    expect((await t.app.inject({ url: '/api/crops/crop_norte_gelato', headers: admin })).statusCode).toBe(200)
    expect((await t.app.inject({ url: '/api/crops/crop_none', headers: admin })).statusCode).toBe(404)
    expect((await t.app.inject({ url: '/api/orders', headers: admin })).statusCode).toBe(200)
    expect((await t.app.inject('/no/such/route')).statusCode).toBe(404)

    const res = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = res.body
    expect(text).toContain('club_http_request_duration_seconds_count{method="GET",route="/api/crops/:cropId",status="200"} 1')
    expect(text).toContain('club_http_request_duration_seconds_count{method="GET",route="/api/crops/:cropId",status="404"} 1')
    expect(text).toContain('club_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"} 1')
    expect(text).not.toContain('crop_norte_gelato')
    expect(text).not.toContain('/no/such/route')
    expect(text).toMatch(/club_commerce_request_duration_seconds_count\{club="club-norte",method="GET",status="200"\} [1-9]/)
    expect(text).toContain('club_notification_streams_open 0')
    expect(text).toContain('process_cpu_user_seconds_total')
  })
})

describe('GET /metrics without a token', () => {
  it('is open in development and test, for a local Prometheus', async () => {
    const t = await buildTestApp({ store: 'memory' })
    try {
      expect((await t.app.inject('/metrics')).statusCode).toBe(200)
    } finally {
      await t.close()
    }
  })

  it('is not served in production without METRICS_TOKEN or METRICS_PORT', async () => {
    const t = await buildTestApp({ env: { NODE_ENV: 'production', SEED: 'none' } })
    try {
      expect((await t.app.inject('/metrics')).statusCode).toBe(404)
    } finally {
      await t.close()
    }
  })
})

describe('METRICS_PORT', () => {
  it('serves /metrics on its own port only, and counts the notification streams open', async () => {
    const metricsPort = await freePort()
    const t = await buildTestApp({ env: { HOST: '127.0.0.1', METRICS_PORT: String(metricsPort) } })
    try {
      const base = await t.app.listen({ port: 0, host: '127.0.0.1' })
      expect((await fetch(`${base}/metrics`)).status).toBe(404)
      const stream = await openSse(`${base}/api/notifications/stream`, await t.auth('member', 'club-norte', { sub: 'cus_metrics' }))
      try {
        await stream.waitFor((e) => e.event === 'unread-count')
        const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
        expect(res.status).toBe(200)
        expect(await res.text()).toContain('club_notification_streams_open 1')
      } finally {
        stream.close()
      }
    } finally {
      await t.close()
    }
  })
})
