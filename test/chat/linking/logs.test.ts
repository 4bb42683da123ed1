import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp, type BuiltApp } from '../../../src/app.ts'
import { signAccessToken } from '../../../src/auth/tokens.ts'
import { loadConfig } from '../../../src/config.ts'
import { loggerOptions } from '../../../src/logger.ts'
import { signedPost, TEST_SECRETS } from '../../helper.ts'

// Passwords and tokens that pass through the linking routes never reach a log line, even at trace level.
describe('chat linking logs', () => {
  const lines: string[] = []
  let app: BuiltApp
  beforeAll(async () => {
    const config = loadConfig({ NODE_ENV: 'test', SEED: 'demo', ...TEST_SECRETS })
    const stream = new Writable({ write (chunk, _enc, done) { lines.push(String(chunk)); done() } })
    app = await buildApp(config, { logger: { ...loggerOptions('trace'), stream } })
    await app.ready()
  })
  afterAll(async () => { await app.close() })

  it('holds no password, member token or webhook secret', async () => {
    const token = await signAccessToken(TEST_SECRETS.JWT_SECRET, { sub: 'cus_ana', role: 'member', tenants: ['club-norte'] })
    const { code } = (await app.inject({
      method: 'POST', url: '/api/chat/link', payload: { customerId: 'cus_ana', tenantId: 'club-norte', email: 'ana@example.com', name: 'Ana', token }
    })).json()
    await app.inject(`/api/chat/link/${code}`)
    await app.inject({
      method: 'POST', url: '/api/chat/link', payload: { customerId: 'cus_bruno', tenantId: 'club-norte', email: 'x@example.com', name: 'X', token }
    })
    const phone = '5491155550000'
    await app.loginFormInvites.markSent(phone)
    const login = (password: string) => app.inject(signedPost('/api/chat/flow-endpoint', {
      source: 'chat',
      data_exchange: { screen: 'LOGIN', flow_token: phone, data: { club_id: 'club-norte', email: 'ana@example.com', password } },
      signature_valid: true,
    }))
    expect((await login('a-wrong-password-123')).json().data.has_error).toBe(true)
    expect((await login('demo-password')).json().screen).toBe('SUCCESS')
    const [account] = await app.linkedAccounts.list(phone)
    const log = lines.join('')
    expect(lines.length).toBeGreaterThan(5)
    for (const secret of [token, account?.token ?? 'missing', 'a-wrong-password-123', 'demo-password', TEST_SECRETS.CHAT_WEBHOOK_SECRET]) {
      expect(log).not.toContain(secret)
    }
  })
})
