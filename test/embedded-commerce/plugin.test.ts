import { describe, expect, it } from 'vitest'
import { verifyAccessToken } from '../../src/auth/tokens.ts'
import { buildTestApp } from '../helper.ts'

// The main app starts the embedded backend at registration, on a loopback port, and closes it with itself.
describe.each(['redis', 'memory'] as const)('commerce plugin (%s)', (store) => {
  it('serves the embedded backend at app.commerceUrl, seeded, with tokens the service accepts', async () => {
    const t = await buildTestApp({ store })
    const url = t.app.commerceUrl
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(await (await fetch(`${url}/health`)).text()).toBe('OK')
      const products = await (await fetch(`${url}/store/products`, { headers: { 'x-publishable-api-key': 'pk_club_norte' } })).json()
      expect(products.count).toBeGreaterThanOrEqual(4)
      const login = await fetch(`${url}/auth/user/emailpass`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'grower@club-norte.test', password: 'demo-password' })
      })
      const { token } = await login.json()
      expect(await verifyAccessToken(t.config.jwtSecret, token)).toMatchObject({ sub: 'user_grower_norte', role: 'grower', tenants: ['club-norte'] })
    } finally {
      await t.close()
    }
    await expect(fetch(`${url}/health`)).rejects.toThrow()
  })
})

describe('commerce plugin with COMMERCE_URL', () => {
  it('uses the configured backend and starts none', async () => {
    const t = await buildTestApp({ store: 'memory', env: { COMMERCE_URL: 'http://commerce.example:9000/' } })
    try {
      expect(t.app.commerceUrl).toBe('http://commerce.example:9000')
    } finally {
      await t.close()
    }
  })
})
