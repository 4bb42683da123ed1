import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isLoopbackHost } from '../../src/chat/dev-outbox-route.ts'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { buildTestApp, TEST_SECRETS, type TestApp } from '../helper.ts'

// Review item 7: what a production web API is expected to do by default.

describe('security headers', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp() })
  afterAll(async () => { await t.close() })

  it('every answer carries them: API, errors and /docs', async () => {
    for (const url of ['/health', '/api/crops', '/api/nowhere', '/openapi.json', '/docs']) {
      const res = await t.app.inject(url)
      expect(res.headers['x-content-type-options'], url).toBe('nosniff')
      expect(res.headers['x-frame-options'], url).toBe('SAMEORIGIN')
      expect(res.headers['strict-transport-security'], url).toMatch(/max-age=\d+/)
      expect(res.headers['content-security-policy'], url).toContain("default-src 'self'")
      expect(res.headers['x-powered-by']).toBeUndefined()
    }
  })

  it('/docs still works under the policy: its page loads only same-origin scripts, which are served', async () => {
    const page = await t.app.inject('/docs')
    expect(page.statusCode).toBe(200)
    const csp = page.headers['content-security-policy'] as string
    expect(csp).toContain("script-src 'self'")
    expect(page.body).not.toMatch(/<script>(?!\s*<\/script>)/)
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string)
    expect(assets.length).toBeGreaterThan(3)
    for (const src of assets) {
      expect(src).not.toMatch(/^https?:/)
      expect((await t.app.inject(new URL(src, 'http://x/docs').pathname)).statusCode, src).toBe(200)
    }
    // the page's script reads the document from the same origin
    expect((await t.app.inject('/docs/json')).statusCode).toBe(200)
  })

  it('CORS is off by default: no origin is allowed, not even in a preflight', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS', url: '/api/crops', headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' }
    })
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined()
    const get = await t.app.inject({ url: '/health', headers: { origin: 'https://evil.example' } })
    expect(get.headers['access-control-allow-origin']).toBeUndefined()
  })
})

describe('CORS_ORIGINS', () => {
  let t: TestApp
  beforeAll(async () => { t = await buildTestApp({ env: { CORS_ORIGINS: 'https://app.club.example, https://admin.club.example' } }) })
  afterAll(async () => { await t.close() })

  it('allows exactly the listed origins', async () => {
    const ask = (origin: string) =>
      t.app.inject({
        method: 'OPTIONS',
        url: '/api/crops',
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,tenant-id' }
      })
    const allowed = await ask('https://admin.club.example')
    expect(allowed.headers['access-control-allow-origin']).toBe('https://admin.club.example')
    expect(allowed.headers['access-control-allow-headers']).toContain('tenant-id')
    expect(allowed.headers['access-control-allow-credentials']).toBeUndefined()
    for (const origin of ['https://evil.example', 'https://app.club.example.evil.example', 'http://app.club.example']) {
      expect((await ask(origin)).headers['access-control-allow-origin'], origin).toBeUndefined()
    }
  })

  it('refuses a malformed list at start', () => {
    for (const bad of ['*', 'app.club.example', 'https://app.club.example/path']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad })).toThrow(/CORS_ORIGINS/)
    }
    expect(loadConfig({}).corsOrigins).toEqual([])
  })
})

describe('production refusals', () => {
  const production = { NODE_ENV: 'production', REDIS_URL: 'redis://127.0.0.1:6379', ...TEST_SECRETS }

  it('starts with distinct secrets and without demo data', () => {
    expect(loadConfig(production).seed).toBe('none')
    expect(loadConfig(production).host).toBe('0.0.0.0')
  })

  it('refuses SEED=demo', () => {
    expect(() => loadConfig({ ...production, SEED: 'demo' })).toThrow(ConfigError)
    expect(() => loadConfig({ ...production, SEED: 'demo' })).toThrow(/SEED=demo/)
  })

  it.each([
    ['JWT_SECRET', 'CRON_API_SECRET'],
    ['JWT_SECRET', 'CHAT_WEBHOOK_SECRET'],
    ['CRON_API_SECRET', 'CHAT_WEBHOOK_SECRET'],
  ] as const)('refuses %s equal to %s', (a, b) => {
    expect(() => loadConfig({ ...production, [b]: TEST_SECRETS[a] })).toThrow(new RegExp(`${a} and ${b} must differ`))
  })
})

describe('the development chat outbox', () => {
  it.each([
    ['127.0.0.1', 200],
    ['localhost', 200],
    ['0.0.0.0', 404],
    ['::', 404],
    ['192.168.1.10', 404],
  ])('HOST=%s: %i', async (host, status) => {
    const t = await buildTestApp({ store: 'memory', env: { HOST: host } })
    try {
      expect((await t.app.inject('/api/chat/dev/outbox?phone=5491100000001')).statusCode).toBe(status)
    } finally {
      await t.close()
    }
  })

  it('knows loopback when it sees it', () => {
    for (const h of ['127.0.0.1', '127.10.0.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) expect(isLoopbackHost(h), h).toBe(true)
    for (const h of ['0.0.0.0', '::', '10.0.0.1', '127.0.0.1.evil.example', 'localhost.evil.example', '1127.0.0.1']) expect(isLoopbackHost(h), h).toBe(false)
  })

  it('development listens on loopback unless HOST says otherwise', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1')
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0')
  })
})
