import { randomInt } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_FAILURES, WINDOW_MS } from '../../src/accounts/failed-logins.ts'
import { LOGIN_ATTEMPT_LIMIT } from '../../src/chat/linking/login-attempts.ts'
import { buildTestApp, signedPost, type TestApp } from '../helper.ts'
import { startFakeUpstream, type FakeUpstream } from '../orders/fake-upstream.ts'

// Review item 2: the per-email lock is taken before the password is tried, atomically, so 40 parallel guesses
// reach the password check exactly as often as the limit allows. The loopback backend counts the checks.

const PARALLEL = 40

describe.each(['redis', 'cluster'] as const)('login lock under parallel guessing (%s)', (store) => {
  let fake: FakeUpstream
  let t: TestApp
  beforeAll(async () => {
    fake = await startFakeUpstream()
    t = await buildTestApp({ store, env: { COMMERCE_URL: fake.url } })
  })
  afterAll(async () => {
    await t.close()
    await fake.close()
  })

  const checks = (actor: 'customer' | 'user'): number => fake.calls.filter((c) => c.path === `/auth/${actor}/emailpass`).length
  const login = (actor: 'customer' | 'user', email: string, password: string) =>
    t.app.inject({ method: 'POST', url: `/auth/${actor}/emailpass`, payload: { email, password } })

  it.each([
    ['customer', 'bruno@example.com'],
    ['user', 'grower@club-norte.test'],
    ['user', 'nobody-on-staff@club-norte.test'],
  ] as const)('%s %s: %i parallel wrong guesses, only the limit reach the password check; the rest 429 with Retry-After', async (actor, email) => {
    const before = checks(actor)
    const answers = await Promise.all(Array.from({ length: PARALLEL }, async () => await login(actor, email, `guess-${randomInt(1e9)}`)))
    expect(checks(actor) - before).toBe(MAX_FAILURES)
    const statuses = answers.map((a) => a.statusCode)
    expect(statuses.filter((s) => s === 401)).toHaveLength(MAX_FAILURES)
    const limited = answers.filter((a) => a.statusCode === 429)
    expect(limited).toHaveLength(PARALLEL - MAX_FAILURES)
    for (const res of limited) {
      expect(res.json().error.code).toBe('RATE_LIMITED')
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(WINDOW_MS / 1000)
    }
    // now even the right password is refused without being tried
    const locked = await login(actor, email, 'demo-password')
    expect(locked.statusCode).toBe(429)
    expect(checks(actor) - before).toBe(MAX_FAILURES)
  })

  it('a success gives the attempts back', async () => {
    const email = 'ana@example.com'
    for (let i = 0; i < MAX_FAILURES - 1; i++) expect((await login('customer', email, 'wrong')).statusCode).toBe(401)
    expect((await login('customer', email, 'demo-password')).statusCode).toBe(200)
    for (let i = 0; i < MAX_FAILURES; i++) expect((await login('customer', email, 'wrong')).statusCode).toBe(401)
    expect((await login('customer', email, 'wrong')).statusCode).toBe(429)
  })

  it(`the chat form: ${PARALLEL} parallel logins from one phone reach the password check ${LOGIN_ATTEMPT_LIMIT} times and link nothing`, async () => {
    const phone = `549${randomInt(1e9, 1e10 - 1)}`
    await t.app.loginFormInvites.markSent(phone)
    const before = checks('customer')
    const answers = await Promise.all(Array.from({ length: PARALLEL }, async (_, i) => await t.app.inject(signedPost('/api/chat/flow-endpoint', {
      source: 'chat',
      data_exchange: {
        version: '3.0', screen: 'LOGIN', flow_token: phone, data: { club_id: 'club-norte', email: `guess${i}@example.com`, password: 'demo-password' }
      },
      signature_valid: true,
    }))))
    expect(answers.every((a) => a.statusCode === 200 && a.json().screen === 'LOGIN')).toBe(true)
    expect(checks('customer') - before).toBe(LOGIN_ATTEMPT_LIMIT)
    expect(await t.app.linkedAccounts.list(phone)).toEqual([])
  })
})
